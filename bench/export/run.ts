/**
 * Export memory benchmark (issue #16): BENCH_ROWS links (default 1,000,000) of one user in a fresh
 * Postgres database, exported through `GET /api/v1/links/export` from a server process (SERVICES=api)
 * while its resident memory is sampled from /proc every 50 ms. Prints the server's RSS before the
 * export (after a small warm-up export), its peak during it, the growth, and the export's size and
 * speed. A tenth of the links have a space, a seventh two pixels, a fifth a password hash, so rows are
 * of realistic width. The client reads the stream and throws it away as it comes (it counts lines).
 *
 *   pnpm bench:export                       # BENCH_ROWS, BENCH_ADMIN_URL
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hashPassword } from "@shortener/core";
import { openDb, type Database } from "@shortener/db";
import { log, startService, withDatabase, type Service } from "../common.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ADMIN_KEY = `shk_${"X".repeat(40)}`;

function sqlOf(database: Database) {
  const client = database.postgres;
  if (!client) throw new Error("the benchmark needs Postgres");
  return client;
}

/** Resident memory of a live process (Linux), in MiB: now (VmRSS) and its peak so far (VmHWM). */
function rssOf(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

type Server = Service;

function startServer(env: Record<string, string>): Promise<Server> {
  return startService({ ...env, HOST: "127.0.0.1", ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: "warn", RATE_LIMIT_PER_MINUTE: "100000" });
}

/** Reads an export to its end, counting its lines and bytes; nothing is kept. */
async function drain(url: string): Promise<{ lines: number; bytes: number; seconds: number }> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  return { lines, bytes, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const name = `shortener_bench_export_${randomBytes(4).toString("hex")}`;
  const admin = await openDb({ url: ADMIN_URL, poolSize: 1 });
  const url = withDatabase(ADMIN_URL, name);
  let database: Database | undefined;
  let server: Server | undefined;
  try {
    await sqlOf(admin).unsafe(`create database "${name}"`);
    server = await startServer({ DATABASE_URL: url, SERVICES: "api" });
    database = await openDb({ url, poolSize: 2 });
    const sql = sqlOf(database);
    const [user] = await sql<Array<{ id: number }>>`select id from workspaces order by id limit 1`;
    const [domain] = await sql<Array<{ id: number }>>`select id from domains order by id limit 1`;
    if (!user || !domain) throw new Error("no bootstrap user or domain");
    const [space] = await sql<Array<{ id: number }>>`insert into spaces (workspace_id, name) values (${user.id}, 'Bench') returning id`;
    const pixelRows = await sql<
      Array<{ id: number }>
    >`insert into pixels (workspace_id, name, type, value) values (${user.id}, 'fb', 'facebook', '123'), (${user.id}, 'ga', 'google-analytics', 'G-1') returning id`;
    const hash = await hashPassword("bench");

    log(`seeding ${ROWS.toLocaleString("en-US")} links…`);
    const seedStarted = performance.now();
    for (let from = 1; from <= ROWS; from += 100_000) {
      const to = Math.min(from + 99_999, ROWS);
      await sql`
        insert into links (workspace_id, domain_id, space_id, alias, url, title, password_hash, expiration_clicks)
        select ${user.id}, ${domain.id}, case when g % 10 = 0 then ${space?.id ?? null}::int end, 'x' || g,
               'https://bench.example/p/' || g || '?utm_source=list' || (g % 97), 'Benchmark link number ' || g,
               case when g % 5 = 0 then ${hash} end, g % 3
        from generate_series(${from}::int, ${to}::int) g`;
    }
    await sql`
      insert into link_pixels (link_id, pixel_id)
      select l.id, p.id from links l cross join (select unnest(${pixelRows.map((p) => p.id)}::int[]) as id) p where l.id % 7 = 0`;
    await sql.unsafe("vacuum analyze links");
    log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    // Warm-up: the route, the prepared statements and the JIT, as a running server has them.
    const warm = await drain(`${server.base}/api/v1/links/export?cursor=${ROWS - 5000}`);
    if (warm.lines !== 5001) throw new Error(`warm-up export: ${warm.lines} lines`);
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssOf(server.pid);

    let peak = before.now;
    const pid = server.pid;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid).now);
    }, 50);
    const run = await drain(`${server.base}/api/v1/links/export`);
    clearInterval(sampler);
    const after = rssOf(server.pid);
    peak = Math.max(peak, after.now);
    if (run.lines !== ROWS + 1) throw new Error(`export had ${run.lines} lines, expected ${ROWS + 1}`);

    const rows = [
      ["links exported", ROWS.toLocaleString("en-US")],
      ["file size", `${(run.bytes / 1024 / 1024).toFixed(1)} MiB`],
      ["time", `${run.seconds.toFixed(1)} s (${Math.round(ROWS / run.seconds).toLocaleString("en-US")} rows/s)`],
      ["server RSS before (after a warm-up export)", `${before.now.toFixed(1)} MiB`],
      ["server RSS peak during the export (sampled every 50 ms)", `${peak.toFixed(1)} MiB`],
      ["server RSS growth", `${(peak - before.now).toFixed(1)} MiB`],
      ["server RSS after", `${after.now.toFixed(1)} MiB`],
    ];
    console.log("\n| measure | value |\n|---|---|");
    for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  } finally {
    await server?.stop();
    await database?.close();
    await sqlOf(admin).unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
