/**
 * `BENCH_COMPARE=/path/to/another/checkout pnpm bench:api`: this checkout's API against another's, side
 * by side in one run. Each side is its own launcher process (`node --import tsx launcher/src/main.ts`
 * in its checkout, ACCESS_LOG=off like the in-process server of the ordinary run) on a fresh database
 * seeded the same way; each case is loaded on one side then the other, BENCH_ROUNDS times (default 6),
 * the order swapped every round, so the machine's drift falls on both alike, and both servers are
 * restarted half-way, the other one first. Prints every round, then each side's median requests/s, p95,
 * server and PostgreSQL CPU per request and the hypervisor's steal, and the median and range of the
 * per-round ratio (this ÷ other). BENCH_CASES defaults to `create` here. `BENCH_COMPARE=$PWD` (an A/A
 * run) shows what the harness itself favours.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { CLOCK_TICKS, machineTicks, postgresTicks, postgresTicksSince, processTicks, startProcess, stealSince, stopProcess } from "../common.ts";
import { CASE_ORDER, CASES, type CaseName, type CaseParams } from "./cases.ts";
import { createBenchDb, dropBenchDb, ownerColumn, seedLinks } from "./db.ts";
import { runLoad, type LoadResult } from "./load.ts";

export type CompareSettings = {
  otherRoot: string;
  adminUrl: string;
  links: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
  only: Set<string> | undefined;
  freePort: () => Promise<number>;
};

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const KEY = `shk_${"C".repeat(40)}`;
const HOST = "127.0.0.1";

type Side = { label: string; root: string; port: number; process?: ChildProcess; db?: { name: string; url: string }; params?: CaseParams };

/** Starts a checkout's launcher and resolves once it says it is running. */
function startLauncher(side: Side): Promise<ChildProcess> {
  const env = { DATABASE_URL: side.db?.url ?? "", HOST, PORT: String(side.port), ADMIN_API_KEY: KEY, RATE_LIMIT_PER_MINUTE: "1000000", ACCESS_LOG: "off" };
  // BENCH_NODE_FLAGS: extra flags for both servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof-api` to see where a create's time goes.
  const flags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(" ").map((f) => f.replace("{side}", side.label)) : [];
  return startProcess([...flags, "--import", "tsx", "launcher/src/main.ts"], env, side.root, `${side.label}: server`);
}

/** The admin and the domain the launcher bootstrapped (the only one). */
async function seedSide(url: string, count: number): Promise<CaseParams> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const owner = sql(await ownerColumn(sql));
    const [row] = await sql<{ owner_id: number; domain_id: number }[]>`select d.${owner} as owner_id, d.id as domain_id from domains d order by d.id limit 1`;
    if (!row) throw new Error("no admin domain: did the bootstrap run?");
    await seedLinks(sql, row.owner_id, row.domain_id, count);
    return { domainId: row.domain_id, linkCount: count, runTag: `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` };
  } finally {
    await sql.end();
  }
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2 : (sorted[Math.floor(mid)] as number);
};

