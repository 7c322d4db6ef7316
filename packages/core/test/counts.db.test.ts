import { sql } from "drizzle-orm";
import { migrate, queryRows, webhooks, type Database } from "@shortener/db";
import { migrateBefore, openEmptyDb } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDomain,
  createLink,
  dropPastVisitorDays,
  findOrCreateVisitorSalt,
  getAccountStats,
  recordClicks,
  recordDomainVisits,
  visitorHash,
  type Click,
  type CreateLinkInput,
} from "../src/index.ts";
import { createTestUser, openTestDb, seededRandom, testClick as click, unique, type TestUser } from "../src/testing/index.ts";

/** CONTRACT §21 on the write side: people and bots, unique visitors, accounts' rollups, visitor salts, orphan visits. */
let database: Database;
beforeAll(async () => {
  database = await openTestDb({ poolSize: 12 });
});
afterAll(async () => {
  await database?.close();
});

async function owner(): Promise<TestUser & { domainId: number; link(input?: Partial<CreateLinkInput>): Promise<number> }> {
  const user = await createTestUser(database.db);
  const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
  return {
    ...user,
    domainId: domain.id,
    async link(input = {}) {
      const link = await createLink({ ctx: user.ctx, input: { url: "https://dest.example/", domain_id: domain.id, ...input } as CreateLinkInput });
      return link.id;
    },
  };
}

/** `dimension|day|value|count` rows of a link's rollups, sorted. */
async function linkRollups(linkId: number): Promise<string[]> {
  const rows = await queryRows<{ r: string }>(database.db, sql`select dimension || '|' || day::text || '|' || value || '|' || count::text as r from link_stats_daily where link_id = ${linkId}`);
  return rows.map((x) => x.r).sort();
}

/** `dimension|day|value|count` rows of an account's rollups, its clicks per link as `link|day|link id|count`, sorted. */
async function accountRollups(workspaceId: number): Promise<string[]> {
  const rows = await queryRows<{ r: string }>(
    database.db,
    sql`select dimension || '|' || day::text || '|' || value || '|' || count::text as r from account_stats_daily where workspace_id = ${workspaceId}
        union all
        select 'link|' || day::text || '|' || link_id || '|' || count::text from account_link_daily where workspace_id = ${workspaceId}`,
  );
  return rows.map((x) => x.r).sort();
}

/** 16 hex digits, as the visitor side makes them. */
const hex = (n: number) => n.toString(16).padStart(16, "0");

/** The `n`-th visitor of bucket `bucket` (the hash's top 7 bits, docs/adr/0056-visitor-sets.md): 16 hex digits. */
const inBucket = (bucket: number, n: number) => ((BigInt(bucket) << 57n) | BigInt(n)).toString(16).padStart(16, "0");

/** The visitors stored for these links: in their sets, and past full buckets one row each. */
async function storedVisitors(linkIds: number[]): Promise<{ inSets: number; inRows: number }> {
  const ids = `{${linkIds.join(",")}}`;
  const [row] = await queryRows<{ sets: string; rows: string }>(
    database.db,
    sql`select (select coalesce(sum(cardinality(visitors)), 0) from link_visitor_sets where link_id = any(${ids}::int[]))::text as sets,
               (select count(*) from link_visitors where link_id = any(${ids}::int[]))::text as rows`,
  );
  return { inSets: Number(row?.sets), inRows: Number(row?.rows) };
}

