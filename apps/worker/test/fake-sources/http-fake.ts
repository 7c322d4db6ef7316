import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a fake source got. */
export type FakeRequest = { method: string; path: string; query: URLSearchParams; headers: IncomingMessage["headers"] };

/** What a fake answers: a status, a JSON body (or raw text) and headers. */
export type FakeAnswer = { status: number; json?: unknown; text?: string; headers?: Record<string, string> };

/**
 * A fake of another service's API on 127.0.0.1 (a real server on a real socket). `answer` is the service as
 * its reference describes it; `failNext` makes the next requests whose path matches fail first (429, 5xx…),
 * the way a real service under load or behind a proxy does.
 */
export async function startFake(answer: (request: FakeRequest) => FakeAnswer) {
  const requests: FakeRequest[] = [];
  const failures: { match: (request: FakeRequest) => boolean; answer: FakeAnswer; left: number }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const request: FakeRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers: req.headers };
      requests.push(request);
      const failure = failures.find((f) => f.left > 0 && f.match(request));
      let reply: FakeAnswer;
      if (failure) {
        failure.left--;
        reply = failure.answer;
      } else {
        try {
          reply = answer(request);
        } catch (error) {
          reply = { status: 500, text: `fake failed: ${String(error)}` };
        }
      }
      const body = reply.text ?? JSON.stringify(reply.json ?? null);
      res.writeHead(reply.status, { "content-type": reply.text === undefined ? "application/json" : "text/plain", ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The next `times` requests whose path passes `match` get `answer` instead. */
    failNext(times: number, answer: FakeAnswer, match: (request: FakeRequest) => boolean = () => true) {
      failures.push({ match, answer, left: times });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Fake = Awaited<ReturnType<typeof startFake>>;

/** A page size asked for, within the service's own bounds. */
export function pageSize(value: string | null, fallback: number, max: number): number {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isNaN(n) || n <= 0 ? fallback : Math.min(n, max);
}
