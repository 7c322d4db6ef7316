/** The load generator, run in a worker thread by `runLoad`: warm-up, then the measured window. */
import { Agent, request, type OutgoingHttpHeaders } from "node:http";
import { performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { CASES, type BenchRequest } from "./cases.ts";
import type { LoadResult, LoadSpec } from "./load.ts";

const spec = workerData as LoadSpec;
const target = new URL(spec.origin);
const agent = new Agent({ keepAlive: true, maxSockets: spec.connections, maxFreeSockets: spec.connections });
const build = CASES[spec.caseName].build;
let sequence = 0;

type Reply = { status: number; body: string | undefined };

/** Sends one request and resolves once the whole response body has arrived; keeps the body only when not 2xx. */
function send(req: BenchRequest): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { authorization: spec.authorization };
  const payload = req.form === undefined ? undefined : Buffer.from(req.form);
  if (payload) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["content-length"] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: target.hostname, port: target.port, method: req.method, path: req.path, headers, agent }, (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        if (!ok) chunks.push(chunk);
      });
      res.once("end", () => resolve({ status, body: ok ? undefined : Buffer.concat(chunks).toString() }));
      res.once("error", reject);
    });
    outgoing.once("error", reject);
    outgoing.end(payload);
  });
}

/** Runs `connections` closed loops for `ms`; latencies (ms) of every response, errors counted apart. */
async function phase(ms: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let sample: string | undefined;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + ms;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const req = build(sequence++, spec.params);
      const sent = performance.now();
      try {
        const reply = await send(req);
        latencies.push(performance.now() - sent);
        if (reply.body !== undefined) {
          errors++;
          sample ??= `${req.method} ${req.path} -> ${reply.status} ${reply.body.slice(0, 500)}`;
        }
      } catch (error) {
        errors++;
        sample ??= `${req.method} ${req.path} -> ${String(error)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, loop));
  const elapsedMs = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return {
    requests: sorted.length,
    elapsedMs,
    rps: (sorted.length * 1000) / elapsedMs,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    cpuMsPerRequest: (user + system) / 1000 / Math.max(1, sorted.length),
    errors,
    ...(sample === undefined ? {} : { sample }),
  };
}

await phase(spec.warmupMs);
const result = await phase(spec.durationMs);
agent.destroy();
parentPort?.postMessage(result);
