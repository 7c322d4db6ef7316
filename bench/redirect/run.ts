/**
 * Redirect benchmark (issue #5). In one run, with the same load generator and settings (wrk, 1 thread,
 * 64 connections, DURATION seconds, a browser User-Agent so clicks are recorded), it loads:
 *   - a raw node:http server answering a 302 from a Map (this machine's practical ceiling), right
 *     before each case below, so each ratio compares two loads a few seconds apart, and
 *   - apps/redirect through the real launcher: embedded (PGlite) and Postgres, each with a plain cached
 *     link, a targeting link and a click-limited link; and two redirect processes on one Postgres.
 * The raw server and the plain Postgres link are also loaded with varied visitors (varied-visitors.lua:
 * many browsers, languages and referrers), so clicks differ as they do in real traffic.
 * Prints requests/s, p50 and p99 per case, and the ratio to the raw server under the same load just before.
 *
 *   npx -y pnpm@10.34.9 bench:redirect            (needs wrk: apt-get install -y wrk; PostgreSQL on 127.0.0.1:5432)
 *
 * BENCH_SECONDS sets the measured duration; BENCH_PARTS=postgres (or any of embedded,postgres,two) runs
 * only those parts; BENCH_ROUNDS=3 measures each case three times (each right after the raw server)
 * and keeps the round with the median ratio: this machine's speed drifts by ±15% within a minute.
 * BENCH_CASES=limited (or any of plain,varied,targeting,limited,weighted,targeting-varied,previewed) runs only those link cases of each part.
 *
 * BENCH_COMPARE=/path/to/another/checkout (installed) compares two commits in one run instead: both
 * launchers run side by side on Postgres (a fresh database each), and each case is loaded on one then
 * the other, BENCH_ROUNDS times (default 8), the order swapped every round, so the machine's drift
 * falls on both alike; half-way through each case both are restarted, the other one first, so neither
 * keeps the advantage of being started second. Prints each side's median requests/s and p99, and the
 * median and range of the per-round ratio (this checkout ÷ the other).
 *
 * BENCH_RESTART=round restarts both sides before every round instead (start order swapped each time).
 * Each round also prints the CPU each side spent per answered visit: its server process, and PostgreSQL
 * (every postgres process of the machine: the click writes). BENCH_SHIPPED=1 runs each side as its own
 * `pnpm start` does (built JavaScript and that script's node flags) instead of from source under tsx.
 *
 * BENCH_PIN=1 pins every server to CPU 1 and wrk to CPU 0 (taskset): a process's speed then no longer
 * depends on where the scheduler happened to put it at its start.
 *
 * BENCH_PROFILE=1 runs the Postgres part's server under `node --cpu-prof` and prints, for each case's
 * measured round, where its busy time went per visit: the socket write (the kernel's loopback send),
 * garbage collection, and everything else (the handler, node:http, lookups, click grouping).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { CLOCK_TICKS, machineTicks, postgresTicks, postgresTicksSince, processTicks, REDIRECT_BENCH_LINKS, startProcess, stealSince, stopProcess } from "../common.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
/** Raw-then-case pairs per case; the table shows the pair with the median ratio, and every ratio. */
const COMPARE = process.env.BENCH_COMPARE;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (COMPARE ? 8 : 1));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS must be a positive integer (got "${process.env.BENCH_ROUNDS}")`);
const PG = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const KEY = `shk_${"B".repeat(40)}`;
/** Which parts to run, comma-separated: raw (always), embedded, postgres, two. */
const PARTS = new Set((process.env.BENCH_PARTS ?? "embedded,postgres,two").split(","));
/** The link cases: the path visited, and whether as varied visitors (varied-visitors.lua). The embedded part skips `varied`. */
const LINK_CASES = [
  { key: "plain", name: "plain cached link", path: "/plain", varied: false },
  { key: "varied", name: "plain cached link, varied visitors", path: "/plain", varied: true },
  { key: "targeting", name: "platform-targeting link", path: "/targeted", varied: false },
  { key: "limited", name: "click-limited link", path: "/limited", varied: false },
  { key: "weighted", name: "weighted A/B link, varied visitors", path: "/weighted", varied: true },
  { key: "targeting-varied", name: "platform-targeting link, varied visitors", path: "/targeted", varied: true },
  { key: "previewed", name: "link with an Open Graph preview, varied visitors (people)", path: "/previewed", varied: true },
] as const;
/** Which link cases to load in the embedded and Postgres parts (or the comparison), comma-separated. */
const CASES = new Set((process.env.BENCH_CASES ?? LINK_CASES.map((c) => c.key).join(",")).split(","));
for (const key of CASES) if (!LINK_CASES.some((c) => c.key === key)) throw new Error(`BENCH_CASES: unknown case "${key}" (known: ${LINK_CASES.map((c) => c.key).join(", ")})`);
const chosenCases = (part: "embedded" | "postgres") => LINK_CASES.filter((c) => CASES.has(c.key) && (part === "postgres" || !c.varied));
const PROFILE = process.env.BENCH_PROFILE === "1";
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

/** `requests`: answered in the measured run; `window`: when it ran, in µs of the monotonic clock (a CPU profile's clock). */
type Load = { rps: number; p50: number; p99: number; non3xx: number; socketErrors: number; requests: number; window?: [number, number] };
/** A case and the raw server loaded the same way right before it. */
type Result = Load & { name: string; raw: Load; ratios: number[] };

/** A wrk script that sends each request as one of many different visitors (browsers, languages, referrers). */
const VARIED = join(ROOT, "bench/redirect/varied-visitors.lua");

function ms(value: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

/** Runs wrk and parses requests/s, p50, p99 and the count of non-2xx/3xx answers. */
function wrk(url: string, host: string, connections = 64, varied = false): Promise<Load> {
  return new Promise((resolve, reject) => {
    const script = varied ? ["-s", VARIED] : [];
    const child = spawn(...wrkCommand(["-t1", `-c${connections}`, `-d${DURATION}s`, "--latency", ...script, "-H", `Host: ${host}`, "-H", `User-Agent: ${UA}`, url]));
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", () => {
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const p50 = ms(/\s50%\s+(\S+)/.exec(out)?.[1] ?? "");
      const p99 = ms(/\s99%\s+(\S+)/.exec(out)?.[1] ?? "");
      const non3xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const socketErrors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
      if (!Number.isFinite(rps)) reject(new Error(`wrk output not understood:\n${out}`));
      else resolve({ rps, p50, p99, non3xx, socketErrors, requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0) });
    });
  });
}

/** A port nothing listens on now (the kernel's pick), so two runs or a leftover server do not collide. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * BENCH_PIN=1 pins each server to CPU 1 and wrk to CPU 0 (taskset), so where the scheduler puts a process
 * (beside wrk, or beside PostgreSQL) is the same for every process instead of a draw made at its start.
 */
const PIN = process.env.BENCH_PIN === "1";
/**
 * BENCH_RESTART=round restarts both sides before every round of a comparison (the start order swapped
 * each time), not only half-way: each process keeps a speed drawn at its start, so this makes a case's
 * median one of ROUNDS draws instead of two.
 */
const RESTART_EACH_ROUND = process.env.BENCH_RESTART === "round";
const wrkCommand = (args: string[]): [string, string[]] => (PIN ? ["taskset", ["-c", "0", "wrk", ...args]] : ["wrk", args]);
const start = (args: string[], env: Record<string, string>, cwd = ROOT): Promise<ChildProcess> => startProcess(args, env, cwd, "server", PIN ? 1 : undefined);
const stop = (child: ChildProcess): Promise<void> => stopProcess(child);

async function api(port: number, path: string, form: Record<string, string>): Promise<{ alias: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  const body = (await res.json()) as { data: { alias: string } };
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(body)}`);
  return body.data;
}

