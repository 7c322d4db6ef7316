import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a destination server got: method, path, and when it arrived (this process's clock, ms). */
export type Hit = { method: string; path: string; at: number };

/** How a destination answers a request: a status (and headers), or never (a hung server). */
export type Reply = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A link destination for health-check tests: a real HTTP server on a loopback address (127.0.0.1 unless
 * `host` says another of 127/8), answering each request as `plan` says and noting when it arrived.
 */
export async function startDestination(plan: (req: IncomingMessage) => Reply | Promise<Reply>, host = "127.0.0.1") {
  const hits: Hit[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? "", path: req.url ?? "", at: performance.now() });
    hanging.add(res);
    void Promise.resolve(plan(req)).then((reply) => {
      if (reply === "hang" || res.destroyed) return;
      hanging.delete(res);
      res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
      res.end(req.method === "HEAD" ? undefined : "a body the checker does not read");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    hits,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Destination = Awaited<ReturnType<typeof startDestination>>;
