/**
 * API reads with and without a read replica, side by side in one run: `pnpm bench:replicas`
 * (CONTRACT §26, docs/scaling.md).
 *
 * Starts a primary and a streaming replica (two throwaway PostgreSQL clusters from Debian's packages,
 * `startReplicatedPostgres`), seeds links for the admin, then runs the same read load (bench:api's `list`
 * and `show` cases, from a worker thread) against two services: one with DATABASE_URL only, one with
 * DATABASE_READ_URL naming the replica too. For each window it reads the CPU time of every process of
 * each cluster (the postmaster and its children: backends, WAL sender and receiver, background work) from
 * /proc, and reports the primary's CPU per API read. Goal: with the replica, at least 80 % less.
 * The two services run side by side and are loaded in turn, the order swapped every round, so that other
 * load on the machine falls on both alike.
 * Knobs: BENCH_LINKS (10000), BENCH_CONNECTIONS (8), BENCH_WARMUP_S (2), BENCH_DURATION_S (10), BENCH_ROUNDS (3).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import postgres from "postgres";
import { startReplicatedPostgres, type ReplicatedPostgres } from "@shortener/db/testing";
import { findAdminAndDomain, seedLinks } from "../api/db.ts";
import { runLoad, type LoadResult } from "../api/load.ts";
import type { CaseName } from "../api/cases.ts";
import { log, startService, type Service } from "../common.ts";

const LINKS = intSetting("BENCH_LINKS", 10_000);
const CONNECTIONS = intSetting("BENCH_CONNECTIONS", 8);
const WARMUP_MS = intSetting("BENCH_WARMUP_S", 2) * 1000;
const DURATION_MS = intSetting("BENCH_DURATION_S", 10) * 1000;
const ADMIN_KEY = `shk_${"B".repeat(40)}`;
const DB = "bench";
const CASES: CaseName[] = ["list", "show"];
const ROUNDS = intSetting("BENCH_ROUNDS", 3);
/** What the service waits after its start before reading from a replica (replicas.ts: READ_MAX_LAG_MS + 3 s), and then some. */
const SETTLE_MS = 1_000 + 3_000 + 1_000;

function intSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return Number(raw);
}

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) of process `pid` and, with `withChildren`, of every process whose parent it is. */
function cpuSeconds(pid: number, withChildren: boolean): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces) in parentheses: state ppid … utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    if (Number(entry) === pid || (withChildren && ppid === pid)) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

type Window = { caseName: CaseName; result: LoadResult; primaryCpu: number; replicaCpu: number; apiCpu: number };

async function measure(pg: ReplicatedPostgres, service: Service, caseName: CaseName): Promise<Window> {
  // The warm-up runs inside runLoad; CPU is read around the whole call and scaled to the measured window's share.
  const before = { primary: cpuSeconds(pg.pid("primary"), true), replica: cpuSeconds(pg.pid("replica"), true), api: cpuSeconds(service.pid, false) };
  const result = await runLoad({
    caseName,
    params: { domainId: 0, linkCount: LINKS, runTag: "replicas" },
    origin: service.base,
    authorization: `Bearer ${ADMIN_KEY}`,
    connections: CONNECTIONS,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
  });
  const share = DURATION_MS / (WARMUP_MS + DURATION_MS);
  return {
    caseName,
    result,
    primaryCpu: (cpuSeconds(pg.pid("primary"), true) - before.primary) * share,
    replicaCpu: (cpuSeconds(pg.pid("replica"), true) - before.replica) * share,
    apiCpu: (cpuSeconds(service.pid, false) - before.api) * share,
  };
}

