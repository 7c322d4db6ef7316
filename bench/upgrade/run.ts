/**
 * The upgrade to workspaces (migration 0022, CONTRACT §24) on a database of 1,000,000 links:
 * `pnpm bench:upgrade`, on PostgreSQL.
 *
 * 1. A fresh database migrated up to the migration before 0022 only (a copy of the migrations folder
 *    with its journal cut, as packages/core/test/domain-verification.db.test.ts does).
 * 2. Seeded in SQL (generate_series) with BENCH_LINKS links (default 1,000,000) over BENCH_USERS users
 *    (default 5), their domains, spaces, pixels, API keys, sessions, webhooks with events and
 *    deliveries, import jobs with errors, clicks and rollup rows; then VACUUM ANALYZE, the state of a
 *    database that has been running.
 * 3. Every table's row count and two checksums: one of its ids and owner values, one of every column
 *    it had (order-independent sums of 64-bit hashes), taken before and after.
 * 4. Migration 0022 run the way the service runs it at start (`migrate()` of @shortener/db), timed,
 *    while two more connections probe `links` every BENCH_PROBE_MS (default 10 ms): one reads a link by
 *    id, one updates one. The longest probe is the longest stretch a read or a write was blocked.
 * 5. With BENCH_STEPS=1 (the default), 0022's statements again, one by one in one transaction, on a
 *    copy of the seeded database made before step 4: the time of each, so the table says where the
 *    lock's time goes.
 *
 * 6. BENCH_VARIANTS=scan-first,no-validate: other orders of 0022's statements, each on its own copy,
 *    probed the same way (see VARIANTS): what a change to the migration would do to the lock.
 *
 * Knobs: BENCH_DATABASE_URL (the server to create the databases on), BENCH_LINKS, BENCH_USERS,
 * BENCH_PROBE_MS, BENCH_STEPS=0, BENCH_VARIANTS, BENCH_KEEP_DB=1 (keep the databases for a look afterwards).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrate, MIGRATIONS_FOLDER, openDb } from "@shortener/db";
import { createBenchDb, dropBenchDb } from "../api/db.ts";
import { log, withDatabase } from "../common.ts";

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const LINKS = intSetting("BENCH_LINKS", 1_000_000);
const USERS = intSetting("BENCH_USERS", 5);
const PROBE_MS = intSetting("BENCH_PROBE_MS", 10);
const IS_STEPS = process.env.BENCH_STEPS !== "0";
const KEEP_DB = process.env.BENCH_KEEP_DB === "1";
/** The migration measured: its tag in the journal starts with this. */
const UPGRADE = "0022_";
/** Seeded per user. */
const PER_USER = { domains: 4, spaces: 10, pixels: 5, apiKeys: 3, sessions: 4, webhooks: 2, importJobs: 3 };

function intSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return Number(raw);
}

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" / ");
const seconds = (ms: number): string => (ms / 1000).toFixed(2);
const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {} });
type Sql = ReturnType<typeof connect>;

/** A copy of the committed migrations whose journal stops before `tag`; the caller removes it. */
function migrationsBefore(tag: string): string {
  const folder = mkdtempSync(join(tmpdir(), "migrations-before-"));
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  const cut = journal.entries.findIndex((e) => e.tag.startsWith(tag));
  if (cut < 1) throw new Error(`no migration ${tag}* in the journal`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  return folder;
}

/** The statements of the migration `tag`, as drizzle's migrator splits them. */
function statementsOf(tag: string): { name: string; statements: string[] } {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
  const entry = journal.entries.find((e) => e.tag.startsWith(tag));
  if (!entry) throw new Error(`no migration ${tag}* in the journal`);
  const text = readFileSync(join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), "utf8");
  return { name: entry.tag, statements: text.split("--> statement-breakpoint").map((s) => s.trim()) };
}

