import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, MIGRATIONS_FOLDER, openDb, queryRows, sql, type Database } from "@shortener/db";
import { freePort } from "@shortener/db/testing";
import { parseEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";
import { useServerStorage } from "./helpers.ts";

/**
 * CONTRACT §22: a database written by the first release, 0.1.0, upgrades to this one with every row
 * intact, on both drivers. The fixture (fixtures/v0.1.0/README.md) is that release's own database after
 * a data set made through its own API, and what its API answered then. The test loads it into empty
 * storage, runs this release's migrations on top of the ones it had applied, compares every table of
 * the old release row by row and column by column before and after, then starts this release on it and
 * asks its API and visitor side for the same links, keys, counts and statistics.
 */
const FIXTURE = new URL("./fixtures/v0.1.0/", import.meta.url);
const DUMP = readFileSync(new URL("database.sql", FIXTURE), "utf8");
const EXPECTED = JSON.parse(readFileSync(new URL("expected.json", FIXTURE), "utf8")) as Expected;
/** The release, from the one place it is written. */
const RELEASE = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const JOURNAL = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
/** The migrations 0.1.0 had applied (0000 to 0011). */
const OLD_MIGRATIONS = 12;
/** Two loads of the database and a whole start of the service: PGlite on a busy machine takes a while. */
const SLOW = 180_000;

type Json = Record<string, any>;
type Expected = {
  release: string;
  keys: { admin: string; ada: string; bob: string; bobRevoked: string };
  host: string;
  ids: Record<string, number>;
  statsRange: string;
  accounts: Record<string, Json>;
  links: { ada: Json[]; admin: Json[] };
  domains: Json[];
  spaces: Json[];
  pixels: Json[];
  imports: Json[];
  statsPlain: Record<string, Json[]>;
  statsByCountry: Json[];
};

/** Every table of the old release, with its columns then: what the upgrade must keep. */
type OldTable = { name: string; columns: string[] };

async function listTables(database: Database): Promise<OldTable[]> {
  const rows = await queryRows<{ name: string; columns: string[] }>(
    database.db,
    sql`select format('%I.%I', c.table_schema, c.table_name) as name, array_agg(c.column_name::text order by c.ordinal_position) as columns
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
        where c.table_schema in ('public', 'drizzle', 'pgboss')
        group by c.table_schema, c.table_name order by 1`,
  );
  return rows.map((row) => ({ name: row.name, columns: typeof row.columns === "string" ? parsePgArray(row.columns) : row.columns }));
}

/** PGlite answers a text[] as its literal (`{a,b}`) for an array_agg of `::text`: column names need no quoting here. */
function parsePgArray(literal: string): string[] {
  return literal.replace(/^\{|\}$/g, "").split(",");
}

/**
 * The columns a later migration renamed, `table → old → new`: read under their new names and compared
 * under their old ones, so the test still asks for every value unchanged. Migration 0022 (CONTRACT
 * §24) renamed each owned table's owner column `user_id` to `workspace_id`, its values kept (each
 * user's personal workspace has the user's id).
 */
const RENAMED: Record<string, Record<string, string>> = Object.fromEntries(
  ["domains", "spaces", "pixels", "links", "import_jobs", "link_counts", "webhooks", "webhook_events", "account_stats_daily"].map((t) => [`public.${t}`, { user_id: "workspace_id" }]),
);

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Each table's rows, as JSON text of the given columns, sorted: equal snapshots mean equal rows, whatever the order on disk. `renamed`: read renamed columns by their new names. */
async function snapshot(database: Database, tables: OldTable[], renamed: Record<string, Record<string, string>> = {}): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const table of tables) {
    const columns = table.columns.map((c) => (renamed[table.name]?.[c] ? `${quoted(renamed[table.name]?.[c] as string)} as ${quoted(c)}` : quoted(c))).join(", ");
    const rows = await queryRows<{ row: string }>(database.db, sql.raw(`select to_jsonb(t)::text as row from (select ${columns} from ${table.name}) t`));
    out.set(table.name, rows.map((r) => r.row).sort());
  }
  return out;
}

