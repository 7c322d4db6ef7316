/**
 * Destination health benchmark (issue #32, CONTRACT §25): what the worker's health checks cost in CPU.
 * Seeds BENCH_LINKS links (default 3,000) pointing at a fast local HTTP server (a child process, so its
 * CPU is not counted here) spread over 16 loopback addresses, then runs the real checker over them in
 * the batches it uses for 100,000 links a day (15 a batch: `batchSizeFor`), and reports this process's
 * CPU (`process.cpuUsage`, user + system) per check and the share of a core that 100,000 checks a day
 * imply. The baseline, in the same run and over the same links: the same number of plain `HEAD`
 * requests with node's http client, 16 at a time, without the queue, the database, the SSRF guard or the
 * limiter. Passes alternate baseline and checker (BENCH_PASSES, default 2).
 *
 *   pnpm bench:health            # BENCH_LINKS, BENCH_PASSES, BENCH_DB=postgres|pglite, BENCH_ADMIN_URL
 *
 * With PostgreSQL the database's own CPU is not in the figure (another process); with PGlite (the
 * embedded default) it is, since the database runs inside the worker's process.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { sql } from "drizzle-orm";
import { createTestUser, insertTestDomain } from "@shortener/core/testing";
import { migrate, openDb, queryRows, type Database } from "@shortener/db";
import { batchSizeFor, createHealthChecker, DEFAULT_HEALTH_CONFIG } from "@shortener/worker";
import postgres from "postgres";
import { log } from "../common.ts";

const LINKS = Number(process.env.BENCH_LINKS ?? 3_000);
const PASSES = Number(process.env.BENCH_PASSES ?? 2);
const DRIVER = process.env.BENCH_DB === "pglite" ? "pglite" : "postgres";
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const HOSTS = 16;
const DAY = 100_000;
const IDLE_TICKS = 200;
const TICKS_A_DAY = 86_400_000 / DEFAULT_HEALTH_CONFIG.intervalMs;

async function openBenchDb(): Promise<{ database: Database; drop(): Promise<void> }> {
  if (DRIVER === "pglite") {
    const database = await openDb({ dataDir: undefined });
    await migrate(database);
    return { database, drop: () => database.close() };
  }
  const name = `shortener_bench_health_${randomBytes(4).toString("hex")}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDb({ url: url.toString(), poolSize: 4 });
  await migrate(database);
  return {
    database,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/** The destinations: one node:http server per loopback address 127.0.0.1–16, all on one port, in a child process. */
const SERVER = `
const http = require("node:http");
const handler = (req, res) => { res.writeHead(200, { "content-type": "text/plain" }); res.end(); };
const first = http.createServer(handler);
first.listen(0, "127.0.0.1", () => {
  const port = first.address().port;
  let left = ${HOSTS - 1};
  for (let i = 2; i <= ${HOSTS}; i++) http.createServer(handler).listen(port, "127.0.0." + i, () => { if (--left === 0) console.log(port); });
});`;

async function startDestinations(): Promise<{ port: number; stop(): void }> {
  const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim())));
    child.once("exit", (code) => reject(new Error(`destination server exited (${code})`)));
  });
  return { port, stop: () => child.kill() };
}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

/** The same requests without the checker: HEAD with node's client, a connection each, 16 at a time. */
async function baseline(urls: string[]): Promise<{ cpu: number; wall: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  const one = (url: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: "HEAD", agent: false }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < urls.length) await one(urls[next++] as string);
    }),
  );
  return { cpu: cpuMs(cpu), wall: performance.now() - started };
}