export async function compare(settings: CompareSettings): Promise<number> {
  const { otherRoot } = settings;
  if (!existsSync(join(otherRoot, "launcher/src/main.ts")) || !existsSync(join(otherRoot, "node_modules"))) {
    throw new Error(`BENCH_COMPARE: ${otherRoot} is not an installed checkout (launcher/src/main.ts and node_modules are needed)`);
  }
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`BENCH_ROUNDS must be a positive integer (got "${process.env.BENCH_ROUNDS}")`);
  const cases = CASE_ORDER.filter((n) => (settings.only ? settings.only.has(n) : n === "create"));
  const sides: Side[] = [
    { label: "this", root: ROOT, port: 0 },
    { label: "other", root: otherRoot, port: 0 },
  ];
  let exitCode = 0;
  const rows: string[] = [];
  try {
    for (const side of sides) {
      side.db = await createBenchDb(settings.adminUrl);
      side.port = await settings.freePort();
      side.process = await startLauncher(side);
      side.params = await seedSide(side.db.url, settings.links);
    }
    console.log(
      `${settings.links.toLocaleString("en")} links seeded on each side; ${settings.connections} connections, ${settings.warmupMs / 1000} s warm-up, ${settings.durationMs / 1000} s measured; load average ${loadavg()[0]?.toFixed(2)}\n`,
    );
    const [mine, other] = sides as [Side, Side];
    const startOrder = [...sides];
    for (const name of cases as CaseName[]) {
      const results = new Map<Side, Array<LoadResult & { serverCpuMs: number; postgresCpuMs: number; steal: number }>>([
        [mine, []],
        [other, []],
      ]);
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round++) {
        // Half-way, both servers are restarted, the other one first: an A/A run (this checkout against
        // itself) gave the side started and seeded first 0.90 × the other's creates without it (2026-12-03).
        if (rounds > 1 && round === Math.floor(rounds / 2)) {
          startOrder.reverse();
          console.log(`  restarting both, ${startOrder[0]?.label} first`);
          for (const side of sides) await stopProcess(side.process);
          for (const side of startOrder) side.process = await startLauncher(side);
        }
        // Swapped every round: a machine slowing down (or speeding up) over a round favours neither side.
        const order = round % 2 === 0 ? [other, mine] : [mine, other];
        for (const side of order) {
          const before = { server: processTicks(side.process?.pid), postgres: postgresTicks(), machine: machineTicks() };
          const r = await runLoad({
            caseName: name,
            params: side.params as CaseParams,
            origin: `http://${HOST}:${side.port}`,
            authorization: `Bearer ${KEY}`,
            connections: settings.connections,
            warmupMs: settings.warmupMs,
            durationMs: settings.durationMs,
          });
          // Server and PostgreSQL CPU over warm-up and measurement, per response of both (the worker counts
          // only the measured ones). Only one side is loaded at a time: the PostgreSQL processes' CPU is its.
          const perResponseMs = (ticks: number) => (ticks * 1000) / CLOCK_TICKS / Math.max(1, r.requests * (1 + settings.warmupMs / settings.durationMs));
          const serverCpuMs = perResponseMs(processTicks(side.process?.pid) - before.server);
          const postgresCpuMs = perResponseMs(postgresTicksSince(before.postgres));
          results.get(side)?.push({ ...r, serverCpuMs, postgresCpuMs, steal: stealSince(before.machine) });
          if (r.errors) {
            exitCode = 1;
            console.log(`  ${side.label}: ${r.errors} errors; first: ${r.sample ?? "?"}`);
          }
        }
        const a = results.get(mine)?.[round] as LoadResult & { steal: number };
        const b = results.get(other)?.[round] as LoadResult & { steal: number };
        ratios.push(a.rps / b.rps);
        console.log(
          `${CASES[name].label}, round ${round + 1}: this ${a.rps.toFixed(0)} req/s (p95 ${a.p95.toFixed(1)} ms), other ${b.rps.toFixed(0)} req/s (p95 ${b.p95.toFixed(1)} ms), ratio ${(a.rps / b.rps).toFixed(3)}; load ${loadavg()[0]?.toFixed(2)}, steal ${a.steal.toFixed(0)} / ${b.steal.toFixed(0)} %`,
        );
      }
      const of = (side: Side, pick: (r: LoadResult & { serverCpuMs: number; postgresCpuMs: number; steal: number }) => number) => median((results.get(side) ?? []).map(pick));
      const sorted = [...ratios].sort((x, y) => x - y);
      rows.push(
        `| ${CASES[name].label} | ${of(mine, (r) => r.rps).toFixed(0)} | ${of(other, (r) => r.rps).toFixed(0)} | ${of(mine, (r) => r.p95).toFixed(1)} | ${of(other, (r) => r.p95).toFixed(1)} | ${of(mine, (r) => r.serverCpuMs).toFixed(3)} + ${of(mine, (r) => r.postgresCpuMs).toFixed(3)} | ${of(other, (r) => r.serverCpuMs).toFixed(3)} + ${of(other, (r) => r.postgresCpuMs).toFixed(3)} | ${median(ratios).toFixed(3)} | ${(sorted[0] as number).toFixed(3)}–${(sorted[sorted.length - 1] as number).toFixed(3)} | ${ratios.map((r) => r.toFixed(2)).join(", ")} | ${of(mine, (r) => r.steal).toFixed(0)} / ${of(other, (r) => r.steal).toFixed(0)} |`,
      );
    }
  } finally {
    for (const side of sides) await stopProcess(side.process);
    for (const side of sides) if (side.db) await dropBenchDb(settings.adminUrl, side.db.name);
  }
  console.log(
    `\nAPI comparison: this checkout (${ROOT}) against ${otherRoot}; ${rounds} rounds a case, order swapped each round, ${new Date().toISOString()}, load average ${loadavg()[0]?.toFixed(2)}\n`,
  );
  console.log(
    "| case | this: median req/s | other: median req/s | this: p95 ms | other: p95 ms | this: CPU ms/req, server + PostgreSQL | other: the same | ratio this ÷ other: median | range | every round | steal %, this / other: median |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|");
  for (const row of rows) console.log(row);
  return exitCode;
}
