/**
 * HTTP benchmark of the links REST API on a real PostgreSQL: `pnpm bench:api`.
 *
 * Creates a throw-away database, starts the real server in this process, seeds a million links for
 * the admin, then runs each case of cases.ts (warm-up, then a measured window) from a worker thread
 * and prints a markdown table with the goals. Knobs, all optional: BENCH_DATABASE_URL (the server to
 * create the database on), BENCH_LINKS, BENCH_CONNECTIONS, BENCH_WARMUP_S, BENCH_DURATION_S, BENCH_CASES
 * (a comma list of case names), and BENCH_KEEP_DB=1 to keep the database for EXPLAIN ANALYZE afterwards.
 *
 * BENCH_COMPARE=/path/to/another/checkout (installed) compares two commits side by side instead: each
 * runs as its own launcher process on its own seeded database, and each case (default: create) is
 * loaded on one then the other, BENCH_ROUNDS times (default 6), the order swapped every round
 * (compare.ts).
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import pino from "pino";
import postgres from "postgres";
import { localDomainName, parseEnv, startServer } from "@shortener/launcher";
import { CASE_ORDER, CASES, type CaseName, type CaseParams, type Goal } from "./cases.ts";
import { compare } from "./compare.ts";
import { createBenchDb, dropBenchDb, findAdminAndDomain, seedLinks } from "./db.ts";
import { CLIENT_DESCRIPTION, runLoad, type LoadResult } from "./load.ts";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const LINKS = intSetting("BENCH_LINKS", 1_000_000);
const CONNECTIONS = intSetting("BENCH_CONNECTIONS", 8);
const WARMUP_MS = intSetting("BENCH_WARMUP_S", 2) * 1000;
const DURATION_MS = intSetting("BENCH_DURATION_S", 10) * 1000;
const KEEP_DB = process.env.BENCH_KEEP_DB === "1";
const ONLY = process.env.BENCH_CASES ? new Set(process.env.BENCH_CASES.split(",")) : undefined;
const HOST = "127.0.0.1";
for (const name of ONLY ?? []) if (!(name in CASES)) throw new Error(`BENCH_CASES: unknown case "${name}" (known: ${CASE_ORDER.join(", ")})`);

function intSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return Number(raw);
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((ok) => probe.listen(0, HOST, ok));
  const address = probe.address();
  await new Promise<void>((ok) => probe.close(() => ok()));
  if (!address || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

function goalVerdict(goal: Goal | undefined, r: LoadResult): string {
  if (!goal) return "-";
  const pass = goal.metric === "p95" ? r.p95 < goal.limit : r.rps >= goal.limit;
  const rule = goal.metric === "p95" ? `p95 < ${goal.limit} ms` : `≥ ${goal.limit} req/s`;
  return `${pass ? "PASS" : "FAIL"} (${rule})`;
}

const ms = (value: number): string => value.toFixed(2);
/** The 1-minute load average: other work on the machine shows up here (and in the numbers). */
const load = (): string => loadavg()[0]?.toFixed(2) ?? "?";

/** Seeds the links through a connection of its own; returns what the request builders need. */
async function seed(url: string, domainName: string): Promise<CaseParams> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const { ownerId, domainId } = await findAdminAndDomain(sql, domainName);
    const start = performance.now();
    await seedLinks(sql, ownerId, domainId, LINKS);
    const seconds = (performance.now() - start) / 1000;
    const [ids] = await sql<{ n: number; max: number }[]>`select count(*)::int as n, coalesce(max(id), 0)::int as max from links`;
    if (ids?.n !== LINKS || ids.max !== LINKS) throw new Error(`seeded links are not ids 1..${LINKS}: ${JSON.stringify(ids)}`);
    const [version] = await sql<{ v: string }[]>`select current_setting('server_version') as v`;
    console.log(`seeded ${LINKS.toLocaleString("en")} links in ${seconds.toFixed(1)} s (insert, index rebuild, vacuum analyze)`);
    console.log(`PostgreSQL ${version?.v ?? "?"}; node ${process.version}; ${cpus().length} CPUs, load average ${load()}`);
    return { domainId, linkCount: LINKS, runTag: randomBytes(4).toString("hex") };
  } finally {
    await sql.end();
  }
}

function printTable(results: Map<CaseName, LoadResult>): void {
  console.log("\n| case | req/s | p50 ms | p95 ms | p99 ms | errors | goal | cpu ms/req |");
  console.log("|---|---:|---:|---:|---:|---:|---|---:|");
  for (const [name, r] of results) {
    const def = CASES[name];
    console.log(`| ${def.label} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${r.errors} | ${goalVerdict(def.goal, r)} | ${ms(r.cpuMsPerRequest)} |`);
  }
}

/** Runs the benchmark; resolves to the exit code (1 when any response was not 2xx). */
async function main(): Promise<number> {
  const bench = await createBenchDb(ADMIN_URL);
  const apiKey = `shk_${randomBytes(20).toString("hex")}`;
  console.log(`database: ${bench.name}`);
  let exitCode = 0;
  try {
    const port = await freePort();
    const env = parseEnv({ DATABASE_URL: bench.url, HOST, PORT: String(port), ADMIN_API_KEY: apiKey, RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "silent", HEALTH_CHECKS: "off" });
    const running = await startServer(env, pino({ level: "silent" }));
    try {
      const params = await seed(bench.url, localDomainName(HOST, port));
      console.log(`server: in this process at http://${HOST}:${port}, database pool ${env.DATABASE_POOL_SIZE}`);
      console.log(`client: ${CLIENT_DESCRIPTION}`);
      console.log(`each case: ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up, then ${DURATION_MS / 1000} s measured\n`);

      const results = new Map<CaseName, LoadResult>();
      for (const name of CASE_ORDER.filter((n) => !ONLY || ONLY.has(n))) {
        const r = await runLoad({
          caseName: name,
          params,
          origin: `http://${HOST}:${port}`,
          authorization: `Bearer ${apiKey}`,
          connections: CONNECTIONS,
          warmupMs: WARMUP_MS,
          durationMs: DURATION_MS,
        });
        results.set(name, r);
        console.log(`  ${CASES[name].label}: ${r.requests} responses, ${r.rps.toFixed(0)} req/s, p95 ${ms(r.p95)} ms, ${r.errors} errors`);
        if (r.sample) console.log(`    first error: ${r.sample}`);
        if (r.errors) exitCode = 1;
      }
      printTable(results);
      console.log("cpu ms/req: CPU time of this process (server and client threads) per response; Postgres CPU is not included.");
      console.log(`\nprocess RSS: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB; load average ${load()}`);
    } finally {
      await running.close();
    }
  } finally {
    if (KEEP_DB) {
      console.log(`kept ${bench.name}: psql -h 127.0.0.1 -U postgres -d ${bench.name} (admin key ${apiKey})`);
    } else {
      await dropBenchDb(ADMIN_URL, bench.name);
      console.log(`dropped ${bench.name}`);
    }
  }
  return exitCode;
}

process.exitCode = process.env.BENCH_COMPARE
  ? await compare({
      otherRoot: process.env.BENCH_COMPARE,
      adminUrl: ADMIN_URL,
      links: LINKS,
      connections: CONNECTIONS,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      only: ONLY,
      freePort,
    })
  : await main();
