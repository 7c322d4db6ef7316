/**
 * Bulk import benchmark (issue #7): a generated CSV of BENCH_ROWS rows (url, alias, title; default
 * 1,000,000) into a fresh Postgres database, measured against raw COPY of the same rows into a bare
 * table (the ceiling), and COPY into the real `links` table (the ceiling with its indexes):
 *   - the operator CLI (a child process; its peak RSS as it reports it),
 *   - an API job (POST the file to a server process, poll until completed; the server's peak RSS),
 *   - the CLI on the embedded database (PGlite in a temporary DATA_DIR).
 * `links` is truncated between runs so each starts from the same empty table.
 *
 *   - with `formats` in BENCH_ONLY: the same links as each other service's export file (CONTRACT §23;
 *     export-files.ts says why this is the fair comparison), each through the CLI with `--format`, side
 *     by side with the plain CSV import of the same links: the runs alternate (csv, bitly, csv,
 *     rebrandly, …, csv), so each format's baseline is the mean of the CSV runs just before and after
 *     it, and a load that comes and goes on a shared machine hits both. BENCH_PASSES repeats the whole
 *     sequence; each format's figure is then the median of its passes' ratios. Each file's bytes per
 *     row are printed beside it (an export carries more columns than the CSV: that is part of its cost).
 *
 *   pnpm bench:import                      # BENCH_ROWS, BENCH_ONLY=copy,cli,api,embedded(,formats), BENCH_ADMIN_URL
 *   BENCH_ROWS=200000 BENCH_ONLY=formats BENCH_PASSES=2 pnpm bench:import    # BENCH_FORMATS=bitly,dub to pick some
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { openDb, type Database } from "@shortener/db";
import { log, startService, withDatabase, type Service } from "../common.ts";
import { benchLink, EXPORT_FILES, exportFileChunk, type ExportFileShape } from "./export-files.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const ONLY = new Set((process.env.BENCH_ONLY ?? "copy,cli,api,embedded").split(",").map((s) => s.trim()));
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const ADMIN_KEY = `shk_${"B".repeat(40)}`;

type Result = { method: string; seconds: number; rows: number; rssMb?: number; note?: string };
const results: Result[] = [];
const PASSES = Number(process.env.BENCH_PASSES ?? 1);
const FORMATS = (process.env.BENCH_FORMATS ?? Object.keys(EXPORT_FILES).join(","))
  .split(",")
  .map((s) => s.trim())
  .filter((f) => f && f !== "csv");
const formatResults: Array<{ pass: number; format: string; seconds: number; bytes: number }> = [];

const row = benchLink;

async function generate(file: string, format = "csv"): Promise<number> {
  const { header } = EXPORT_FILES[format] as ExportFileShape;
  const out = createWriteStream(file);
  out.write(`${header}\n`);
  for (let i = 0; i < ROWS; i += 10_000) {
    if (!out.write(exportFileChunk(format, i, Math.min(i + 10_000, ROWS)))) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  out.end();
  await finished(out);
  return statSync(file).size;
}

function sqlOf(database: Database) {
  const client = database.postgres;
  if (!client) throw new Error("the benchmark needs Postgres");
  return client;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { seconds: (performance.now() - started) / 1000, value };
}

/** Peak resident memory of a live process (Linux), in MB. */
function peakRssMb(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

function run(command: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += String(c)));
    child.stderr.on("data", (c) => (err += String(c)));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

type Server = Service;

function startServer(env: Record<string, string>): Promise<Server> {
  return startService({ ...env, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: "warn" });
}