/** Creates the three links the cases visit, on the launcher's own domain (id 1). */
async function createLinks(port: number) {
  for (const form of REDIRECT_BENCH_LINKS) await api(port, "/links", form);
}

async function main(): Promise<void> {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error("wrk is not installed: apt-get install -y wrk");
  }
  if (COMPARE) return compare(COMPARE);
  const results: Result[] = [];
  const profiles: string[] = [];
  const port = await freePort();
  const host = `localhost:${port}`;
  // The ceiling: a raw server that stays up the whole run, loaded the same way right before each case,
  // so a machine whose speed drifts (a shared VM) moves both figures of a ratio together.
  const rawPort = await freePort();
  const raw = await start([join(ROOT, "bench/redirect/raw-server.mjs"), String(rawPort)], {});
  process.once("exit", () => raw.kill());
  const rawLoad = async (varied: boolean, connections = 64): Promise<Load> => {
    await wrkWarmup(`http://127.0.0.1:${rawPort}/plain`, host);
    return wrk(`http://127.0.0.1:${rawPort}/plain`, host, connections, varied);
  };
  const report = (r: Result) => {
    const errors = `${r.non3xx ? `, ${r.non3xx} non-3xx!` : ""}${r.socketErrors ? `, ${r.socketErrors} socket errors!` : ""}`;
    console.log(`${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (raw just before: ${r.raw.rps.toFixed(0)} req/s)${errors}`);
  };
  /** ROUNDS pairs of (raw server, case) loads; keeps the pair with the median ratio. */
  const measure = async (name: string, varied: boolean, load: () => Promise<Load>) => {
    const pairs: Array<Load & { raw: Load }> = [];
    for (let round = 0; round < ROUNDS; round++) pairs.push({ raw: await rawLoad(varied), ...(await load()) });
    const ratio = (p: Load & { raw: Load }) => p.rps / p.raw.rps;
    pairs.sort((a, b) => ratio(a) - ratio(b));
    const median = pairs[Math.floor(pairs.length / 2)] as Load & { raw: Load };
    results.push({ name, ...median, ratios: pairs.map(ratio) });
    report(results[results.length - 1] as Result);
  };
  const run = (name: string, path: string, varied = false) =>
    measure(name, varied, async () => {
      // A short warm-up fills the caches and the JIT; then the measured run.
      await wrkWarmup(`http://127.0.0.1:${port}${path}`, host);
      const from = monotonicUs();
      const load = await wrk(`http://127.0.0.1:${port}${path}`, host, 64, varied);
      return { ...load, window: [from, monotonicUs()] };
    });

  // 2. Embedded: one process, PGlite.
  if (PARTS.has("embedded")) {
    const dataDir = mkdtempSync(join(tmpdir(), "shortener-bench-"));
    const embedded = await start(["--import", "tsx", "launcher/src/main.ts"], { PORT: String(port), DATA_DIR: dataDir, ADMIN_API_KEY: KEY, RATE_LIMIT_PER_MINUTE: "1000000" });
    await createLinks(port);
    // A fresh process: let the JIT and the heap settle before the first measured case.
    await wrkWarmup(`http://127.0.0.1:${port}/plain`, host, 5);
    for (const c of chosenCases("embedded")) await run(`embedded: ${c.name}`, c.path, c.varied);
    await stop(embedded);
    rmSync(dataDir, { recursive: true, force: true });
  }

  // 3. Postgres: a fresh database; the API and one redirect process, then a second redirect process.
  const admin = postgres(PG, { max: 1, onnotice: () => {} });
  const database = await freshDatabase(admin, "run");
  const url = database.url;
  try {
    const profileDir = PROFILE ? mkdtempSync(join(tmpdir(), "shortener-profile-")) : undefined;
    const first = await start([...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []), "--import", "tsx", "launcher/src/main.ts"], {
      PORT: String(port),
      DATABASE_URL: url,
      ADMIN_API_KEY: KEY,
      RATE_LIMIT_PER_MINUTE: "1000000",
    });
    await createLinks(port);
    await wrkWarmup(`http://127.0.0.1:${port}/plain`, host, 5);
    if (PARTS.has("postgres")) {
      for (const c of chosenCases("postgres")) await run(`postgres: ${c.name}`, c.path, c.varied);
      // How far identical clicks were added up: clicks recorded against rows written, per link.
      const db = postgres(url, { max: 1, onnotice: () => {} });
      const grouped = await db<Array<{ alias: string; clicks: string; rows: string }>>`
        select l.alias, coalesce(sum(c.count), 0)::text as clicks, count(c.link_id)::text as rows
        from links l left join clicks c on c.link_id = l.id group by l.alias order by l.alias`;
      await db.end();
      for (const g of grouped) console.log(`  ${g.alias}: ${Number(g.clicks).toLocaleString("en")} clicks recorded in ${Number(g.rows).toLocaleString("en")} rows`);
    }
    if (PARTS.has("two")) {
      const secondPort = await freePort();
      const second = await start(["--import", "tsx", "launcher/src/main.ts"], { PORT: String(secondPort), DATABASE_URL: url, SERVICES: "redirect" });
      await measure("postgres: two redirect processes (sum)", false, async () => {
        await wrkWarmup(`http://127.0.0.1:${secondPort}/plain`, host);
        const [a, b] = await Promise.all([wrk(`http://127.0.0.1:${port}/plain`, host, 32), wrk(`http://127.0.0.1:${secondPort}/plain`, host, 32)]);
        console.log(`first process: ${JSON.stringify(a)}\nsecond process: ${JSON.stringify(b)}`);
        return {
          rps: a.rps + b.rps,
          p50: Math.max(a.p50, b.p50),
          p99: Math.max(a.p99, b.p99),
          non3xx: a.non3xx + b.non3xx,
          socketErrors: a.socketErrors + b.socketErrors,
          requests: a.requests + b.requests,
        };
      });
      await stop(second);
    }
    await stop(first);
    if (profileDir) {
      profiles.push(...profileBreakdowns(profileDir, results));
      rmSync(profileDir, { recursive: true, force: true });
    }
  } finally {
    await database.drop();
    await admin.end();
    await stop(raw);
  }

  // Each case against the raw server loaded the same way (one repeated visitor, or varied ones) just before.
  console.log(`\nRedirect benchmark: wrk -t1 -c64 -d${DURATION}s --latency, browser User-Agent (clicks recorded), ${new Date().toISOString()}\n`);
  console.log(ROUNDS > 1 ? `${ROUNDS} rounds a case: the round with the median ratio, and every round's ratio.\n` : "");
  console.log("| case | requests/s | p50 ms | p99 ms | raw just before: requests/s, p99 ms | × raw |" + (ROUNDS > 1 ? " rounds |" : ""));
  console.log("|---|---:|---:|---:|---:|---:|" + (ROUNDS > 1 ? "---|" : ""));
  for (const r of results) {
    const errors = r.non3xx + r.socketErrors;
    const rawCell = `${r.raw.rps.toFixed(0)}, ${r.raw.p99.toFixed(2)}`;
    const rounds = ROUNDS > 1 ? ` ${r.ratios.map((x) => x.toFixed(2)).join(", ")} |` : "";
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${rawCell} | ${(r.rps / r.raw.rps).toFixed(2)} |${rounds}${errors ? ` ${r.non3xx} non-3xx, ${r.socketErrors} socket errors` : ""}`,
    );
  }
  if (profiles.length) {
    console.log("\nCPU profile of the Postgres part's server (BENCH_PROFILE=1), per visit in each case's measured round:\n");
    console.log("| case | busy µs | socket write µs | GC µs | everything else µs | everything else, share of busy |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const row of profiles) console.log(row);
  }
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

type CpuProfile = {
  nodes: Array<{ id: number; callFrame: { functionName: string } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
/** What the kernel's send is sampled as: node's stream writes, which write to the socket synchronously. */
const SOCKET_WRITES = new Set(["writeLatin1String", "writeUtf8String", "writeBuffer", "writev", "writeUcs2String"]);

/**
 * One table row per case measured in this process: the samples of the main thread's profile that fall
 * in the case's measured round, split into idle, GC, socket writes and the rest, per visit.
 */
function profileBreakdowns(dir: string, results: Result[]): string[] {
  // The main thread's profile is the largest (the launcher's worker threads write their own).
  const file = readdirSync(dir)
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!file) return [];
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const rows: string[] = [];
  for (const r of results) {
    if (!r.window || !r.name.startsWith("postgres:")) continue;
    const [from, to] = r.window;
    let t = profile.startTime;
    let total = 0;
    let idle = 0;
    let gc = 0;
    let write = 0;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i] ?? 0;
      if (t < from || t > to) return;
      const dt = profile.timeDeltas[i + 1] ?? 0;
      const name = names.get(id) ?? "";
      total += dt;
      if (name === "(idle)") idle += dt;
      else if (name === "(garbage collector)") gc += dt;
      else if (SOCKET_WRITES.has(name)) write += dt;
    });
    const busy = total - idle;
    if (!r.requests || busy <= 0) continue;
    const per = (us: number) => (us / r.requests).toFixed(2);
    const rest = busy - write - gc;
    rows.push(`| ${r.name} | ${per(busy)} | ${per(write)} | ${per(gc)} | ${per(rest)} | ${((100 * rest) / busy).toFixed(1)} % |`);
  }
  return rows;
}

/** A fresh database on the benchmark's server; `drop()` removes it. */
async function freshDatabase(admin: postgres.Sql, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `shortener_bench_${label}_${Date.now()}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(PG);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => void (await admin.unsafe(`drop database if exists ${name} with (force)`)) };
}

