import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_FOLDER, queryRows, sql, type Database, type Db } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLICK_DEFAULT_PARTITION,
  createDomain,
  createLink,
  dropExpiredClickPartitions,
  ensureClickPartitions,
  getStats,
  listClickPartitions,
  recordClicks,
  type CreateLinkInput,
  type GetStatsInput,
} from "../src/index.ts";
import { createTestUser, openTestDb, testClick as click, unique, type TestUser } from "../src/testing/index.ts";

// CONTRACT §20, migration 0015, docs/adr/0025-clicks-partitioned-by-month.md. The months used here
// (2031–2033) are far from the ones the migration made around today, and this file has its own database.

let database: Database;
beforeAll(async () => {
  database = await openTestDb({ poolSize: 4 });
});
afterAll(async () => {
  await database?.close();
});

async function owner(): Promise<TestUser & { link(): Promise<number> }> {
  const user = await createTestUser(database.db);
  const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
  return {
    ...user,
    async link() {
      return (await createLink({ ctx: user.ctx, input: { url: "https://dest.example/", domain_id: domain.id } as CreateLinkInput })).id;
    },
  };
}

/** Which table holds a link's clicks: partition name → clicks. */
async function placement(db: Db, linkId: number): Promise<Record<string, number>> {
  const rows = await queryRows<{ part: string; n: number }>(db, sql`select tableoid::regclass::text as part, sum(count)::int as n from clicks where link_id = ${linkId} group by 1`);
  return Object.fromEntries(rows.map((r) => [r.part, r.n]));
}