/** The database as it was before the upgrade: every migration before 0022. */
async function migrateBeforeUpgrade(url: string): Promise<void> {
  const folder = migrationsBefore(UPGRADE);
  const database = await openDb({ url, poolSize: 1 });
  try {
    await migratePostgres(database.db as unknown as PostgresJsDatabase, { migrationsFolder: folder });
  } finally {
    await database.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Everything an owner has, in SQL. Users 1..USERS (the first an instance admin); each user's domains,
 * spaces, pixels, keys, sessions, webhooks and import jobs; the links spread over the users and their
 * domains, every 7th in a space, every 50th with a pixel; clicks, and the rollups the visitor side keeps.
 */
async function seed(sql: Sql): Promise<void> {
  const u = USERS;
  const p = PER_USER;
  await sql.begin(async (tx) => {
    await tx`insert into users (id, email, name, role, created_at, updated_at)
      select g, 'user' || g || '@example.test', 'User ' || g, case when g = 1 then 'admin' else 'user' end, now() - interval '400 days', now() from generate_series(1, ${u}::int) g`;
    await tx`insert into domains (id, user_id, name, verified_at)
      select g, 1 + (g - 1) / ${p.domains}, 'd' || g || '.example.test', now() from generate_series(1, ${u * p.domains}::int) g`;
    await tx`insert into spaces (id, user_id, name, color) select g, 1 + (g - 1) / ${p.spaces}, 'Space ' || g, g % 8 from generate_series(1, ${u * p.spaces}::int) g`;
    await tx`insert into pixels (id, user_id, name, type, value) select g, 1 + (g - 1) / ${p.pixels}, 'Pixel ' || g, 'gtm', 'GTM-' || g from generate_series(1, ${u * p.pixels}::int) g`;
    await tx`insert into api_keys (id, user_id, key_hash, prefix, name, scopes)
      select g, 1 + (g - 1) / ${p.apiKeys}, md5('key' || g), 'shk_' || g, case when g % 3 = 0 then 'reporting' end, case when g % 3 = 0 then array['links:read'] end
      from generate_series(1, ${u * p.apiKeys}::int) g`;
    await tx`insert into sessions (id, user_id, token_hash, csrf_token, expires_at, user_agent)
      select g, 1 + (g - 1) / ${p.sessions}, md5('session' || g), md5('csrf' || g), now() + interval '30 days', 'Mozilla/5.0' from generate_series(1, ${u * p.sessions}::int) g`;
    await tx`insert into webhooks (id, user_id, url, events, secret) select g, 1 + (g - 1) / ${p.webhooks}, 'https://hooks.example.test/' || g, array['link.created', 'link.deleted'], md5('secret' || g)
      from generate_series(1, ${u * p.webhooks}::int) g`;
    await tx`insert into import_jobs (id, user_id, status, idempotency_key, default_domain_id, total_rows, processed_rows, created_rows, failed_rows)
      select g, 1 + (g - 1) / ${p.importJobs}, 'completed', 'import-' || g, 1 + ((g - 1) / ${p.importJobs}) * ${p.domains}, 1000, 1000, 990, 10 from generate_series(1, ${u * p.importJobs}::int) g`;
    await tx`insert into import_errors (job_id, line, field, message) select 1 + g % ${u * p.importJobs}, g, 'url', 'not a URL' from generate_series(1, 1000) g`;
    for (const table of ["users", "domains", "spaces", "pixels", "api_keys", "sessions", "webhooks", "import_jobs"]) {
      await tx`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${tx(table)}))`;
    }
    await tx`insert into webhook_events (user_id, type, data, created_at)
      select 1 + g % ${u}, 'link.created', json_build_object('id', g), now() - (g || ' seconds')::interval from generate_series(1, 20000) g`;
    await tx`insert into webhook_deliveries (webhook_id, event_id, type, data, event_at, status, attempts)
      select 1 + (e.user_id - 1) * ${p.webhooks}, e.id, e.type, e.data, e.created_at, 'delivered', 1 from webhook_events e`;
    await tx`insert into webhook_attempts (delivery_id, webhook_id, number, is_success, response_code, duration_ms)
      select d.id, d.webhook_id, 1, true, 200, 40 from webhook_deliveries d`;
  });
  // The links: secondary indexes dropped, then rebuilt from their definitions (as bench/api/db.ts seeds).
  await sql.begin(async (tx) => {
    const indexes = await tx<{ name: string; definition: string }[]>`
      select indexname as name, indexdef as definition from pg_indexes where schemaname = 'public' and tablename = 'links' and indexname <> 'links_pkey'`;
    for (const index of indexes) await tx.unsafe(`drop index "${index.name}"`);
    // Link g belongs to user 1 + g % u, on one of that user's domains; ids 1..LINKS.
    await tx`
      insert into links (user_id, domain_id, space_id, alias, url, title, created_at, updated_at)
      select 1 + g % ${u}, 1 + (g % ${u}) * ${p.domains} + (g / ${u}) % ${p.domains},
        case when g % 7 = 0 then 1 + (g % ${u}) * ${p.spaces} + (g / ${u}) % ${p.spaces} end,
        'a' || g, 'https://example-' || (g % 5000) || '.test/path/' || g, 'Title ' || g, now() - (g % 365 || ' days')::interval, now()
      from generate_series(1, ${LINKS}::int) g`;
    await tx`set local maintenance_work_mem = '256MB'`;
    for (const index of indexes) await tx.unsafe(index.definition);
  });
  await sql.begin(async (tx) => {
    await tx`insert into link_pixels (link_id, pixel_id) select l.id, 1 + (l.user_id - 1) * ${p.pixels} + l.id % ${p.pixels} from links l where l.id % 50 = 0`;
    const days = 30;
    // Rollups: a month of daily clicks and countries for every 10th link; the owners' and domains' daily counts.
    await tx`insert into link_stats_daily (link_id, dimension, day, value, count)
      select l.id, dim, current_date - d, case when dim = 'country' then 'DE' else '' end, 1 + (l.id + d) % 9
      from links l, generate_series(0, ${days - 1}::int) d, unnest(array['clicks', 'country']) dim where l.id % 10 = 0`;
    await tx`insert into account_stats_daily (user_id, dimension, day, value, count)
      select u, dim, current_date - d, case when dim = 'country' then 'DE' when dim = 'link' then (u * 10)::text else '' end, 100 + d
      from generate_series(1, ${u}::int) u, generate_series(0, 364) d, unnest(array['clicks', 'country', 'link', 'unique']) dim`;
    await tx`insert into domain_visits_daily (domain_id, kind, day, value, count)
      select dm, 'not_found', current_date - d, '', 3 from generate_series(1, ${u * p.domains}::int) dm, generate_series(0, 364) d`;
    // Clicks of the last day (the partition the service would have made, or the default one).
    await tx`insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer, count)
      select 1 + (g * 7919) % ${LINKS}, now() - (g % 86400 || ' seconds')::interval, 'DE', 'Windows', 'Chrome', 'desktop', 'de', '', 1 from generate_series(1, 100000) g`;
    await tx`insert into link_visitors (link_id, day, visitor) select 1 + (g * 7919) % ${LINKS}, current_date, g from generate_series(1, 100000) g`;
  });
  await sql`vacuum (analyze)`;
}

/** A table before or after the upgrade: its rows, and checksums of ids + owner and of every column it had before. */
type TableSum = { table: string; rows: number; ids: string; full: string; owner: string | null };
/** Tables and the columns they had before the upgrade (the full checksum is over those only). */
type Shape = Map<string, { columns: string[]; keys: string[] }>;

/** The owned tables' owner column, renamed by 0022: read under its new name after the upgrade. */
const RENAMED = new Set(["domains", "spaces", "pixels", "links", "account_stats_daily", "import_jobs", "webhooks", "link_counts", "webhook_events"]);

/**
 * Tables whose rows a later migration moved, read after the upgrade as they were: migration 0031 moved
 * the accounts' `link` rows into `account_link_daily` (docs/adr/0058-account-link-rollups-hot.md).
 */
const MOVED: Record<string, string> = {
  account_stats_daily: `(select workspace_id, dimension, day, value, count from account_stats_daily
    union all select workspace_id, 'link', day, link_id::text, count from account_link_daily) as moved`,
};

async function shapeOf(sql: Sql): Promise<Shape> {
  const rows = await sql<{ table: string; columns: string[]; keys: string[] | null }[]>`
    select c.relname as table,
      array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
      (select array(select a.attname::text from unnest(i.indkey) k join pg_attribute a on a.attrelid = c.oid and a.attnum = k)
         from pg_index i where i.indrelid = c.oid and i.indisprimary) as keys
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`;
  return new Map(rows.map((r) => [r.table, { columns: r.columns, keys: r.keys ?? [] }]));
}

/**
 * Each table of `shape`: its row count, a checksum of its ids (primary key) and owner value, and one
 * of all its old columns. A checksum is the sum of a 64-bit hash of each row's text, so the order on
 * disk does not matter. `after`: the renamed owner columns are read under their new name, moved rows
 * where they are now (MOVED).
 */
async function checksums(sql: Sql, shape: Shape, after: boolean): Promise<TableSum[]> {
  const sums: TableSum[] = [];
  for (const [table, { columns, keys }] of shape) {
    const col = (c: string) => (after && RENAMED.has(table) && c === "user_id" ? "workspace_id" : c);
    const owner = columns.includes("user_id") ? col("user_id") : null;
    const idColumns = [...new Set([...keys, ...(columns.includes("user_id") ? ["user_id"] : [])])];
    const rowOf = (cs: string[]) => (cs.length ? `row(${cs.map((c) => `"${col(c)}"`).join(", ")})::text` : "''");
    const [r] = await sql.unsafe<{ rows: string; ids: string; full: string }[]>(
      `select count(*)::text as rows, coalesce(sum(hashtextextended(${rowOf(idColumns)}, 0)::numeric), 0)::text as ids,
         coalesce(sum(hashtextextended(${rowOf(columns)}, 0)::numeric), 0)::text as full from ${(after && MOVED[table]) || `"${table}"`}`,
    );
    if (!r) throw new Error(`no checksum of ${table}`);
    sums.push({ table, rows: Number(r.rows), ids: r.ids, full: r.full, owner });
  }
  return sums;
}

/** A probe's answer time: when it was sent (ms since the migration started) and how long it took. */
type Probe = { at: number; ms: number; error?: string };

/** Sends `query` every `PROBE_MS` until `stop()`; a probe still waiting when stopped is awaited. */
function probe(sql: Sql, query: (id: number) => Promise<unknown>, origin: number) {
  const probes: Probe[] = [];
  let isStopped = false;
  const loop = (async () => {
    while (!isStopped) {
      const at = performance.now();
      const id = 1 + Math.floor(Math.random() * LINKS);
      let error: string | undefined;
      try {
        await query(id);
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      const done = performance.now();
      probes.push({ at: at - origin, ms: done - at, ...(error ? { error } : {}) });
      const wait = PROBE_MS - (done - at);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop(): Promise<Probe[]> {
      isStopped = true;
      await loop;
      await sql.end();
      return probes;
    },
  };
}

function probeSummary(probes: Probe[]): { count: number; errors: number; median: number; longest: Probe | undefined; over100: number } {
  const sorted = [...probes].sort((a, b) => a.ms - b.ms);
  return {
    count: probes.length,
    errors: probes.filter((p) => p.error).length,
    median: sorted[Math.floor(sorted.length / 2)]?.ms ?? Number.NaN,
    longest: sorted[sorted.length - 1],
    over100: probes.filter((p) => p.ms > 100).length,
  };
}

type ProbedRun = { ms: number; startedAt: number; reads: Probe[]; writes: Probe[] };

/** Runs `upgrade` with the probes on `links` alongside; the upgrade's time and the probes. */
async function probed(url: string, upgrade: () => Promise<void>): Promise<ProbedRun> {
  const readSql = connect(url);
  const writeSql = connect(url);
  // Connected and warm before the clock starts. Unprepared: the rename changes what a statement would see.
  await readSql`select 1`;
  await writeSql`select 1`;
  await new Promise((r) => setTimeout(r, 200));
  const origin = performance.now();
  const reads = probe(readSql, (id) => readSql.unsafe("select id, alias, url from links where id = $1", [id], { prepare: false }), origin);
  const writes = probe(writeSql, (id) => writeSql.unsafe("update links set updated_at = updated_at where id = $1", [id], { prepare: false }), origin);
  // A few probes before the migration: what an unblocked probe takes on this machine right now.
  await new Promise((r) => setTimeout(r, 300));
  const started = performance.now();
  const failure = await upgrade().then(
    () => undefined,
    (error: unknown) => error ?? new Error("the upgrade failed"),
  );
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 300));
  const run = { ms, startedAt: started - origin, reads: await reads.stop(), writes: await writes.stop() };
  if (failure !== undefined) throw failure;
  return run;
}

/** Migration 0022 the way the service runs it at start: `migrate()` of @shortener/db. */
async function timedUpgrade(url: string): Promise<ProbedRun> {
  const database = await openDb({ url, poolSize: 2 });
  try {
    return await probed(url, () => migrate(database));
  } finally {
    await database.close();
  }
}

/** `statements` in one transaction, as the migrator would run them, with the probes alongside. */
async function timedStatements(url: string, statements: string[]): Promise<ProbedRun> {
  const sql = connect(url);
  try {
    return await probed(url, () =>
      sql
        .begin(async (tx) => {
          for (const statement of statements) await tx.unsafe(statement);
        })
        .then(() => undefined),
    );
  } finally {
    await sql.end();
  }
}

/** A statement without its comment lines. */
const bare = (statement: string): string =>
  statement
    .split("\n")
    .filter((l) => !l.trim().startsWith("--"))
    .join("\n")
    .trim();
const FK_ADD = /^ALTER TABLE "(\w+)" ADD CONSTRAINT "(\w+)" FOREIGN KEY \("workspace_id"\) (REFERENCES "public"\."workspaces"\("id"\) .*) NOT VALID;$/;
const FK_VALIDATE = /^ALTER TABLE "\w+" VALIDATE CONSTRAINT "\w+_workspace_id_workspaces_id_fk";$/;
const FIRST_RENAME = /^ALTER TABLE "\w+" DROP CONSTRAINT "\w+_user_id_users_id_fk";$/;

/**
 * Other orders of 0022's statements, measured on copies to weigh a change to the migration (it is not
 * changed here). Each is undefined when 0022 no longer has the statements it moves.
 * - `scan-first`: the foreign keys to `workspaces` added (and checked) on `user_id` before any table is
 *   renamed. Adding a foreign key takes SHARE ROW EXCLUSIVE (reads go on, writes wait) and the renames
 *   ACCESS EXCLUSIVE, both held to COMMIT: the scans then block writes only.
 * - `no-validate`: the foreign keys left NOT VALID (new and updated rows are checked; the old rows were
 *   checked against `users`, whose ids the workspaces have), to be validated later outside the
 *   migration's transaction, where VALIDATE takes only SHARE UPDATE EXCLUSIVE.
 */
const VARIANTS: Record<string, (statements: string[]) => string[] | undefined> = {
  "scan-first": (statements) => {
    const adds = statements.map((s) => FK_ADD.exec(bare(s))).filter((m): m is RegExpExecArray => m !== null);
    const at = statements.findIndex((s) => FIRST_RENAME.test(bare(s)));
    if (!adds.length || at < 0) return undefined;
    const early = adds.map(([, table, name, rest]) => `ALTER TABLE "${table}" ADD CONSTRAINT "${name}" FOREIGN KEY ("user_id") ${rest};`);
    const rest = statements.filter((s) => !FK_ADD.test(bare(s)) && !FK_VALIDATE.test(bare(s)));
    const cut = rest.findIndex((s) => FIRST_RENAME.test(bare(s)));
    return [...rest.slice(0, cut), ...early, ...rest.slice(cut)];
  },
  "no-validate": (statements) => {
    const rest = statements.filter((s) => !FK_VALIDATE.test(bare(s)));
    return rest.length < statements.length ? rest : undefined;
  },
};
const VARIANT_NAMES = (process.env.BENCH_VARIANTS ?? "").split(",").filter(Boolean);
for (const name of VARIANT_NAMES) if (!(name in VARIANTS)) throw new Error(`BENCH_VARIANTS: unknown variant "${name}" (known: ${Object.keys(VARIANTS).join(", ")})`);

/** 0022's statements one by one in one transaction, each timed (on a copy: the real run is timed by itself). */
async function timedSteps(url: string): Promise<Array<{ statement: string; ms: number }>> {
  const { statements } = statementsOf(UPGRADE);
  const sql = connect(url);
  const steps: Array<{ statement: string; ms: number }> = [];
  try {
    await sql.begin(async (tx) => {
      for (const statement of statements) {
        const started = performance.now();
        await tx.unsafe(statement);
        steps.push({ statement, ms: performance.now() - started });
      }
    });
  } finally {
    await sql.end();
  }
  return steps;
}

/** The first line of a statement, without its comment lines, shortened for a table cell. */
function brief(statement: string): string {
  const line = statement.split("\n").find((l) => l.trim() && !l.trim().startsWith("--")) ?? statement;
  const short = line
    .replace(/"public"\./g, "")
    .replace(/\s+/g, " ")
    .trim();
  return short.length > 110 ? `${short.slice(0, 107)}…` : short;
}

async function sizeOf(sql: Sql): Promise<string> {
  const [row] = await sql<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
  return row?.size ?? "?";
}

async function cloneDb(name: string, suffix: string): Promise<{ name: string; url: string }> {
  const copy = `${name}_${suffix.replaceAll("-", "_")}`;
  const admin = connect(ADMIN_URL);
  try {
    await admin.unsafe(`create database "${copy}" template "${name}"`);
  } finally {
    await admin.end();
  }
  return { name: copy, url: withDatabase(ADMIN_URL, copy) };
}

/** `startedAt`: when the migration started, on the probes' clock (they start a little earlier). */
function printProbes(label: string, probes: Probe[], startedAt: number): void {
  const s = probeSummary(probes);
  const longest = s.longest ? `${s.longest.ms.toFixed(0)} ms (sent ${seconds(s.longest.at - startedAt)} s into the migration)` : "-";
  console.log(`| ${label} | ${s.count} | ${s.median.toFixed(1)} | ${longest} | ${s.over100} | ${s.errors} |`);
  const firstError = probes.find((p) => p.error);
  if (firstError) console.log(`\n${label}: first error ${seconds(firstError.at - startedAt)} s into the migration: ${firstError.error}\n`);
}

async function main(): Promise<number> {
  const [version] = await (async () => {
    const sql = connect(ADMIN_URL);
    try {
      return await sql<{ v: string }[]>`select current_setting('server_version') as v`;
    } finally {
      await sql.end();
    }
  })();
  console.log(`upgrade benchmark: ${LINKS.toLocaleString("en")} links over ${USERS} users; PostgreSQL ${version?.v ?? "?"}; node ${process.version}; ${cpus().length} CPUs; load ${load()}`);
  const bench = await createBenchDb(ADMIN_URL);
  /** Copies of the seeded database: `steps` for the statement-by-statement run, one per variant. */
  const copies = new Map<string, { name: string; url: string }>();
  let exitCode = 0;
  try {
    log(`database ${bench.name}: migrating to the migration before ${UPGRADE}…`);
    await migrateBeforeUpgrade(bench.url);
    const sql = connect(bench.url);
    let shape: Shape;
    let before: TableSum[];
    try {
      const seedStart = performance.now();
      await seed(sql);
      log(`seeded in ${seconds(performance.now() - seedStart)} s (with VACUUM ANALYZE); database ${await sizeOf(sql)}; load ${load()}`);
      shape = await shapeOf(sql);
      const sumStart = performance.now();
      before = await checksums(sql, shape, false);
      log(`checksums of ${before.length} tables in ${seconds(performance.now() - sumStart)} s`);
    } finally {
      await sql.end();
    }
    for (const use of [...(IS_STEPS ? ["steps"] : []), ...VARIANT_NAMES]) {
      const copy = await cloneDb(bench.name, use);
      copies.set(use, copy);
      log(`copied to ${copy.name} (${use})`);
    }

    log(`migration ${UPGRADE}… with probes on links every ${PROBE_MS} ms; load ${load()}`);
    const run = await timedUpgrade(bench.url);
    log(`migrated in ${seconds(run.ms)} s; load ${load()}`);

    const check = connect(bench.url);
    let after: TableSum[];
    const mismatched: string[] = [];
    try {
      after = await checksums(check, shape, true);
      const [ws] = await check<{ workspaces: number; members: number; keys: number }[]>`
        select (select count(*) from workspaces where id = personal_user_id)::int as workspaces,
               (select count(*) from workspace_members where workspace_id = user_id and role = 'owner')::int as members,
               (select count(*) from api_keys where workspace_id = user_id)::int as keys`;
      const users = before.find((t) => t.table === "users")?.rows ?? 0;
      const keys = before.find((t) => t.table === "api_keys")?.rows ?? 0;
      if (ws?.workspaces !== users || ws.members !== users || ws.keys !== keys) mismatched.push(`workspaces ${JSON.stringify(ws)} for ${users} users and ${keys} keys`);
    } finally {
      await check.end();
    }

    console.log(`\n### Rows and checksums, before → after (${before.length} tables)\n`);
    console.log("| table | rows before | rows after | ids + owner | every old column |");
    console.log("|---|---:|---:|---|---|");
    for (const b of before) {
      const a = after.find((t) => t.table === b.table);
      const isSame = (x: string | undefined, y: string) => (x === y ? "same" : "**DIFFERS**");
      if (!a || a.rows !== b.rows || a.ids !== b.ids || a.full !== b.full) mismatched.push(b.table);
      const owner = b.owner ? ` (${b.owner}${b.owner !== a?.owner ? ` → ${a?.owner}` : ""})` : "";
      console.log(`| ${b.table}${owner} | ${b.rows.toLocaleString("en")} | ${a?.rows.toLocaleString("en") ?? "-"} | ${isSame(a?.ids, b.ids)} | ${isSame(a?.full, b.full)} |`);
    }

    console.log(`\n### Migration ${UPGRADE} on ${LINKS.toLocaleString("en")} links\n`);
    console.log(`Migration time (\`migrate()\`, one transaction): **${seconds(run.ms)} s**; load ${load()}\n`);
    console.log("| probe on links, every ~" + PROBE_MS + " ms | probes | median ms | longest (blocked stretch) | over 100 ms | errors |");
    console.log("|---|---:|---:|---|---:|---:|");
    printProbes("read: select a link by id", run.reads, run.startedAt);
    printProbes("write: update a link by id", run.writes, run.startedAt);

    const stepsCopy = copies.get("steps");
    if (stepsCopy) {
      const steps = await timedSteps(stepsCopy.url);
      const total = steps.reduce((s, x) => s + x.ms, 0);
      const firstLinksLock = steps.findIndex((s) => /ALTER TABLE "links"/.test(s.statement));
      const lockedMs = steps.slice(Math.max(0, firstLinksLock)).reduce((s, x) => s + x.ms, 0);
      console.log(`\n### ${UPGRADE} statement by statement (a copy of the same database, one transaction; load ${load()})\n`);
      console.log(`${steps.length} statements, ${seconds(total)} s; from the first ALTER TABLE "links" (ACCESS EXCLUSIVE until COMMIT) to the end: ${seconds(lockedMs)} s.\n`);
      console.log("| ms | statement |");
      console.log("|---:|---|");
      for (const s of [...steps].sort((a, b) => b.ms - a.ms).slice(0, 12)) console.log(`| ${s.ms.toFixed(1)} | \`${brief(s.statement)}\` |`);
      console.log(
        `| ${steps.slice(12).length ? "…" : ""} | (the other ${Math.max(0, steps.length - 12)} statements: ${(
          total -
          [...steps]
            .sort((a, b) => b.ms - a.ms)
            .slice(0, 12)
            .reduce((s, x) => s + x.ms, 0)
        ).toFixed(0)} ms together) |`,
      );
    }

    if (VARIANT_NAMES.length) {
      const { statements } = statementsOf(UPGRADE);
      const longest = (probes: Probe[]) => `${(probeSummary(probes).longest?.ms ?? Number.NaN).toFixed(0)} ms`;
      const rows = [`| 0022 as committed, \`migrate()\` (above) | ${seconds(run.ms)} | ${longest(run.reads)} | ${longest(run.writes)} |`];
      for (const name of VARIANT_NAMES) {
        const copy = copies.get(name);
        const changed = VARIANTS[name]?.(statements);
        if (!copy || !changed) {
          rows.push(`| ${name} | not applicable: 0022 no longer has the statements it moves | | |`);
          continue;
        }
        log(`variant ${name}: ${changed.length} statements in one transaction, probed; load ${load()}`);
        const variant = await timedStatements(copy.url, changed);
        rows.push(`| ${name} | ${seconds(variant.ms)} | ${longest(variant.reads)} | ${longest(variant.writes)} |`);
      }
      console.log(`\n### Other orders of ${UPGRADE}'s statements (each on its own copy, probed the same way; load ${load()})\n`);
      console.log("| order | seconds | longest read | longest write |");
      console.log("|---|---:|---:|---:|");
      for (const row of rows) console.log(row);
    }

    if (mismatched.length) {
      console.log(`\nNOT KEPT: ${mismatched.join("; ")}`);
      exitCode = 1;
    } else {
      console.log(`\nEvery row kept: the same row count, ids, owner values and old columns in all ${before.length} tables.`);
    }
    console.log(`\n${new Date().toISOString()}, load ${load()}`);
  } finally {
    if (KEEP_DB) {
      console.log(`kept ${[bench.name, ...[...copies.values()].map((c) => c.name)].join(", ")}`);
    } else {
      for (const copy of copies.values()) await dropBenchDb(ADMIN_URL, copy.name);
      await dropBenchDb(ADMIN_URL, bench.name);
    }
  }
  return exitCode;
}

process.exitCode = await main();