/** BENCH_COMPARE: this checkout against another, each case loaded on both in alternating order. */
async function compare(otherRoot: string): Promise<void> {
  if (!existsSync(join(otherRoot, "launcher/src/main.ts")) || !existsSync(join(otherRoot, "node_modules"))) {
    throw new Error(`BENCH_COMPARE: ${otherRoot} is not an installed checkout (launcher/src/main.ts and node_modules are needed)`);
  }
  if (SHIPPED) for (const root of [ROOT, otherRoot]) buildAsShipped(root);
  const admin = postgres(PG, { max: 1, onnotice: () => {} });
  const sides = [
    { label: "this", root: ROOT },
    { label: "other", root: otherRoot },
  ].map((side) => ({ ...side, port: 0, host: "", process: undefined as ChildProcess | undefined, database: undefined as Awaited<ReturnType<typeof freshDatabase>> | undefined }));
  const rows: string[] = [];
  /**
   * (Re)starts both launchers, in `order`, each on a fresh database. Which process starts first is
   * swapped half-way through each case's rounds: A/A runs favoured the second-started process by 7–8 %
   * (README), and a process keeps its start's luck (its young generation, for one) for its whole life.
   */
  const startSides = async (order: typeof sides) => {
    for (const side of sides) {
      if (side.process) await stop(side.process);
      await side.database?.drop();
      side.process = undefined;
      side.database = undefined;
    }
    for (const side of order) {
      side.database = await freshDatabase(admin, side.label);
      side.port = await freePort();
      side.host = `localhost:${side.port}`;
      const how = SHIPPED ? shippedStart(side.root) : { args: ["--import", "tsx", "launcher/src/main.ts"], env: {} };
      side.process = await start(how.args, { ...how.env, PORT: String(side.port), DATABASE_URL: side.database.url, ADMIN_API_KEY: KEY, RATE_LIMIT_PER_MINUTE: "1000000" }, side.root);
      await createLinks(side.port);
      await wrkWarmup(`http://127.0.0.1:${side.port}/plain`, side.host, 5);
    }
  };
  try {
    let startOrder = [...sides];
    await startSides(startOrder);
    const [mine, other] = sides as [(typeof sides)[number], (typeof sides)[number]];
    /** CPU per answered visit in the measured run: the side's server process, and every PostgreSQL process (its click writes). */
    const cpu = new Map<Load, { server: number; postgres: number; steal: number }>();
    const load = async (side: typeof mine, path: string, varied: boolean) => {
      await wrkWarmup(`http://127.0.0.1:${side.port}${path}`, side.host);
      const before = { server: processTicks(side.process?.pid), postgres: postgresTicks(), machine: machineTicks() };
      const result = await wrk(`http://127.0.0.1:${side.port}${path}`, side.host, 64, varied);
      const perVisit = (ticks: number) => (ticks * 1e6) / CLOCK_TICKS / Math.max(1, result.requests);
      cpu.set(result, { server: perVisit(processTicks(side.process?.pid) - before.server), postgres: perVisit(postgresTicksSince(before.postgres)), steal: stealSince(before.machine) });
      return result;
    };
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length / 2;
      return Number.isInteger(mid) ? ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2 : (sorted[Math.floor(mid)] as number);
    };
    for (const { name, path, varied } of chosenCases("postgres")) {
      const mineRps: number[] = [];
      const otherRps: number[] = [];
      const mineP99: number[] = [];
      const otherP99: number[] = [];
      const ratios: number[] = [];
      const mineCpu: Array<{ server: number; postgres: number; steal: number }> = [];
      const otherCpu: Array<{ server: number; postgres: number; steal: number }> = [];
      for (let round = 0; round < ROUNDS; round++) {
        if (ROUNDS > 1 && (RESTART_EACH_ROUND ? round > 0 : round === Math.floor(ROUNDS / 2))) {
          startOrder = [...startOrder].reverse();
          console.log(`  restarting both, ${startOrder[0]?.label} first`);
          await startSides(startOrder);
        }
        // Swapped every round: a machine slowing down (or speeding up) over a round favours neither side.
        const order = round % 2 === 0 ? [other, mine] : [mine, other];
        const loads = new Map<typeof mine, Load>();
        for (const side of order) loads.set(side, await load(side, path, varied));
        const a = loads.get(mine) as Load;
        const b = loads.get(other) as Load;
        if (a.non3xx + a.socketErrors + b.non3xx + b.socketErrors > 0) console.log(`  round ${round + 1}: errors! this ${JSON.stringify(a)} other ${JSON.stringify(b)}`);
        mineRps.push(a.rps);
        otherRps.push(b.rps);
        mineP99.push(a.p99);
        otherP99.push(b.p99);
        ratios.push(a.rps / b.rps);
        const ca = cpu.get(a) as { server: number; postgres: number; steal: number };
        const cb = cpu.get(b) as { server: number; postgres: number; steal: number };
        mineCpu.push(ca);
        otherCpu.push(cb);
        console.log(
          `${name}, round ${round + 1}: this ${a.rps.toFixed(0)} req/s (p99 ${a.p99} ms, CPU ${ca.server.toFixed(2)} + PostgreSQL ${ca.postgres.toFixed(2)} µs/visit), other ${b.rps.toFixed(0)} req/s (p99 ${b.p99} ms, CPU ${cb.server.toFixed(2)} + PostgreSQL ${cb.postgres.toFixed(2)} µs/visit), ratio ${(a.rps / b.rps).toFixed(3)}; load ${loadavg()[0]?.toFixed(2)}, steal ${ca.steal.toFixed(0)} / ${cb.steal.toFixed(0)} %`,
        );
      }
      const sorted = [...ratios].sort((x, y) => x - y);
      rows.push(
        `| ${name} | ${median(mineRps).toFixed(0)} | ${median(otherRps).toFixed(0)} | ${median(mineP99).toFixed(2)} | ${median(otherP99).toFixed(2)} | ${median(mineCpu.map((c) => c.server)).toFixed(2)} + ${median(mineCpu.map((c) => c.postgres)).toFixed(2)} | ${median(otherCpu.map((c) => c.server)).toFixed(2)} + ${median(otherCpu.map((c) => c.postgres)).toFixed(2)} | ${median(ratios).toFixed(3)} | ${(sorted[0] as number).toFixed(3)}–${(sorted[sorted.length - 1] as number).toFixed(3)} | ${ratios.map((r) => r.toFixed(2)).join(", ")} | ${median(mineCpu.map((c) => c.steal)).toFixed(0)} / ${median(otherCpu.map((c) => c.steal)).toFixed(0)} |`,
      );
    }
  } finally {
    for (const side of sides) if (side.process) await stop(side.process);
    for (const side of sides) await side.database?.drop();
    await admin.end();
  }
  console.log(
    `\nRedirect comparison: this checkout (${ROOT}) against ${otherRoot}; wrk -t1 -c64 -d${DURATION}s, ${ROUNDS} rounds a case, order swapped each round, both restarted half-way (start order swapped), ${new Date().toISOString()}\n`,
  );
  console.log(
    "| case | this: median req/s | other: median req/s | this: median p99 ms | other: median p99 ms | this: CPU µs/visit, server + PostgreSQL | other: the same | ratio this ÷ other: median | range | every round | steal %, this / other: median |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|");
  for (const row of rows) console.log(row);
}

