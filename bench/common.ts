// What the benchmarks share: progress lines, database URLs, and the real service as a child process.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
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
    // Destination health checks off unless `env` turns them on: a benchmark measures its own path (bench:health measures them).
    env: { ...process.env, LOG_LEVEL: "warn", HEALTH_CHECKS: "off", ...env, PORT: String(port) },
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

/**
 * `node ARGS` in `cwd` (a checkout) as a child process, with `env` over this process's environment and
 * LOG_LEVEL=warn unless `env` says otherwise; resolves once it prints that it is running (the launcher's
 * welcome line, or the raw server's). On an early exit, rejects with everything it printed, named by `label`.
 * With `cpu`, the process runs pinned to that CPU.
 */
export function startProcess(args: string[], env: Record<string, string>, cwd: string, label = "server", cpu?: number): Promise<ChildProcess> {
  // `cpu`: pinned to that CPU with taskset (util-linux), so the scheduler's placement is the same for every process.
  const [command, argv] = cpu === undefined ? [process.execPath, args] : ["taskset", ["-c", String(cpu), process.execPath, ...args]];
  // Destination health checks off unless `env` turns them on (bench:health measures them).
  const child = spawn(command, argv, { cwd, env: { ...process.env, LOG_LEVEL: "warn", HEALTH_CHECKS: "off", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes("is running at")) {
        clearInterval(timer);
        resolve(child);
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${label} failed to start:\n${out}`));
      }
    }, 100);
  });
}

/** Stops a child process with SIGTERM (a graceful stop) and waits for it to exit. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((ok) => child.once("exit", ok));
  child.kill("SIGTERM");
  await exited;
}

/**
 * The links the redirect benchmarks visit, as `POST /api/v1/links` forms on the launcher's own domain
 * (id 1): a plain link, a platform-targeting link and a click-limited one (never reached).
 */
export const REDIRECT_BENCH_LINKS: ReadonlyArray<Record<string, string>> = [
  { url: "https://example.com/destination", domain_id: "1", alias: "plain" },
  {
    url: "https://example.com/default",
    domain_id: "1",
    alias: "targeted",
    target_type: "2",
    "platform[0][key]": "Windows",
    "platform[0][value]": "https://example.com/windows",
    "platform[1][key]": "iOS",
    "platform[1][value]": "https://example.com/ios",
  },
  { url: "https://example.com/limited", domain_id: "1", alias: "limited", expiration_clicks: "999999999" },
  // Weighted A/B (CONTRACT §25): each visitor keeps one entry for the day, picked by the visitor hash. A checkout
  // without weights (BENCH_COMPARE against an older one) ignores them and rotates round-robin.
  {
    url: "https://example.com/default",
    domain_id: "1",
    alias: "weighted",
    target_type: "4",
    "rotation[0][value]": "https://example.com/a",
    "rotation[0][weight]": "70",
    "rotation[1][value]": "https://example.com/b",
    "rotation[1][weight]": "30",
  },
  // An Open Graph preview (CONTRACT §25): link-preview bots get a page, people the redirect, with no more work
  // than a plain link. A checkout without previews ignores the fields.
  { url: "https://example.com/previewed", domain_id: "1", alias: "previewed", og_title: "A card", og_description: "For link previews", og_image: "https://example.com/card.png" },
];

/** Clock ticks a second (`getconf CLK_TCK`), the unit of `/proc/<pid>/stat`'s CPU times (Linux; 100 where it cannot be asked). */
export const CLOCK_TICKS = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
}

/** User + system CPU ticks of one process so far (0 when it is gone). */
export function processTicks(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // The command name may hold spaces and parentheses: the fields after its last closing parenthesis are counted from there.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** User + system CPU ticks of each PostgreSQL process on this machine now (backends, WAL writer, checkpointer), by pid. */
export function postgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") ticks.set(Number(entry), processTicks(Number(entry)));
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks;
}

/** The PostgreSQL CPU ticks spent between two readings: a process started meanwhile counts from 0, one that ended is lost. */
export function postgresTicksSince(before: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ticks] of postgresTicks()) sum += ticks - (before.get(pid) ?? 0);
  return sum;
}

/** The machine's CPU times so far (`/proc/stat`'s first line, every core), in ticks: all of them, and the stolen ones. */
export function machineTicks(): { total: number; steal: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] ?? 0 };
}

/**
 * The share of the machine's time since `before` that the hypervisor gave to other guests (steal), in %:
 * on a shared host it rises under load, and a round with much of it measured a slower machine.
 */
export function stealSince(before: { total: number; steal: number }): number {
  const now = machineTicks();
  const total = now.total - before.total;
  return total > 0 ? (100 * (now.steal - before.steal)) / total : 0;
}
