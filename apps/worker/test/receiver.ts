import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a test receiver got. */
export type Received = {
  deliveryId: string;
  event: string;
  signature: string;
  host: string;
  path: string;
  body: string;
};

/** What the receiver does with a request: answer with a status (and body), never answer, or answer 200 with a body that never ends. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang" | "endless";

/**
 * A webhook receiver on 127.0.0.1 (a real server on a real socket), answering each request as `plan`
 * says; `count` is how many times this delivery id arrived, this one included.
 */
export async function startReceiver(plan: (request: Received, count: number) => Answer | Promise<Answer> = () => ({ status: 200 })) {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const listeners = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const request: Received = {
          deliveryId: String(req.headers["shortener-delivery"] ?? ""),
          event: String(req.headers["shortener-event"] ?? ""),
          signature: String(req.headers["shortener-signature"] ?? ""),
          host: String(req.headers.host ?? ""),
          path: req.url ?? "",
          body: Buffer.concat(chunks).toString("utf8"),
        };
        const count = (counts.get(request.deliveryId) ?? 0) + 1;
        counts.set(request.deliveryId, count);
        received.push(request);
        for (const listener of listeners) listener();
        const answer = await plan(request, count);
        if (answer === "hang") {
          hanging.add(res);
          return;
        }
        if (answer === "endless") {
          hanging.add(res);
          res.writeHead(200, { "content-type": "text/plain" });
          const chunk = "x".repeat(16 * 1024);
          const pump = setInterval(() => (res.destroyed ? clearInterval(pump) : res.write(chunk)), 5);
          res.on("close", () => clearInterval(pump));
          return;
        }
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
        res.end(answer.body ?? "ok");
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    /** Delivery ids in the order they first arrived. */
    firstSeen: () => [...new Set(received.map((r) => r.deliveryId))],
    /** Waits until `test` holds for what was received. */
    waitFor(test: (received: Received[]) => boolean, timeoutMs = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(received)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`the receiver did not get what was expected; got ${JSON.stringify(received.map((r) => [r.deliveryId, r.event]))}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
