// What the benchmarks share: progress lines, database URLs, and the real service as a child process.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository's root, where a benchmark's service runs from. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A line of progress, with the time of day. */
export function log(message: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
}

/** `url` pointing at database `name` on the same server. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export type Service = { pid: number; base: string; stop(): Promise<void> };

/**
 * The real service (`node --import tsx launcher/src/main.ts`) as a child process on a random port, with
 * `env` over this process's environment and LOG_LEVEL=warn unless `env` says otherwise; resolves once
 * `/readyz` answers (about a minute at most). Its stderr goes to this process's, its stdout is dropped.
 */
export async function startService(env: Record<string, string>): Promise<Service> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, ["--import", "tsx", "launcher/src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout.resume();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: child.pid ?? 0,
    base,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