async function api<T>(base: string, path: string, init: RequestInit = {}): Promise<T> {
  let res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.headers ?? {}) } });
  // The API's rate limit (120 requests a minute a key) applies to polling too: wait as told, then ask again.
  while (res.status === 429 && init.method === undefined) {
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get("retry-after") ?? 1)));
    res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(init.headers ?? {}) } });
  }
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const file = join(dir, "links.csv");
  const name = `shortener_bench_import_${randomBytes(4).toString("hex")}`;
  const admin = await openDb({ url: ADMIN_URL, poolSize: 1 });
  const url = withDatabase(ADMIN_URL, name);
  let database: Database | undefined;
  try {
    log(`generating ${ROWS.toLocaleString("en-US")} rows…`);
    const bytes = await generate(file);
    log(`${file}: ${(bytes / 1024 / 1024).toFixed(1)} MiB`);
    await sqlOf(admin).unsafe(`create database "${name}"`);

    // The server bootstraps the admin and its domain (localhost:PORT), then serves the API job.
    // The worker's destination health checks off: this measures the import (bench:health measures them).
    const server = await startServer({ DATABASE_URL: url, SERVICES: "api,worker", HEALTH_CHECKS: "off", IMPORT_MAX_BYTES: String(2 ** 31 - 1), IMPORT_MAX_ROWS: String(ROWS) });
    const domain = (await api<{ data: Array<{ id: number; name: string }> }>(server.base, "/api/v1/domains")).data[0];
    if (!domain) throw new Error("no bootstrap domain");
    database = await openDb({ url, poolSize: 2 });
    const sql = sqlOf(database);
    const truncate = async () => {
      await sql.unsafe("truncate links cascade");
      await sql.unsafe("truncate import_errors");
      await sql.unsafe("vacuum analyze links");
    };

    if (ONLY.has("copy")) {
      await sql.unsafe("create table bench_bare (url text, alias text, title text)");
      const bare = await timed(async () => pipeline(createReadStream(file), await sql`copy bench_bare (url, alias, title) from stdin with (format csv, header true)`.writable()));
      results.push({ method: "COPY into a bare table (the ceiling)", seconds: bare.seconds, rows: ROWS });
      log(`COPY bare: ${bare.seconds.toFixed(1)} s`);
      await sql.unsafe("drop table bench_bare");
      const [user] = await sql<Array<{ id: number }>>`select id from users order by id limit 1`;
      const rowsAsText = () =>
        Readable.from(
          (function* () {
            for (let i = 0; i < ROWS; i += 10_000) {
              let chunk = "";
              for (let j = i; j < Math.min(i + 10_000, ROWS); j++) chunk += `${user?.id}\t${domain.id}\t${row(j).join("\t")}\n`;
              yield chunk;
            }
          })(),
        );
      // The least any links table carries: a generated key and the unique (domain, alias) the contract
      // needs (a unique index decides between concurrent creates of one alias).
      await sql.unsafe(
        "create table bench_keys (id bigserial primary key, workspace_id int not null, domain_id int not null, url text not null, alias text not null, title text, unique (domain_id, alias))",
      );
      const keys = await timed(async () => pipeline(rowsAsText(), await sql`copy bench_keys (workspace_id, domain_id, url, alias, title) from stdin`.writable()));
      results.push({ method: "COPY into a table with only a key and unique (domain, alias)", seconds: keys.seconds, rows: ROWS });
      log(`COPY keys only: ${keys.seconds.toFixed(1)} s`);
      await sql.unsafe("drop table bench_keys");
      const into = await timed(async () => pipeline(rowsAsText(), await sql`copy links (workspace_id, domain_id, url, alias, title) from stdin`.writable()));
      results.push({ method: "COPY into `links` (with its indexes)", seconds: into.seconds, rows: ROWS });
      log(`COPY links: ${into.seconds.toFixed(1)} s`);
      await truncate();
    }

    if (ONLY.has("api")) {
      log("API job…");
      const job = await timed(async () => {
        const created = await api<{ data: { id: number } }>(server.base, `/api/v1/imports?domain_id=${domain.id}`, {
          method: "POST",
          headers: { "content-type": "text/csv" },
          body: readFileSync(file),
        });
        for (;;) {
          const current = await api<{ data: { status: string; processed_rows: number; failure_reason: string | null } }>(server.base, `/api/v1/imports/${created.data.id}`);
          if (current.data.status === "completed") return current.data;
          if (current.data.status === "failed") throw new Error(`API job failed: ${current.data.failure_reason}`);
          await new Promise((r) => setTimeout(r, 500)); // 120 polls a minute at most: the API's rate limit
        }
      });
      if (job.value.processed_rows !== ROWS) throw new Error(`API job processed ${job.value.processed_rows} rows`);
      results.push({ method: "API job (POST, queue, worker, completed)", seconds: job.seconds, rows: ROWS, rssMb: peakRssMb(server.pid), note: "server process: API + worker" });
      log(`API job: ${job.seconds.toFixed(1)} s`);
      await truncate();
    }
    await server.stop();

    if (ONLY.has("cli")) {
      log("CLI on Postgres…");
      const cli = await timed(() =>
        run(["--import", "tsx", "apps/worker/src/cli.ts", "import", file, "--user", "admin@localhost", "--domain", domain.name, "--again"], {
          DATABASE_URL: url,
          IMPORT_REPORT_RSS: "1",
        }),
      );
      if (cli.value.code !== 0) throw new Error(`CLI failed: ${cli.value.err}${cli.value.out}`);
      const rss = Number(/peak_rss_kb=(\d+)/.exec(cli.value.out)?.[1] ?? NaN) / 1024;
      results.push({ method: "CLI → Postgres (child process, wall clock)", seconds: cli.seconds, rows: ROWS, rssMb: Math.round(rss) });
      log(`CLI: ${cli.seconds.toFixed(1)} s\n${cli.value.out.trim()}`);
      await truncate();
    }

    if (ONLY.has("formats")) {
      // Each service's export of the same links through the CLI, alternating with the plain CSV of them.
      const files = new Map<string, string>();
      for (const format of ["csv", ...FORMATS]) {
        files.set(format, join(dir, `links.${format}.csv`));
        await generate(files.get(format) as string, format);
      }
      for (let pass = 1; pass <= PASSES; pass++) {
        for (const format of [...FORMATS.flatMap((f) => ["csv", f]), "csv"]) {
          const path = files.get(format) as string;
          const cli = await timed(() =>
            run(["--import", "tsx", "apps/worker/src/cli.ts", "import", path, "--user", "admin@localhost", "--domain", domain.name, "--format", format, "--again"], { DATABASE_URL: url }),
          );
          if (cli.value.code !== 0) throw new Error(`CLI --format ${format} failed: ${cli.value.err}${cli.value.out}`);
          if (!cli.value.out.includes(`— ${ROWS.toLocaleString("en-US")} created`)) throw new Error(`CLI --format ${format} did not create every row:\n${cli.value.out}`);
          // The import's own time as the CLI reports it (from its first row read to its last batch committed):
          // the ~3 s of starting a process and compiling TypeScript are the same for every format.
          const seconds = Number(/ in ([\d.]+) s \(/.exec(cli.value.out)?.[1]);
          if (!Number.isFinite(seconds)) throw new Error(`CLI --format ${format} printed no time:\n${cli.value.out}`);
          formatResults.push({ pass, format, seconds, bytes: statSync(path).size });
          log(`pass ${pass}, --format ${format}: ${seconds.toFixed(1)} s importing, ${cli.seconds.toFixed(1)} s in all (load ${loadavg()[0]?.toFixed(1)})`);
          await truncate();
        }
      }
    }

    if (ONLY.has("embedded")) {
      log("CLI on the embedded database (PGlite)…");
      const dataDir = join(dir, "data");
      mkdirSync(dataDir, { recursive: true });
      const embedded = await startServer({ DATA_DIR: dataDir, SERVICES: "api" });
      const local = (await api<{ data: Array<{ name: string }> }>(embedded.base, "/api/v1/domains")).data[0];
      await embedded.stop();
      const cli = await timed(() =>
        run(["--import", "tsx", "apps/worker/src/cli.ts", "import", file, "--user", "admin@localhost", "--domain", local?.name ?? "", "--again"], {
          DATA_DIR: dataDir,
          IMPORT_REPORT_RSS: "1",
        }),
      );
      if (cli.value.code !== 0) throw new Error(`embedded CLI failed: ${cli.value.err}${cli.value.out}`);
      const rss = Number(/peak_rss_kb=(\d+)/.exec(cli.value.out)?.[1] ?? NaN) / 1024;
      results.push({ method: "CLI → embedded PGlite (DATA_DIR)", seconds: cli.seconds, rows: ROWS, rssMb: Math.round(rss) });
      log(`embedded CLI: ${cli.seconds.toFixed(1)} s\n${cli.value.out.trim()}`);
    }
  } finally {
    await database?.close();
    await sqlOf(admin)
      .unsafe(`drop database if exists "${name}" with (force)`)
      .catch(() => {});
    await admin.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const ceiling = results.find((r) => r.method.startsWith("COPY into a bare"));
  const lines = [
    `Bulk import of ${ROWS.toLocaleString("en-US")} rows (url, alias, title), ${new Date().toISOString().slice(0, 10)}`,
    "",
    "| method | seconds | rows/s | × COPY (bare) | peak RSS |",
    "|---|---:|---:|---:|---:|",
    ...results.map((r) => {
      const rate = r.rows / r.seconds;
      const ratio = ceiling ? (rate / (ceiling.rows / ceiling.seconds)).toFixed(3) : "–";
      return `| ${r.method} | ${r.seconds.toFixed(1)} | ${Math.round(rate).toLocaleString("en-US")} | ${ratio} | ${r.rssMb !== undefined && !Number.isNaN(r.rssMb) ? `${r.rssMb} MB` : "–"} |`;
    }),
  ];
  if (formatResults.length) {
    // Each format run against the mean of the CSV runs beside it (the one before and the one after).
    const rows: Array<{ format: string; bytes: number; seconds: number[]; csvSeconds: number[]; ratios: number[] }> = FORMATS.map((format) => ({
      format,
      bytes: formatResults.find((r) => r.format === format)?.bytes ?? 0,
      seconds: [],
      csvSeconds: [],
      ratios: [],
    }));
    const csvBytes = formatResults.find((r) => r.format === "csv")?.bytes ?? 0;
    formatResults.forEach((r, i) => {
      if (r.format === "csv") return;
      const around = [formatResults[i - 1], formatResults[i + 1]].filter((n) => n?.format === "csv" && n.pass === r.pass).map((n) => (n as { seconds: number }).seconds);
      const baseline = around.reduce((a, b) => a + b, 0) / around.length;
      const entry = rows.find((e) => e.format === r.format);
      entry?.seconds.push(r.seconds);
      entry?.csvSeconds.push(baseline);
      entry?.ratios.push(baseline / r.seconds);
    });
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
    };
    const list = (values: number[]) => values.map((v) => v.toFixed(1)).join(", ");
    lines.push(
      "",
      `Export files (--format), the same ${ROWS.toLocaleString("en-US")} links, CLI → Postgres, the import's own time as the CLI reports it; each run's baseline: the mean of the plain CSV runs just before and after it; ${PASSES} pass${PASSES > 1 ? "es" : ""}`,
      "",
      `| format | bytes/row | seconds (per pass) | CSV beside it (s) | × CSV (per pass) | × CSV (median) |`,
      "|---|---:|---:|---:|---:|---:|",
      `| csv | ${(csvBytes / ROWS).toFixed(1)} | ${list(formatResults.filter((r) => r.format === "csv").map((r) => r.seconds))} | – | – | 1.000 |`,
      ...rows.map(
        (e) => `| ${e.format} | ${(e.bytes / ROWS).toFixed(1)} | ${list(e.seconds)} | ${list(e.csvSeconds)} | ${e.ratios.map((v) => v.toFixed(3)).join(", ")} | ${median(e.ratios).toFixed(3)} |`,
      ),
    );
  }
  console.log(`\n${lines.join("\n")}\n`);
  const outDir = join(ROOT, "bench/.out");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "import.md"), `${lines.join("\n")}\n`);
}

await main();