/** `value` cut to the keys `shape` has, at every depth: the fields 0.1.0 answered, whatever this release adds. */
function pick(value: unknown, shape: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(value)) return value.map((v, i) => pick(v, shape[i] ?? shape[0]));
  if (shape && typeof shape === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    return Object.fromEntries(Object.keys(shape).map((k) => [k, pick((value as Json)[k], (shape as Json)[k])]));
  }
  return value;
}

/** A request with its own Host header (fetch cannot set one). */
function visit(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { host: EXPECTED.host, ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

const storage = useServerStorage();
let tables: OldTable[] = [];
let before = new Map<string, string[]>();
let after = new Map<string, string[]>();
let journalBefore = 0;
let journalAfter = 0;
let clicksKind = "";
let unverifiedDomains = -1;
/** The accounts' clicks per link after the upgrade (migration 0031's table), what 0.1.0's rollups say they are, and the `link` rows left behind. */
let accountLinks: string[] = [];
let linksClicks: string[] = [];
let linkRowsLeft = -1;
let running: RunningServer | undefined;
let port = 0;

/** The storage's database; on Postgres a pool of 2: `migrate` holds one connection for its lock and migrates on another. */
function open(): Promise<Database> {
  const { DATABASE_URL, DATA_DIR } = storage.settings;
  return DATABASE_URL ? openDb({ url: DATABASE_URL, poolSize: 2 }) : openDb({ dataDir: DATA_DIR });
}

beforeAll(async () => {
  // Load 0.1.0's database as pg_dump wrote it, then close that connection: the dump empties search_path.
  const loader = await open();
  try {
    if (loader.pglite) await loader.pglite.exec(DUMP);
    else await loader.postgres?.unsafe(DUMP);
  } finally {
    await loader.close();
  }
  const database = await open();
  try {
    tables = await listTables(database);
    before = await snapshot(database, tables);
    journalBefore = (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]?.n ?? 0;
    await migrate(database);
    after = await snapshot(database, tables, RENAMED);
    journalAfter = (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]?.n ?? 0;
    clicksKind = (await queryRows<{ kind: string }>(database.db, sql`select relkind::text as kind from pg_class where oid = 'public.clicks'::regclass`))[0]?.kind ?? "";
    unverifiedDomains = (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from domains where verified_at is null`))[0]?.n ?? -1;
    const rowsOf = async (query: ReturnType<typeof sql>) => (await queryRows<{ r: string }>(database.db, query)).map((x) => x.r).sort();
    accountLinks = await rowsOf(sql`select workspace_id || '|' || day || '|' || link_id || '|' || count as r from account_link_daily`);
    linksClicks = await rowsOf(
      sql`select l.workspace_id || '|' || s.day || '|' || s.link_id || '|' || sum(s.count) as r from link_stats_daily s join links l on l.id = s.link_id
          where s.dimension = 'clicks' group by l.workspace_id, s.day, s.link_id`,
    );
    linkRowsLeft = (await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from account_stats_daily where dimension = 'link'`))[0]?.n ?? -1;
  } finally {
    await database.close();
  }
  port = await freePort();
  running = await startServer(parseEnv({ ...storage.settings, PORT: String(port), GEO_COUNTRY_HEADER: "x-country" }), pino({ level: "silent" }));
}, SLOW);

afterAll(async () => {
  await running?.close();
});

async function api(key: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });
  return { status: res.status, body: (await res.json()) as Json };
}

