import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openServerStorage } from "@shortener/db/testing";
import { afterAll, beforeAll } from "vitest";
import type { RunningServer } from "../src/server.ts";

export { startTestServer, type TestServer } from "../src/testing.ts";

/** The repository's root: the working folder of a service started as a child process. */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * One storage for the servers of a test file, opened before its tests and removed after them: for
 * files that start (and restart) servers themselves. `settings` is readable from the tests on.
 */
export function useServerStorage(): { readonly settings: Record<string, string> } {
  let storage: Awaited<ReturnType<typeof openServerStorage>> | undefined;
  beforeAll(async () => {
    storage = await openServerStorage();
  });
  afterAll(async () => {
    await storage?.close();
  });
  return {
    get settings() {
      if (!storage) throw new Error("the storage is opened in beforeAll: read its settings in a test");
      return storage.settings;
    },
  };
}

/** `data` of a REST answer, with the key as bearer and `form` form-encoded; a status of 300 or more throws. */
export async function apiData(base: string, key: string, method: string, path: string, form?: Record<string, string>): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  const body = (await res.json()) as { data: unknown };
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

export type ServiceProcess = {
  child: ChildProcess;
  /** The exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** The last 3000 characters it wrote, stdout and stderr together. */
  output(): string;
  /** SIGTERM unless it has already exited, then its exit. */
  stop(): Promise<void>;
};

/**
 * The real entry point (`node --import tsx launcher/src/main.ts`) as a child process, with `env` over this
 * process's environment; destination health checks off unless `env` turns them on (the tests' links point
 * at hosts that do not exist here).
 */
export function spawnService(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "launcher/src/main.ts"], { cwd: ROOT, env: { ...process.env, HEALTH_CHECKS: "off", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += String(chunk)));
  child.stderr?.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output.slice(-3000),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The id of the domain the service's first start made for its own address. */
export function bootstrapDomainId(server: RunningServer): number {
  if (!server.boot.created || server.boot.domainId === null) throw new Error("no bootstrap domain");
  return server.boot.domainId;
}

/** An import job (`GET /api/v1/imports/{id}`) once it has ended, `completed` or `failed`; throws after `timeoutMs`. */
export async function endedImport(base: string, key: string, id: number, timeoutMs: number): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/api/v1/imports/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const job = ((await res.json()) as { data: Record<string, any> }).data;
    if (job.status === "completed" || job.status === "failed") return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${String(job.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