async function main(): Promise<void> {
  const { database, drop } = await openBenchDb();
  const destinations = await startDestinations();
  try {
    const user = await createTestUser(database.db);
    const domain = await insertTestDomain(database.db, user.workspaceId);
    const urls = Array.from({ length: LINKS }, (_, i) => `http://127.0.0.${(i % HOSTS) + 1}:${destinations.port}/p/${i}?utm_source=bench`);
    await database.db.execute(sql`
      insert into links (workspace_id, domain_id, alias, url)
      select ${user.workspaceId}::int, ${domain.id}::int, 'h' || i, 'http://127.0.0.' || ((i % ${HOSTS}) + 1)::text || ${`:${destinations.port}/p/`}::text || i::text || '?utm_source=bench'
      from generate_series(0, ${LINKS - 1}::int) as i`);
    const batch = batchSizeFor(DAY, DEFAULT_HEALTH_CONFIG);
    log(`bench:health — ${LINKS} links on ${HOSTS} loopback hosts, ${DRIVER}, batches of ${batch} (100,000 links a day), ${PASSES} passes`);
    // Warm-up: the first requests and statements compile code paths and prepare connections.
    await baseline(urls.slice(0, 200));
    const rows: string[] = [];
    const totals: number[] = [];
    for (let pass = 1; pass <= PASSES; pass++) {
      const base = await baseline(urls);
      await database.db.execute(sql`update links set health = 'unchecked', health_reason = null, health_checked_at = null, health_due_at = now() - interval '1 second'`);
      const checker = createHealthChecker({
        database,
        now: () => new Date(),
        log: { info() {}, warn() {}, error: (o: unknown) => console.error(o) },
        // Loopback destinations (HEALTH_ALLOW_PRIVATE=1); a high per-host rate, so the run measures CPU, not the spacing.
        config: { allowPrivate: true, hostRatePerSecond: 1000 },
      });
      const started = performance.now();
      const cpu = process.cpuUsage();
      let checked = 0;
      let requests = 0;
      let batches = 0;
      for (;;) {
        const run = await checker.runOnce(batch);
        batches++;
        if (!run.claimed) break;
        checked += run.checked;
        requests += run.requests;
      }
      const used = cpuMs(cpu);
      const wall = performance.now() - started;
      // A tick with nothing due (every link looked at today): the claim alone, 8,640 times a day.
      const idleCpu = process.cpuUsage();
      for (let i = 0; i < IDLE_TICKS; i++) await checker.runOnce(batch);
      const perIdleTick = cpuMs(idleCpu) / IDLE_TICKS;
      await checker.close();
      const [counts] = await queryRows<{ ok: number }>(database.db, sql`select count(*) filter (where health = 'ok')::int as ok from links`);
      const perCheck = used / checked;
      const perBase = base.cpu / LINKS;
      const share = (ms: number) => ((ms * DAY) / 86_400_000) * 100;
      rows.push(
        `| ${pass} | plain HEAD (baseline) | ${LINKS} | ${base.cpu.toFixed(0)} | ${perBase.toFixed(3)} | ${share(perBase).toFixed(3)} % | ${(base.wall / 1000).toFixed(1)} s |`,
        `| ${pass} | health checker | ${checked} (${requests} requests, ${batches} batches; ${counts?.ok ?? "?"} ok) | ${used.toFixed(0)} | ${perCheck.toFixed(3)} | ${share(perCheck).toFixed(3)} % | ${(wall / 1000).toFixed(1)} s |`,
        `| ${pass} | an idle tick (nothing due), × 8,640 a day | ${IDLE_TICKS} ticks | ${(perIdleTick * IDLE_TICKS).toFixed(0)} | ${perIdleTick.toFixed(3)} a tick | ${(((perIdleTick * TICKS_A_DAY) / 86_400_000) * 100).toFixed(3)} % (all ticks idle) | – |`,
      );
      totals.push(share(perCheck) + ((perIdleTick * TICKS_A_DAY) / 86_400_000) * 100);
    }
    console.log(["", "| pass | what | checks | CPU ms | CPU ms a check | 100,000 a day: share of a core | wall |", "|---|---|---|---|---|---|---|", ...rows].join("\n"));
    console.log(`\n100,000 checks a day plus 8,640 ticks, as a share of one core (goal < 5 %): ${totals.map((t) => `${t.toFixed(3)} %`).join(", ")} (one figure a pass)`);
  } finally {
    destinations.stop();
    await drop();
  }
}

await main();