describe("recordClicks: people, bots and unique visitors", () => {
  it("bots are counted by name and hour only: no click row, no counter, no webhook event, no unique", async () => {
    const user = await owner();
    await database.db.insert(webhooks).values({ workspaceId: user.workspaceId, url: "https://hooks.example/", events: ["link.clicked"], secret: "s" });
    const id = await user.link();
    await recordClicks(database.db, [
      { ...click(id, "2026-03-01T10:00:00Z", { browser: "Chrome" }), visitors: [hex(1)] },
      { ...click(id, "2026-03-01T10:30:00Z"), bot: "Googlebot", count: 4 },
      { ...click(id, "2026-03-01T11:00:00Z"), bot: "Slackbot", visitors: [hex(2)] },
      { ...click(id, "2026-03-01T11:00:00Z"), bot: "HEAD request" },
    ]);
    expect(await linkRollups(id)).toEqual(
      [
        "bots_hour|2026-03-01|10|4",
        "bots_hour|2026-03-01|11|2",
        "bots|2026-03-01|Googlebot|4",
        "bots|2026-03-01|HEAD request|1",
        "bots|2026-03-01|Slackbot|1",
        "browser|2026-03-01|Chrome|1",
        "clicks_hour|2026-03-01|10|1",
        "clicks|2026-03-01||1",
        "country|2026-03-01||1",
        "device|2026-03-01||1",
        "language|2026-03-01||1",
        "platform|2026-03-01||1",
        "referrer|2026-03-01||1",
        "unique|2026-03-01||1",
      ].sort(),
    );
    const [raw] = await queryRows<{ n: string }>(database.db, sql`select coalesce(sum(count), 0)::text as n from clicks where link_id = ${id}`);
    expect(raw?.n).toBe("1");
    const [counter] = await queryRows<{ clicks: number }>(database.db, sql`select clicks from links where id = ${id}`);
    expect(Number(counter?.clicks)).toBe(1);
    const events = await queryRows<{ data: string }>(database.db, sql`select data::text as data from webhook_events where workspace_id = ${user.workspaceId}`);
    expect(events.map((e) => (JSON.parse(e.data) as { clicks: number }).clicks)).toEqual([1]);
    expect(await accountRollups(user.workspaceId)).toEqual(
      [
        "bots|2026-03-01|Googlebot|4",
        "bots|2026-03-01|HEAD request|1",
        "bots|2026-03-01|Slackbot|1",
        "browser|2026-03-01|Chrome|1",
        "clicks|2026-03-01||1",
        "country|2026-03-01||1",
        "device|2026-03-01||1",
        "language|2026-03-01||1",
        `link|2026-03-01|${id}|1`,
        "platform|2026-03-01||1",
        "referrer|2026-03-01||1",
        "unique|2026-03-01||1",
      ].sort(),
    );
  });

  it("a batch of only bots writes bots and nothing else", async () => {
    const user = await owner();
    const id = await user.link();
    await recordClicks(database.db, [{ ...click(id, "2026-03-02T00:00:00Z"), bot: "x".repeat(300) }]);
    expect(await linkRollups(id)).toEqual([`bots_hour|2026-03-02|00|1`, `bots|2026-03-02|${"x".repeat(255)}|1`]);
    expect(await accountRollups(user.workspaceId)).toEqual([`bots|2026-03-02|${"x".repeat(255)}|1`]);
  });

  it("unique counts each visitor once per link and day, across rows, batches and days; identical clicks of different people count apart", async () => {
    const user = await owner();
    const a = await user.link();
    const b = await user.link();
    await recordClicks(database.db, [
      // One row for three identical clicks of two people.
      { ...click(a, "2026-03-03T08:00:00Z"), count: 3, visitors: [hex(1), hex(2)] },
      { ...click(a, "2026-03-03T09:00:00Z", { country: "FR" }), visitors: [hex(2)] },
      // The same hash on another link is another visitor (the hash holds the link).
      { ...click(b, "2026-03-03T09:00:00Z"), visitors: [hex(2)] },
      // Another day: counted again.
      { ...click(a, "2026-03-04T00:00:00Z"), visitors: [hex(1)] },
    ]);
    await recordClicks(database.db, [{ ...click(a, "2026-03-03T23:00:00Z"), visitors: [hex(1), hex(3)] }]);
    const uniqueOf = async (linkId: number) => (await linkRollups(linkId)).filter((r) => r.startsWith("unique|"));
    expect(await uniqueOf(a)).toEqual(["unique|2026-03-03||3", "unique|2026-03-04||1"]);
    expect(await uniqueOf(b)).toEqual(["unique|2026-03-03||1"]);
    expect((await accountRollups(user.workspaceId)).filter((r) => r.startsWith("unique|"))).toEqual(["unique|2026-03-03||4", "unique|2026-03-04||1"]);
    expect(await storedVisitors([a, b])).toEqual({ inSets: 5, inRows: 0 });
  });

  it("concurrent batches over shared links, users and visitors: unique exact, no deadlock, accounts = the sum of their links", async () => {
    const users = [await owner(), await owner()];
    const ids = await Promise.all(users.flatMap((u) => [u.link(), u.link(), u.link()]));
    const random = seededRandom(29);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
    const days = ["2026-04-01", "2026-04-02"];
    const batches: Click[][] = Array.from({ length: 16 }, () =>
      Array.from({ length: 150 }, () => {
        const day = pick(days);
        const bot = random() < 0.2 ? pick(["Googlebot", "Slackbot", "HEAD request"]) : null;
        return {
          ...click(pick(ids), `${day}T${String(Math.floor(random() * 24)).padStart(2, "0")}:00:00Z`, { country: pick(["FR", "DE", null]), referrer: pick(["t.co", null]) }),
          ...(bot ? { bot } : { visitors: [hex(Math.floor(random() * 40))] }),
          count: 1 + Math.floor(random() * 3),
        };
      }),
    );
    // Shuffled differently in every batch: the statement sorts what it locks.
    await Promise.all(batches.map((batch) => recordClicks(database.db, batch)));

    const expectedUnique = new Map<string, number>();
    const seen = new Set<string>();
    for (const c of batches.flat()) {
      for (const v of c.visitors ?? []) {
        const key = `${c.linkId}|${c.at.toISOString().slice(0, 10)}|${v}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const k = `${c.linkId}|${c.at.toISOString().slice(0, 10)}`;
        expectedUnique.set(k, (expectedUnique.get(k) ?? 0) + 1);
      }
    }
    const uniques = await queryRows<{ k: string; n: string }>(
      database.db,
      sql`select link_id || '|' || day::text as k, count::text as n from link_stats_daily where dimension = 'unique' and link_id = any(${`{${ids.join(",")}}`}::int[])`,
    );
    expect(new Map(uniques.map((u) => [u.k, Number(u.n)]))).toEqual(expectedUnique);

    // Every account row is the sum of its links' rows (link: the day's clicks of each link).
    for (const user of users) {
      const [diff] = await queryRows<{ n: string }>(
        database.db,
        sql`with links_sum as (
              select dimension, day, value, sum(count) as count from link_stats_daily s join links l on l.id = s.link_id
              where l.workspace_id = ${user.workspaceId} and dimension not in ('clicks_hour', 'bots_hour') group by 1, 2, 3
              union all
              select 'link', day, link_id::text, count from link_stats_daily s join links l on l.id = s.link_id
              where l.workspace_id = ${user.workspaceId} and dimension = 'clicks'
            ), account as (
              select dimension, day, value, count from account_stats_daily where workspace_id = ${user.workspaceId}
              union all
              select 'link', day, link_id::text, count from account_link_daily where workspace_id = ${user.workspaceId}
            )
            select count(*)::text as n from ((table links_sum except table account) union all (table account except table links_sum)) d`,
      );
      expect(diff?.n).toBe("0");
      expect((await accountRollups(user.workspaceId)).length).toBeGreaterThan(10);
    }
  });

  it("the clicks of a deleted link are dropped, its visitors too", async () => {
    const user = await owner();
    const id = await user.link();
    await database.db.execute(sql`delete from links where id = ${id}`);
    await recordClicks(database.db, [
      { ...click(id, "2026-03-05T00:00:00Z"), visitors: [hex(9)] },
      { ...click(id, "2026-03-05T00:00:00Z"), bot: "Googlebot" },
    ]);
    expect(await linkRollups(id)).toEqual([]);
    expect(await storedVisitors([id])).toEqual({ inSets: 0, inRows: 0 });
  });

  it("a full bucket's new visitors are rows of their own: unique stays exact past it, across batches", async () => {
    const user = await owner();
    const id = await user.link();
    const visit = (n: number[]) => ({ ...click(id, "2026-03-06T10:00:00Z"), visitors: n.map((i) => inBucket(5, i)) });
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
    // 250 in one batch: the set takes them all (a bucket is full once it holds 200).
    await recordClicks(database.db, [visit(range(0, 250)), { ...visit([7]), count: 2 }]);
    // 100 seen, 150 new: the full set keeps its 250, the new ones are rows.
    await recordClicks(database.db, [visit(range(150, 400))]);
    // 50 in the set, 50 in rows, 50 new, and a visitor of another bucket.
    await recordClicks(database.db, [visit([...range(200, 250), ...range(350, 450)]), { ...click(id, "2026-03-06T11:00:00Z"), visitors: [inBucket(6, 1)] }]);
    const rollups = await linkRollups(id);
    expect(rollups.filter((r) => r.startsWith("unique|"))).toEqual(["unique|2026-03-06||451"]);
    expect((await accountRollups(user.workspaceId)).filter((r) => r.startsWith("unique|"))).toEqual(["unique|2026-03-06||451"]);
    expect(await storedVisitors([id])).toEqual({ inSets: 251, inRows: 200 });
    const sets = await queryRows<{ bucket: number; n: number }>(database.db, sql`select bucket, cardinality(visitors) as n from link_visitor_sets where link_id = ${id} order by bucket`);
    expect(sets.map((r) => [Number(r.bucket), Number(r.n)])).toEqual([
      [5, 250],
      [6, 1],
    ]);
  });

  it("concurrent batches with overlapping visitors, past a full bucket: each visitor counted once", async () => {
    const user = await owner();
    const ids = [await user.link(), await user.link()];
    const random = seededRandom(56);
    // One bucket crowded past full (~350 visitors a link and day), a few visitors elsewhere, two links, two days.
    const batches: Click[][] = Array.from({ length: 12 }, () =>
      Array.from({ length: 120 }, () => {
        const linkId = ids[random() < 0.8 ? 0 : 1] as number;
        const bucket = random() < 0.9 ? 3 : Math.floor(random() * 128);
        return { ...click(linkId, `2026-05-0${1 + Math.floor(random() * 2)}T12:00:00Z`), visitors: [inBucket(bucket, Math.floor(random() * 600))] };
      }),
    );
    await Promise.all(batches.map((batch) => recordClicks(database.db, batch)));
    const expected = new Map<string, Set<string>>();
    for (const c of batches.flat()) {
      const k = `${c.linkId}|${c.at.toISOString().slice(0, 10)}`;
      if (!expected.has(k)) expected.set(k, new Set());
      for (const v of c.visitors ?? []) expected.get(k)?.add(v);
    }
    const uniques = await queryRows<{ k: string; n: string }>(
      database.db,
      sql`select link_id || '|' || day::text as k, count::text as n from link_stats_daily where dimension = 'unique' and link_id = any(${`{${ids.join(",")}}`}::int[])`,
    );
    expect(new Map(uniques.map((u) => [u.k, Number(u.n)]))).toEqual(new Map([...expected].map(([k, v]) => [k, v.size])));
    const stored = await storedVisitors(ids);
    expect(stored.inSets + stored.inRows).toBe([...expected.values()].reduce((n, v) => n + v.size, 0));
    // The crowded buckets did fill up: some visitors are rows.
    expect(stored.inRows).toBeGreaterThan(0);
  });
});

describe("the upgrade to visitor sets (migration 0029)", () => {
  it("moves the visitors of the old table into their sets: a visitor seen before the upgrade is not counted again after it", async () => {
    const empty = await openEmptyDb();
    try {
      await migrateBefore(empty, "_visitor_sets");
      // Today's visitors of link 1 before the upgrade, one row each; bucket 100's hashes are negative bigints.
      const old = [inBucket(5, 1), inBucket(5, 2), inBucket(100, 1), inBucket(127, 9)];
      for (const hash of old) await empty.db.execute(sql`insert into link_visitors (link_id, day, visitor) values (1, '2026-07-01', ('x' || ${hash})::bit(64)::bigint)`);
      await empty.db.execute(sql`insert into link_visitors (link_id, day, visitor) values (1, '2026-06-30', ('x' || ${inBucket(5, 1)})::bit(64)::bigint)`);
      await migrate(empty);

      const sets = await queryRows<{ r: string }>(empty.db, sql`select day::text || '|' || bucket || '|' || cardinality(visitors) as r from link_visitor_sets order by day, bucket`);
      expect(sets.map((x) => x.r)).toEqual(["2026-06-30|5|1", "2026-07-01|5|2", "2026-07-01|100|1", "2026-07-01|127|1"]);
      expect(await queryRows(empty.db, sql`select 1 from link_visitors`)).toEqual([]);

      const user = await createTestUser(empty.db);
      const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
      const link = await createLink({ ctx: user.ctx, input: { url: "https://dest.example/", domain_id: domain.id } as CreateLinkInput });
      expect(link.id).toBe(1);
      await recordClicks(empty.db, [{ ...click(link.id, "2026-07-01T12:00:00Z"), visitors: [...old, inBucket(100, 2)] }]);
      const [row] = await queryRows<{ n: string }>(empty.db, sql`select count::text as n from link_stats_daily where link_id = 1 and dimension = 'unique' and day = '2026-07-01'`);
      expect(row?.n).toBe("1");
    } finally {
      await empty.close();
    }
  });
});

describe("the upgrade to account_link_daily (migration 0031)", () => {
  it("moves the accounts' clicks per link out of account_stats_daily: the top links rank them, later clicks add to them", async () => {
    const empty = await openEmptyDb();
    try {
      await migrateBefore(empty, "_account_link_daily");
      const user = await createTestUser(empty.db, { now: () => new Date("2026-07-02T12:00:00Z") });
      const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
      const [a, b] = [
        await createLink({ ctx: user.ctx, input: { url: "https://dest.example/a", domain_id: domain.id } as CreateLinkInput }),
        await createLink({ ctx: user.ctx, input: { url: "https://dest.example/b", domain_id: domain.id } as CreateLinkInput }),
      ];
      // The rollups as the write side left them before 0031, and a `link` row that names no link.
      const ws = user.workspaceId;
      await empty.db.execute(sql`insert into link_stats_daily (link_id, dimension, day, value, count) values
        (${a.id}, 'clicks', '2026-07-01', '', 3), (${b.id}, 'clicks', '2026-07-01', '', 5), (${b.id}, 'clicks', '2026-07-02', '', 1)`);
      await empty.db.execute(sql`insert into account_stats_daily (workspace_id, dimension, day, value, count) values
        (${ws}, 'clicks', '2026-07-01', '', 8), (${ws}, 'clicks', '2026-07-02', '', 1), (${ws}, 'country', '2026-07-01', 'DE', 8),
        (${ws}, 'link', '2026-07-01', ${String(a.id)}, 3), (${ws}, 'link', '2026-07-01', ${String(b.id)}, 5), (${ws}, 'link', '2026-07-02', ${String(b.id)}, 1),
        (${ws}, 'link', '2026-07-02', 'x', 7)`);
      const ctx = { ...user.ctx, db: empty.db };
      const range = { from: "2026-07-01", to: "2026-07-02" };
      const topLinks = async () => {
        const stats = await getAccountStats({ ctx, input: { name: "links", ...range } });
        return stats.kind === "list" ? stats.data.map((r) => [r.id, r.count]) : [];
      };
      await migrate(empty);

      const moved = await queryRows<{ r: string }>(empty.db, sql`select day::text || '|' || link_id || '|' || count as r from account_link_daily where workspace_id = ${ws} order by 1`);
      expect(moved.map((x) => x.r)).toEqual([`2026-07-01|${a.id}|3`, `2026-07-01|${b.id}|5`, `2026-07-02|${b.id}|1`]);
      const left = await queryRows<{ r: string }>(
        empty.db,
        sql`select dimension || '|' || day::text || '|' || value || '|' || count as r from account_stats_daily where workspace_id = ${ws} order by 1`,
      );
      expect(left.map((x) => x.r)).toEqual(["clicks|2026-07-01||8", "clicks|2026-07-02||1", "country|2026-07-01|DE|8"]);
      expect(await topLinks()).toEqual([
        [b.id, 6],
        [a.id, 3],
      ]);
      await expect(empty.db.execute(sql`insert into account_stats_daily (workspace_id, dimension, day, value, count) values (${ws}, 'link', '2026-07-03', '1', 1)`)).rejects.toThrow();
      const [options] = await queryRows<{ o: string | null }>(empty.db, sql`select array_to_string(reloptions, ',') as o from pg_class where oid = 'account_stats_daily'::regclass`);
      expect(options?.o).toBe("fillfactor=80");

      await recordClicks(empty.db, [click(a.id, "2026-07-02T10:00:00Z"), { ...click(a.id, "2026-07-02T11:00:00Z"), count: 3 }]);
      expect(await topLinks()).toEqual([
        [a.id, 7],
        [b.id, 6],
      ]);
    } finally {
      await empty.close();
    }
  });
});

describe("visitor salts", () => {
  it("every concurrent caller gets the same salt of a day; another day has another", async () => {
    const day = "2031-01-01";
    const keys = await Promise.all(Array.from({ length: 8 }, () => findOrCreateVisitorSalt(database.db, day, new Date("2031-01-01T00:00:00Z"))));
    const hashes = new Set(keys.map((k) => visitorHash(k, "203.0.113.7", "UA", 1)));
    expect(hashes.size).toBe(1);
    const other = await findOrCreateVisitorSalt(database.db, "2031-01-02", new Date("2031-01-02T00:00:00Z"));
    expect(visitorHash(other, "203.0.113.7", "UA", 1)).not.toBe([...hashes][0]);
    const [row] = await queryRows<{ salt: string }>(database.db, sql`select salt from visitor_salts where day = '2031-01-01'`);
    expect(row?.salt).toMatch(/^[0-9a-f]{64}$/);
  });

  it("visitorHash: 16 hex digits, different for another group, agent or link", async () => {
    const key = await findOrCreateVisitorSalt(database.db, "2031-02-01", new Date("2031-02-01T00:00:00Z"));
    const base = visitorHash(key, "203.0.113.7", "UA", 1);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set([base, visitorHash(key, "203.0.113.8", "UA", 1), visitorHash(key, "203.0.113.7", "UA2", 1), visitorHash(key, "203.0.113.7", "UA", 2)]).size).toBe(4);
  });

  it.each([
    ["during the grace, the day before stays", "2032-05-02T00:09:59Z", ["2032-04-30"]],
    ["after the grace, it goes", "2032-05-02T00:10:00Z", ["2032-04-30", "2032-05-01"]],
  ])("dropPastVisitorDays: %s", async (_, now, gone) => {
    await database.db.execute(sql`delete from visitor_salts where day between '2032-04-01' and '2032-05-31'`);
    await database.db.execute(sql`delete from link_visitors where day between '2032-04-01' and '2032-05-31'`);
    await database.db.execute(sql`delete from link_visitor_sets where day between '2032-04-01' and '2032-05-31'`);
    for (const day of ["2032-04-30", "2032-05-01", "2032-05-02"]) {
      await findOrCreateVisitorSalt(database.db, day, new Date("2032-04-01T00:00:00Z"));
      await database.db.execute(sql`insert into link_visitors (link_id, day, visitor) values (1, ${day}::date, 42)`);
      await database.db.execute(sql`insert into link_visitor_sets (link_id, day, bucket, visitors, added) values (1, ${day}::date, 0, '{42}', 1)`);
    }
    expect(await dropPastVisitorDays(database.db, new Date(now))).toEqual(gone);
    const left = await queryRows<{ day: string }>(database.db, sql`select day::text as day from visitor_salts where day between '2032-04-01' and '2032-05-31' order by 1`);
    const visitors = await queryRows<{ day: string }>(database.db, sql`select day::text as day from link_visitors where day between '2032-04-01' and '2032-05-31' order by 1`);
    const sets = await queryRows<{ day: string }>(database.db, sql`select day::text as day from link_visitor_sets where day between '2032-04-01' and '2032-05-31' order by 1`);
    const kept = ["2032-04-30", "2032-05-01", "2032-05-02"].filter((d) => !gone.includes(d));
    expect(left.map((r) => r.day)).toEqual(kept);
    expect(visitors.map((r) => r.day)).toEqual(kept);
    expect(sets.map((r) => r.day)).toEqual(kept);
  });

  it("making a day's salt deletes the days past their grace", async () => {
    await findOrCreateVisitorSalt(database.db, "2033-01-01", new Date("2033-01-01T00:00:00Z"));
    await database.db.execute(sql`insert into link_visitors (link_id, day, visitor) values (1, '2033-01-01', 7)`);
    await database.db.execute(sql`insert into link_visitor_sets (link_id, day, bucket, visitors, added) values (1, '2033-01-01', 0, '{7}', 1)`);
    await findOrCreateVisitorSalt(database.db, "2033-01-03", new Date("2033-01-02T23:59:00Z"));
    expect(await queryRows(database.db, sql`select 1 from visitor_salts where day = '2033-01-01'`)).toEqual([]);
    expect(await queryRows(database.db, sql`select 1 from link_visitors where day = '2033-01-01'`)).toEqual([]);
    expect(await queryRows(database.db, sql`select 1 from link_visitor_sets where day = '2033-01-01'`)).toEqual([]);
  });
});

describe("recordDomainVisits", () => {
  it("adds up per domain, kind, day and value; aliases cut to 255 code points; a deleted domain is skipped", async () => {
    const user = await owner();
    const gone = await owner();
    await database.db.execute(sql`delete from domains where id = ${gone.domainId}`);
    const long = "😀".repeat(300);
    await recordDomainVisits(database.db, [
      { domainId: user.domainId, kind: "index", day: "2026-05-01", value: "", count: 2 },
      { domainId: user.domainId, kind: "index", day: "2026-05-01", value: "", count: 1 },
      { domainId: user.domainId, kind: "alias", day: "2026-05-01", value: long, count: 1 },
      { domainId: user.domainId, kind: "bots", day: "2026-05-02", value: "", count: 5 },
      { domainId: gone.domainId, kind: "expired", day: "2026-05-01", value: "", count: 1 },
    ]);
    await recordDomainVisits(database.db, [{ domainId: user.domainId, kind: "alias", day: "2026-05-01", value: `${long}more`, count: 1 }]);
    const rows = await queryRows<{ r: string }>(
      database.db,
      sql`select domain_id || '|' || kind || '|' || day::text || '|' || value || '|' || count::text as r from domain_visits_daily where domain_id in (${user.domainId}, ${gone.domainId}) order by 1`,
    );
    expect(rows.map((r) => r.r).sort()).toEqual([`${user.domainId}|alias|2026-05-01|${"😀".repeat(255)}|2`, `${user.domainId}|bots|2026-05-02||5`, `${user.domainId}|index|2026-05-01||3`].sort());
  });
});
