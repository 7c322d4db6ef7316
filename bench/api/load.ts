import { Worker } from "node:worker_threads";
import type { CaseName, CaseParams } from "./cases.ts";

/** What one case is run with. Plain data: it crosses into the load worker. */
export type LoadSpec = {
  caseName: CaseName;
  params: CaseParams;
  /** e.g. http://127.0.0.1:3000 */
  origin: string;
  authorization: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
};

export type LoadResult = {
  /** Responses received in the measured window (any status). */
  requests: number;
  elapsedMs: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  /** CPU time of this whole process (server, client, GC) per response, in ms: less sensitive than latency to other load on the machine. */
  cpuMsPerRequest: number;
  /** Responses that were not 2xx, plus requests that failed at the socket level. */
  errors: number;
  /** The first error's status and body, when there was one. */
  sample?: string;
};

export const CLIENT_DESCRIPTION =
  "node:http keep-alive client in a worker thread (not the server's event loop), closed loop: " + "each connection sends its next request when the previous response has been read";

/**
 * Runs one case in a fresh worker thread, so the load generator does not share the server's event
 * loop. The worker is TypeScript: it registers tsx itself, since Node 20 does not pass `--import`
 * hooks on to workers.
 */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./load-worker.ts", import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(bootstrap, { eval: true, workerData: spec });
    let result: LoadResult | undefined;
    worker.once("message", (message: LoadResult) => (result = message));
    worker.once("error", reject);
    worker.once("exit", (code) => (result ? resolve(result) : reject(new Error(`load worker exited with code ${code} and no result`))));
  });
}