describe(`upgrading 0.1.0's database to this release`, () => {
  it("applies this release's migrations on top of 0.1.0's", () => {
    expect(EXPECTED.release).toBe("0.1.0");
    expect(journalBefore).toBe(OLD_MIGRATIONS);
    expect(journalAfter).toBe(JOURNAL.entries.length);
    expect(journalAfter).toBeGreaterThan(OLD_MIGRATIONS);
  });

  it("keeps every row of every table of 0.1.0, column by column", () => {
    const counts = Object.fromEntries([...before].map(([name, rows]) => [name, rows.length]));
    console.log(`0.1.0's rows (${storage.settings.DATABASE_URL ? "postgres" : "pglite"}): ${JSON.stringify(counts)}`);
    // The fixture is a complete data set: users, keys, domains, spaces, pixels, links, clicks, rollups, an import.
    for (const table of ["users", "api_keys", "domains", "spaces", "pixels", "links", "link_pixels", "clicks", "link_stats_daily", "link_counts", "import_jobs", "import_errors", "settings"]) {
      expect(counts[`public.${table}`], table).toBeGreaterThan(0);
    }
    for (const table of tables) {
      const old = before.get(table.name) ?? [];
      const now = after.get(table.name) ?? [];
      if (table.name === "drizzle.__drizzle_migrations") expect(now).toEqual(expect.arrayContaining(old));
      else expect(now, table.name).toEqual(old);
    }
  });

  it("moved the clicks into the partitioned table (migration 0015) and kept 0.1.0's domains serving (0012)", () => {
    expect(clicksKind).toBe("p");
    expect(unverifiedDomains).toBe(0);
  });

  it("keeps each account's clicks per link (migration 0020's backfill) in account_link_daily (0031), and ranks the top links by them", async () => {
    expect(accountLinks.length).toBeGreaterThan(0);
    expect(accountLinks).toEqual(linksClicks);
    expect(linkRowsLeft).toBe(0);
    const res = await api(EXPECTED.keys.ada, `/stats?name=links&${EXPECTED.statsRange}`);
    expect(res.status).toBe(200);
    const day = /from=([\d-]+)/.exec(EXPECTED.statsRange)?.[1];
    const ranked = accountLinks
      .map((row) => row.split("|"))
      .filter(([workspace, on]) => workspace === String(EXPECTED.accounts.ada?.id) && on === day)
      .map(([, , id, count]) => ({ id: Number(id), count: Number(count) }))
      .sort((a, b) => b.count - a.count || a.id - b.id);
    expect(ranked.length).toBeGreaterThan(1);
    expect((res.body.data as Json[]).map((row) => ({ id: row.id, count: row.count }))).toEqual(ranked);
  });

  it("answers /healthz with this release's version", async () => {
    expect(running?.boot.created).toBe(false);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await res.json()).toEqual({ status: "ok", version: RELEASE });
  });

  it("authenticates 0.1.0's keys with their old secrets, and keeps a revoked one revoked", async () => {
    for (const [who, account] of Object.entries(EXPECTED.accounts)) {
      const res = await api(EXPECTED.keys[who as keyof Expected["keys"]], "/account");
      expect(res.status, who).toBe(200);
      expect(pick(res.body.data, account), who).toEqual(account);
    }
    expect((await api(EXPECTED.keys.bobRevoked, "/account")).status).toBe(401);
  });

  it("reads back every link, domain, space, pixel and import as 0.1.0 answered them", async () => {
    for (const [who, key] of [
      ["ada", EXPECTED.keys.ada],
      ["admin", EXPECTED.keys.admin],
    ] as const) {
      const links = (await api(key, "/links?per_page=100&sort=asc")).body.data as Json[];
      expect(links.length, who).toBe(EXPECTED.links[who].length);
      expect(pick(links, EXPECTED.links[who]), who).toEqual(EXPECTED.links[who]);
    }
    for (const kind of ["domains", "spaces", "pixels"] as const) {
      const list = (await api(EXPECTED.keys.ada, `/${kind}?per_page=100&sort=asc`)).body.data as Json[];
      expect(pick(list, EXPECTED[kind]), kind).toEqual(EXPECTED[kind]);
    }
    const imports = (await api(EXPECTED.keys.ada, "/imports")).body.data as Json[];
    expect(pick(imports, EXPECTED.imports)).toEqual(EXPECTED.imports);
  });

  it("reads the same statistics from 0.1.0's rollups", async () => {
    for (const [name, rows] of Object.entries(EXPECTED.statsPlain)) {
      const res = await api(EXPECTED.keys.ada, `/stats/${EXPECTED.ids.plain}?name=${name}&${EXPECTED.statsRange}`);
      expect(res.status, name).toBe(200);
      // This release adds fields to some rows (`unique` and `bots` on clicks, `bots` on clicks_hour): 0.1.0's
      // values are all still there, and its days had no visitors recorded, so their `unique` is 0.
      expect(res.body.data, name).toEqual((rows as Json[]).map((row) => expect.objectContaining(row)));
      if (name === "clicks") for (const row of res.body.data as Json[]) expect(row, name).toMatchObject({ unique: 0, bots: 0 });
    }
    expect((await api(EXPECTED.keys.ada, `/stats/${EXPECTED.ids.byCountry}?name=country&${EXPECTED.statsRange}`)).body.data).toEqual(EXPECTED.statsByCountry);
  });

  it("sends 0.1.0's visitors where 0.1.0 did: targeting, passwords, expiry, disabled links", async () => {
    const cases: Array<[string, string, Record<string, string>, number, string | undefined, string?]> = [
      ["a plain link (pixels skipped: DNT)", "/plain", { dnt: "1" }, 302, "https://example.com/landing?utm_source=fixture#top"],
      ["country targeting", "/by-country", { "x-country": "DE" }, 302, "https://de.example.com/"],
      ["platform targeting", "/by-platform", { "user-agent": IPHONE }, 302, "https://apps.apple.com/app"],
      ["language targeting", "/by-language", { "accept-language": "de" }, 302, "https://example.com/de"],
      ["a link used up by its click limit", "/one-shot", {}, 302, "https://example.com/used"],
      ["a link with an expiration date to come", "/expiring", {}, 302, "https://example.com/sale"],
      ["a disabled link", "/off", {}, 404, undefined],
      ["a password link's form", "/secret", {}, 200, undefined],
      ["an imported password link's form", "/imported-2", {}, 200, undefined],
      ["the right password", "/secret", { "content-type": "application/x-www-form-urlencoded" }, 302, "https://example.com/secret", "password=open-sesame"],
      ["a wrong password", "/secret", { "content-type": "application/x-www-form-urlencoded" }, 401, undefined, "password=nope"],
      ["the domain's index page", "/", {}, 302, "https://example.com/home"],
      ["an unknown alias: the domain's not-found page", "/no-such-alias", {}, 302, "https://example.com/missing"],
    ];
    for (const [name, path, headers, status, location, body] of cases) {
      const res = await visit(port, body ? "POST" : "GET", path, { "user-agent": BROWSER, ...headers }, body);
      expect({ name, status: res.status, location: res.location }).toEqual({ name, status, location });
    }
  });

  it("counts new clicks on 0.1.0's links and creates links beside them", async () => {
    const old = EXPECTED.links.ada.find((link) => link.id === EXPECTED.ids.rotating);
    expect(old).toBeDefined();
    expect((await visit(port, "GET", "/rotating", { "user-agent": BROWSER })).status).toBe(302);
    let clicks = -1;
    for (let i = 0; i < 100 && clicks !== old?.clicks + 1; i++) {
      clicks = (await api(EXPECTED.keys.ada, `/links/${EXPECTED.ids.rotating}`)).body.data.clicks;
      if (clicks !== old?.clicks + 1) await new Promise((r) => setTimeout(r, 100));
    }
    expect(clicks).toBe(old?.clicks + 1);
    const domainId = EXPECTED.domains.find((d) => d.name === EXPECTED.host)?.id;
    const created = await api(EXPECTED.keys.ada, "/links", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `url=https%3A%2F%2Fexample.com%2Fnew&domain_id=${domainId}&alias=after-upgrade`,
    });
    expect(created.status).toBe(201);
    const maxOld = Math.max(...EXPECTED.links.ada.map((link) => link.id as number), ...EXPECTED.links.admin.map((link) => link.id as number));
    expect(created.body.data.id).toBeGreaterThan(maxOld);
  });
});