async function isPartitioned(db: Db, table: string): Promise<boolean> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from pg_partitioned_table where partrelid = to_regclass(${table})`);
  return row?.n === 1;
}

const names = async () => (await listClickPartitions(database.db)).map((p) => p.name);

describe("clicks partitioned by month (CONTRACT §20)", () => {
  it("the migrated clicks is partitioned by range of created_at, with a default partition and this month's and the next", async () => {
    expect(await isPartitioned(database.db, "clicks")).toBe(true);
    const [strategy] = await queryRows<{ strategy: string; key: string }>(
      database.db,
      sql`select partstrat as strategy, pg_get_partkeydef(partrelid) as key from pg_partitioned_table where partrelid = 'clicks'::regclass`,
    );
    expect(strategy).toEqual({ strategy: "r", key: "RANGE (created_at)" });
    const children = await queryRows<{ name: string }>(database.db, sql`select inhrelid::regclass::text as name from pg_inherits where inhparent = 'clicks'::regclass`);
    expect(children.map((c) => c.name)).toContain(CLICK_DEFAULT_PARTITION);
    const now = new Date();
    const thisMonth = `clicks_${now.getUTCFullYear()}_${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const nextMonth = `clicks_${next.getUTCFullYear()}_${String(next.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(await names()).toEqual(expect.arrayContaining([thisMonth, nextMonth]));
    // The parent's index reaches every partition.
    const [index] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from pg_inherits where inhparent = 'clicks_link_id_created_at_idx'::regclass`);
    expect(index?.n).toBe(children.length);
  });

  it("the migration moves an existing unpartitioned clicks table, rows and all, into monthly partitions", async () => {
    const source = readFileSync(join(MIGRATIONS_FOLDER, "0015_clicks_partitioned.sql"), "utf8");
    const statements = source.split("--> statement-breakpoint");
    const schema = unique("m");
    const result = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`create schema ${schema}`));
        await tx.execute(sql.raw(`set local search_path to ${schema}, public`));
        // clicks as migrations 0001–0014 left it.
        await tx.execute(
          sql.raw(`create table clicks (link_id integer not null, created_at timestamptz default now() not null, country text, platform text, browser text,
                   device text, language text, referrer text, count integer default 1 not null)`),
        );
        await tx.execute(sql.raw(`create index clicks_link_id_created_at_idx on clicks using btree (link_id, created_at)`));
        await tx.execute(
          sql.raw(`insert into clicks (link_id, created_at, country, count) values
                   (1, '2025-01-31 23:59:59.999+00', 'FR', 2), (1, '2025-02-01 00:00:00+00', 'DE', 1), (2, '2025-04-15 12:00:00-05', null, 5)`),
        );
        for (const statement of statements) await tx.execute(sql.raw(statement));
        const partitioned = await isPartitioned(tx, `${schema}.clicks`);
        const parts = (await listClickPartitions(tx)).map((p) => p.name);
        const rows = await queryRows<{ part: string; link: number; at: string; country: string | null; count: number }>(
          tx,
          sql.raw(`select tableoid::regclass::text as part, link_id as link, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as at, country, count
                   from clicks order by created_at`),
        );
        const [index] = await queryRows<{ n: number }>(tx, sql.raw(`select count(*)::int as n from pg_indexes where schemaname = '${schema}' and indexname = 'clicks_link_id_created_at_idx'`));
        const [old] = await queryRows<{ gone: boolean }>(tx, sql.raw(`select to_regclass('${schema}.clicks_unpartitioned') is null as gone`));
        throw Object.assign(new Error("rollback"), { found: { partitioned, parts, rows, index: index?.n, oldGone: old?.gone } });
      })
      .catch((e: { found?: unknown }) => {
        if (!e.found) throw e;
        return e.found as { partitioned: boolean; parts: string[]; rows: Array<Record<string, unknown>>; index: number; oldGone: boolean };
      });
    expect(result.partitioned).toBe(true);
    expect(result.oldGone).toBe(true);
    expect(result.index).toBe(1);
    // Every month from the oldest click's to the next month, with no gap.
    const now = new Date();
    const expected: string[] = [];
    for (let m = new Date(Date.UTC(2025, 0, 1)); m <= new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)); m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))) {
      expected.push(`clicks_${m.getUTCFullYear()}_${String(m.getUTCMonth() + 1).padStart(2, "0")}`);
    }
    expect(result.parts).toEqual(expected);
    expect(result.rows).toEqual([
      { part: "clicks_2025_01", link: 1, at: "2025-01-31 23:59:59.999", country: "FR", count: 2 },
      { part: "clicks_2025_02", link: 1, at: "2025-02-01 00:00:00.000", country: "DE", count: 1 },
      { part: "clicks_2025_04", link: 2, at: "2025-04-15 17:00:00.000", country: null, count: 5 },
    ]);
    // Rolled back: the real clicks is untouched.
    expect(await isPartitioned(database.db, "clicks")).toBe(true);
  });

  it("ensure makes this month and the next ones, moves the default partition's clicks into them, and is idempotent", async () => {
    const user = await owner();
    const id = await user.link();
    // Before their months exist, clicks wait in the default partition.
    await recordClicks(database.db, [click(id, "2031-03-01T00:00:00Z", { count: 3 }), click(id, "2031-04-30T23:59:59Z"), click(id, "2031-07-10T10:00:00Z")]);
    expect(await placement(database.db, id)).toEqual({ [CLICK_DEFAULT_PARTITION]: 5 });

    const made = await ensureClickPartitions(database.db, new Date("2031-03-15T12:00:00Z"));
    expect(made).toEqual(["clicks_2031_03", "clicks_2031_04", "clicks_2031_05"]);
    expect(await placement(database.db, id)).toEqual({ clicks_2031_03: 3, clicks_2031_04: 1, [CLICK_DEFAULT_PARTITION]: 1 });
    const bounds = (await listClickPartitions(database.db)).find((p) => p.name === "clicks_2031_04");
    expect(bounds).toEqual({ name: "clicks_2031_04", from: new Date("2031-04-01T00:00:00Z"), to: new Date("2031-05-01T00:00:00Z") });

    // New clicks go straight to their month.
    await recordClicks(database.db, [click(id, "2031-05-31T23:59:59.999Z", { count: 2 })]);
    expect(await placement(database.db, id)).toMatchObject({ clicks_2031_05: 2 });

    // Every partition made has the parent's index.
    const [unindexed] = await queryRows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from pg_inherits p where p.inhparent = 'clicks'::regclass
          and not exists (select 1 from pg_index x join pg_inherits i on i.inhrelid = x.indexrelid
                          where x.indrelid = p.inhrelid and i.inhparent = 'clicks_link_id_created_at_idx'::regclass)`,
    );
    expect(unindexed?.n).toBe(0);
    // The bounds read the same whatever the session's time zone and date style.
    const elsewhere = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`set local timezone = 'America/St_Johns'`);
        await tx.execute(sql`set local datestyle = 'SQL, DMY'`);
        throw Object.assign(new Error("rollback"), { found: await listClickPartitions(tx) });
      })
      .catch((e: { found?: unknown }) => e.found);
    expect(elsewhere).toEqual(await listClickPartitions(database.db));

    const before = await names();
    expect(await ensureClickPartitions(database.db, new Date("2031-03-15T12:00:00Z"))).toEqual([]);
    expect(await ensureClickPartitions(database.db, new Date("2031-04-01T00:00:00Z"))).toEqual(["clicks_2031_06"]);
    expect(await names()).toEqual([...before, "clicks_2031_06"].sort());
  });

  it("ensure is safe when several run at once", async () => {
    const now = new Date("2032-12-31T23:59:59Z");
    const runs = await Promise.all(Array.from({ length: 4 }, () => ensureClickPartitions(database.db, now)));
    expect(runs.flat().sort()).toEqual(["clicks_2032_12", "clicks_2033_01", "clicks_2033_02"]);
    expect(await names()).toEqual(expect.arrayContaining(["clicks_2032_12", "clicks_2033_01", "clicks_2033_02"]));
    expect(await ensureClickPartitions(database.db, now)).toEqual([]);
  });

  it("retention drops only whole partitions older than the cutoff; statistics stay the same", async () => {
    expect(await ensureClickPartitions(database.db, new Date("2031-07-01T00:00:00Z"))).toEqual(["clicks_2031_07", "clicks_2031_08", "clicks_2031_09"]);
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [
      click(id, "2031-03-10T08:00:00Z", { country: "FR", count: 4 }),
      click(id, "2031-04-20T09:00:00Z", { country: "DE" }),
      click(id, "2031-05-02T10:00:00Z", { country: "FR", count: 2 }),
      click(id, "2031-08-05T10:00:00Z", { country: "BR" }),
    ]);
    const read = async (input: Omit<GetStatsInput, "link_id">) => (await getStats({ ctx: { ...user.ctx, now: () => new Date("2031-08-30T00:00:00Z") }, input: { link_id: id, ...input } })).data;
    const range = { from: "2031-03-01", to: "2031-08-30" } as const;
    const daily = await read({ name: "clicks", ...range });
    const countries = await read({ name: "country", ...range });
    expect(daily.reduce((sum, r) => sum + r.count, 0)).toBe(8);
    expect(countries).toEqual([
      { value: "FR", count: 6 },
      { value: "BR", count: 1 },
      { value: "DE", count: 1 },
    ]);

    // 2031-06-10 minus 40 days is 2031-05-01: March and April end by then, May does not.
    const dropped = await dropExpiredClickPartitions(database.db, new Date("2031-06-10T00:00:00Z"), 40);
    expect(dropped).toEqual(expect.arrayContaining(["clicks_2031_03", "clicks_2031_04"]));
    expect(dropped).not.toContain("clicks_2031_05");
    expect(dropped.every((name) => name < "clicks_2031_05")).toBe(true);
    const left = await names();
    expect(left).not.toContain("clicks_2031_03");
    expect(left).toEqual(expect.arrayContaining(["clicks_2031_05", "clicks_2031_06", "clicks_2031_07", "clicks_2031_08"]));
    expect(await placement(database.db, id)).toEqual({ clicks_2031_05: 2, clicks_2031_08: 1 });
    // Nothing older than the cutoff is left in the default partition either.
    const [old] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from clicks_default where created_at < '2031-05-01T00:00:00Z'`);
    expect(old?.n).toBe(0);

    expect(await read({ name: "clicks", ...range })).toEqual(daily);
    expect(await read({ name: "country", ...range })).toEqual(countries);
    expect(await dropExpiredClickPartitions(database.db, new Date("2031-06-10T00:00:00Z"), 40)).toEqual([]);
  });
});
