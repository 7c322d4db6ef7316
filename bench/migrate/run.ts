/**
 * Live migration benchmark (issue #31, CONTRACT §23): BENCH_LINKS links (default 100,000) with click
 * totals on a phpShort-compatible source — this service on a Postgres database of its own, seeded
 * straight with SQL — migrated by `importer migrate --from phpshort` (a child process, as an operator
 * runs it) into a fresh database; then checked: every alias, destination and click total equal. The
 * baseline, in the same run: the plain CSV import (`importer import`) of the same links into another
 * fresh database.
 *
 *   pnpm bench:migrate                     # BENCH_LINKS, BENCH_ADMIN_URL
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDb, type Database } from "@shortener/db";
import { log, startService, withDatabase, type Service } from "../common.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const KEY = `shk_${"B".repeat(40)}`;
const DOMAIN = "go.bench.test";

function run(command: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += String(c)));
    child.stderr.on("data", (c) => (err += String(c)));
    child.on("exit", (code) => resolve({ code, out, err, seconds: (performance.now() - started) / 1000 }));
  });
}

function pg(database: Database) {
  if (!database.postgres) throw new Error("the benchmark needs Postgres");
  return database.postgres;
}

/** A fresh database with the service's schema, its admin (KEY) and the domain DOMAIN: the service starts once on it. */
async function freshService(admin: Database, name: string, keep: boolean): Promise<{ url: string; service?: Service }> {
  await pg(admin).unsafe(`create database "${name}"`);
  const url = withDatabase(ADMIN_URL, name);
  const service = await startService({ DATABASE_URL: url, ADMIN_API_KEY: KEY, SERVICES: "api", RATE_LIMIT_PER_MINUTE: "1000000", DOMAIN_VERIFICATION: "off" });
  const res = await fetch(`${service.base}/api/v1/domains`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/x-www-form-urlencoded" },
    body: `name=${DOMAIN}`,
  });
  if (res.status !== 201) throw new Error(`domain: ${res.status} ${await res.text()}`);
  if (keep) return { url, service };
  await service.stop();
  return { url };
}

/** Every link of a database as `alias url clicks` lines, in alias order. */
async function linesOf(url: string): Promise<string[]> {
  const database = await openDb({ url, poolSize: 1 });
  try {
    const rows = await pg(database).unsafe<Array<{ line: string }>>(`select d.name || '/' || l.alias || ' ' || l.url || ' ' || l.clicks as line from links l join domains d on d.id = l.domain_id`);
    return rows.map((r) => r.line).sort();
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  const tag = randomBytes(4).toString("hex");
  const names = { source: `shortener_bench_mig_src_${tag}`, target: `shortener_bench_mig_dst_${tag}`, baseline: `shortener_bench_mig_csv_${tag}` };
  const admin = await openDb({ url: ADMIN_URL, poolSize: 1 });
  const services: Service[] = [];
  try {
    log(`source: ${LINKS.toLocaleString("en-US")} links on ${DOMAIN}, seeded with SQL…`);
    const source = await freshService(admin, names.source, true);
    if (source.service) services.push(source.service);
    const sourceDb = await openDb({ url: source.url, poolSize: 1 });
    await pg(sourceDb).unsafe(`
      insert into links (workspace_id, domain_id, alias, url, title, clicks, created_at, updated_at)
      select d.workspace_id, d.id, 'm' || to_hex(i), 'https://bench.example/p/' || i || '?utm_source=list' || (i % 97), 'Benchmark link ' || i,
             (i * 7919) % 100000, now() - make_interval(secs => ${LINKS} - i), now()
      from domains d, generate_series(1, ${LINKS}) i where d.name = '${DOMAIN}'`);
    await sourceDb.close();
    const target = await freshService(admin, names.target, false);
    const baseline = await freshService(admin, names.baseline, false);

    log("migrating (importer migrate --from phpshort, child process)…");
    const migrated = await run(["--import", "tsx", "apps/worker/src/cli.ts", "migrate", "--from", "phpshort", "--url", source.service?.base ?? "", "--key", KEY, "--user", "admin@localhost"], {
      DATABASE_URL: target.url,
      IMPORT_REPORT_RSS: "1",
    });
    if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.err}${migrated.out}`);
    log(migrated.out.trim());

    log("baseline: the same links as a CSV (importer import)…");
    const dir = mkdtempSync(join(tmpdir(), "bench-migrate-"));
    const csv = join(dir, "links.csv");
    const sourceLines = await linesOf(source.url);
    writeFileSync(
      csv,
      `alias,url,domain\n${sourceLines
        .map((l) => l.split(" "))
        .map(([key, url]) => `${(key as string).split("/")[1]},${url},${DOMAIN}`)
        .join("\n")}\n`,
    );
    const imported = await run(["--import", "tsx", "apps/worker/src/cli.ts", "import", csv, "--user", "admin@localhost"], { DATABASE_URL: baseline.url, IMPORT_REPORT_RSS: "1" });
    if (imported.code !== 0) throw new Error(`import failed: ${imported.err}${imported.out}`);

    log("checking every link…");
    const targetLines = await linesOf(target.url);
    const targetSet = new Set(targetLines);
    const equal = sourceLines.filter((l) => targetSet.has(l)).length;
    const rss = (out: string) => Math.round(Number(/peak_rss_kb=(\d+)/.exec(out)?.[1] ?? NaN) / 1024);
    const rows = [
      ["importer migrate --from phpshort (source API → Postgres)", migrated.seconds, rss(migrated.out)],
      ["baseline: importer import of the same links as CSV", imported.seconds, rss(imported.out)],
    ] as const;
    console.log(`\n${LINKS.toLocaleString("en-US")} links, wall clock of each child process (tsx start included):\n`);
    console.log("| run | seconds | links/s | peak RSS (MB) |\n|---|---|---|---|");
    for (const [label, seconds, mb] of rows) console.log(`| ${label} | ${seconds.toFixed(1)} | ${Math.round(LINKS / seconds).toLocaleString("en-US")} | ${mb} |`);
    console.log(
      `\nchecked: ${equal.toLocaleString("en-US")} of ${sourceLines.length.toLocaleString("en-US")} links equal in domain, alias, destination and click total (${((100 * equal) / sourceLines.length).toFixed(2)} %); target has ${targetLines.length.toLocaleString("en-US")}.`,
    );
    console.log(`goal: under 60 s — ${migrated.seconds < 60 ? "met" : "NOT met"}.`);
    if (equal !== sourceLines.length || targetLines.length !== sourceLines.length) process.exitCode = 1;
  } finally {
    for (const s of services) await s.stop();
    for (const name of Object.values(names)) await pg(admin).unsafe(`drop database if exists "${name}" with (force)`);
    await admin.close();
  }
}

await main();