/**
 * BENCH_SHIPPED=1 (with BENCH_COMPARE): each side runs the way its own `pnpm start` runs it — the built
 * JavaScript with the node flags and environment its start script gives, or TypeScript under tsx where
 * that is what its start script does (`8f4a188`) — instead of both from source under tsx.
 */
const SHIPPED = process.env.BENCH_SHIPPED === "1";

/** A checkout's start script, split into its build step (what comes before the last `&&`) and its start command. */
function startScript(root: string): { build: string | undefined; command: string } {
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } }).scripts.start;
  const parts = script.split("&&").map((part) => part.trim());
  const command = parts.pop() as string;
  return { build: parts.length ? parts.join(" && ") : undefined, command };
}

/** Runs a checkout's build step as its start script would (turbo from its own node_modules). */
function buildAsShipped(root: string): void {
  const { build } = startScript(root);
  if (!build) return;
  console.log(`building ${root} as its start script does: ${build}`);
  execFileSync("sh", ["-c", build], { cwd: root, stdio: "inherit", env: { ...process.env, NODE_OPTIONS: "", PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}` } });
}

/** node's arguments and the environment for a checkout's start command (`[VAR=value …] node [flags] file`, or `tsx file`). */
function shippedStart(root: string): { args: string[]; env: Record<string, string> } {
  const words = startScript(root).command.split(/\s+/);
  const env: Record<string, string> = { NODE_OPTIONS: "" };
  while (words[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const word = words.shift() as string;
    env[word.slice(0, word.indexOf("="))] = word.slice(word.indexOf("=") + 1);
  }
  const program = words.shift();
  if (program === "tsx") return { args: ["--import", "tsx", ...words], env: {} };
  if (program === "node") return { args: words, env };
  throw new Error(`BENCH_SHIPPED: ${root}'s start command is neither node nor tsx: ${startScript(root).command}`);
}

function wrkWarmup(url: string, host: string, seconds = 2): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(...wrkCommand(["-t1", "-c16", `-d${seconds}s`, "-H", `Host: ${host}`, "-H", `User-Agent: ${UA}`, url]), { stdio: "ignore" });
    child.on("exit", () => resolve());
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