async function main(): Promise<void> {
  log("starting a primary, a streaming replica (initdb, pg_basebackup -R)");
  const pg = await startReplicatedPostgres({ withBouncer: false });
  try {
    await pg.createDatabase(DB);
    const primaryUrl = pg.url("primary", DB);
    const settings = { DATABASE_URL: primaryUrl, SERVICES: "api", ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "1000000", ACCESS_LOG: "off" };
    // The first start migrates and makes the admin and its domain; then the links, on the primary.
    const service = await startService(settings);
    const sql = postgres(primaryUrl, { max: 1, onnotice: () => {} });
    try {
      const domainName = new URL(service.base).host.replace("127.0.0.1", "localhost");
      const { ownerId, domainId } = await findAdminAndDomain(sql, domainName);
      await seedLinks(sql, ownerId, domainId, LINKS);
    } finally {
      await sql.end();
    }
    await pg.query("replica", DB, "select 1");
    const version = (await pg.query<{ server_version: string }>("primary", DB, "show server_version"))[0]?.server_version ?? "?";
    log(`seeded ${LINKS} links; PostgreSQL ${version}; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(2) ?? "?"}`);

    // Both services run side by side, one without and one with the replica, and are loaded in turn, the
    // order swapped every round: the machine's other load falls on both alike.
    const alone = service;
    const replicated = await startService({ ...settings, DATABASE_READ_URL: pg.url("replica", DB), READ_MAX_LAG_MS: "1000" });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const modes = [
      { mode: "primary only", service: alone },
      { mode: "with a replica", service: replicated },
    ] as const;
    // A pass that is not counted: each server's caches (and the replica's hint bits) warm on every case.
    for (const caseName of CASES) {
      for (const { service: target } of modes) {
        await runLoad({
          caseName,
          params: { domainId: 0, linkCount: LINKS, runTag: "replicas" },
          origin: target.base,
          authorization: `Bearer ${ADMIN_KEY}`,
          connections: CONNECTIONS,
          warmupMs: 1_000,
          durationMs: 4_000,
        });
      }
    }
    const rows: Array<{ mode: string; round: number } & Window> = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const caseName of CASES) {
        for (const { mode, service: target } of round % 2 ? [...modes].reverse() : modes) {
          log(`round ${round + 1}, ${mode}: ${caseName}, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s (load average ${loadavg()[0]?.toFixed(2) ?? "?"})`);
          const window = await measure(pg, target, caseName);
          if (window.result.errors) throw new Error(`${window.result.errors} errors: ${window.result.sample ?? ""}`);
          rows.push({ mode, round, ...window });
        }
      }
    }
    await alone.stop();
    await replicated.stop();

    const us = (seconds: number, reads: number) => ((seconds / reads) * 1e6).toFixed(0);
    console.log(`\n| case | mode | round | reads/s | p95 ms | primary CPU µs/read | replica CPU µs/read | API process CPU µs/read |`);
    console.log(`|---|---|---|---|---|---|---|---|`);
    for (const r of rows) {
      const n = r.result.requests;
      console.log(`| ${r.caseName} | ${r.mode} | ${r.round + 1} | ${r.result.rps.toFixed(0)} | ${r.result.p95.toFixed(2)} | ${us(r.primaryCpu, n)} | ${us(r.replicaCpu, n)} | ${us(r.apiCpu, n)} |`);
    }
    console.log("");
    // Over all rounds: CPU seconds and reads summed per case and mode.
    const total = (caseName: CaseName, mode: string) => {
      const of = rows.filter((r) => r.caseName === caseName && r.mode === mode);
      return { reads: of.reduce((n, r) => n + r.result.requests, 0), primary: of.reduce((n, r) => n + r.primaryCpu, 0), seconds: of.length * (DURATION_MS / 1000) };
    };
    for (const caseName of CASES) {
      const [before, after] = [total(caseName, "primary only"), total(caseName, "with a replica")];
      const fall = 1 - after.primary / after.reads / (before.primary / before.reads);
      console.log(
        `${caseName}: ${(before.reads / before.seconds).toFixed(0)} → ${(after.reads / after.seconds).toFixed(0)} reads/s; the primary's CPU per read ${us(before.primary, before.reads)} → ${us(after.primary, after.reads)} µs, ` +
          `down ${(fall * 100).toFixed(1)} % — ${fall >= 0.8 ? "PASS" : "FAIL"} (goal ≥ 80 %)`,
      );
    }
  } finally {
    await pg.stop();
  }
}

await main();
