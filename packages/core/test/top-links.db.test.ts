import { sql } from "drizzle-orm";
import { pgArray, queryRows, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDomain, getAccountStats } from "../src/index.ts";
import { createTestUser, openTestDb, seededRandom, unique } from "../src/testing/index.ts";

/** CONTRACT §21's `links` (the threshold of ADR 0042) against a brute-force sum of `account_link_daily`. */
let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

const DAYS = Array.from({ length: 12 }, (_, i) => `2026-05-${String(i + 1).padStart(2, "0")}`);

/** A day's rows of a shape: [index among the ids, count]. */
type Shape = { seed: number; links: number; day: (random: () => number, ids: number) => Array<[number, number]> };

/** `wanted` distinct indexes below `n`, popular ones more often (a Zipf-like pick), each with its count. */
function zipfDay(random: () => number, n: number, wanted: number, count: (rank: number) => number): Array<[number, number]> {
  const picked = new Set<number>();
  while (picked.size < wanted) picked.add(Math.min(n - 1, Math.floor((n + 1) ** random()) - 1));
  return [...picked].map((rank) => [rank, count(rank)]);
}

const SHAPES: Array<[string, Shape]> = [
  // A few busy links and a long tail of ones and twos: the first depth is usually enough, with many ties at the 100th.
  ["skewed", { seed: 1, links: 700, day: (r, n) => zipfDay(r, n, 250 + Math.floor(r() * 200), (rank) => 1 + Math.floor((r() * 60) / (rank + 1))) }],
  // Nearly flat: the cutoffs add up past the threshold, so the threshold reads deeper or adds up the whole range.
  ["flat", { seed: 2, links: 600, day: (r, n) => zipfDay(r, n, 300 + Math.floor(r() * 200), () => 1 + Math.floor(r() * 3)) }],
  // 150 steady links (6–9 clicks most days, 1 on a quarter of them) beside 210 bursts a day (3–5 clicks) of other
  // links: the steady ones lead the range but fall below a day's depth on their quiet days, where they are probed.
  [
    "steady under bursts",
    {
      seed: 3,
      links: 900,
      day: (r, n) => {
        const steady = Array.from({ length: 150 }, (_, i): [number, number] => [i, r() < 0.25 ? 1 : 6 + Math.floor(r() * 4)]);
        const bursts = new Set<number>();
        while (bursts.size < 210) bursts.add(150 + Math.floor(r() * (n - 150)));
        return [...steady, ...[...bursts].map((i): [number, number] => [i, 3 + Math.floor(r() * 3)])];
      },
    },
  ],
];

describe("links: the threshold ranks as a brute-force sum of the account's clicks per link", () => {
  it.each(SHAPES)("%s random data with ties, deleted and foreign links, for the whole range and a part", async (_label, shape) => {
    const user = await createTestUser(database.db);
    const other = await createTestUser(database.db);
    const domain = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
    const otherDomain = await createDomain({ ctx: other.ctx, input: { name: `${unique()}.example` } });
    const tag = unique();
    const made = await queryRows<{ id: number }>(
      database.db,
      sql`insert into links (workspace_id, domain_id, alias, url)
          select ${user.workspaceId}, ${domain.id}, 'top' || g || '-' || ${tag}, 'https://dest.example/' || g from generate_series(1, ${shape.links}) g returning id`,
    );
    const foreign = await queryRows<{ id: number }>(
      database.db,
      sql`insert into links (workspace_id, domain_id, alias, url)
          select ${other.workspaceId}, ${otherDomain.id}, 'top' || g || '-' || ${tag}, 'https://dest.example/' || g from generate_series(1, 20) g returning id`,
    );
    const ids = [...made.map((r) => Number(r.id)), ...foreign.map((r) => Number(r.id))];
    const random = seededRandom(shape.seed);
    const rows = { days: [] as string[], links: [] as number[], counts: [] as number[] };
    for (const day of DAYS) {
      for (const [rank, count] of shape.day(random, ids.length)) {
        rows.days.push(day);
        rows.links.push(ids[rank] as number);
        rows.counts.push(count);
      }
    }
    await queryRows(
      database.db,
      sql`insert into account_link_daily (workspace_id, day, link_id, count)
          select ${user.workspaceId}::int, r.day::date, r.link_id, r.count
          from unnest(${pgArray(rows.days)}::text[], ${pgArray(rows.links)}::int[], ${pgArray(rows.counts)}::bigint[]) as r(day, link_id, count)`,
    );
    // Some of the busiest links are deleted since: their clicks stay in the rollups, the ranking skips them.
    const gone = ids.filter((_, i) => i < 40 && i % 7 === 3);
    await queryRows(database.db, sql`delete from links where id = any(${pgArray(gone)}::int[])`);

    for (const [from, to] of [
      [DAYS[0], DAYS.at(-1)],
      [DAYS[2], DAYS[8]],
    ] as Array<[string, string]>) {
      const expected = await queryRows<{ id: number; count: string; alias: string }>(
        database.db,
        sql`select a.link_id as id, sum(a.count)::text as count, l.alias
            from account_link_daily a join links l on l.id = a.link_id and l.workspace_id = ${user.workspaceId}
            where a.workspace_id = ${user.workspaceId} and a.day between ${from}::date and ${to}::date
            group by a.link_id, l.alias having sum(a.count) > 0
            order by sum(a.count) desc, a.link_id limit 100`,
      );
      const stats = await getAccountStats({ ctx: user.ctx, input: { name: "links", from, to } });
      if (stats.kind !== "list") throw new Error("links is a list");
      expect(stats.data.map((r) => ({ value: r.value, id: r.id, count: r.count }))).toEqual(expected.map((r) => ({ value: `${domain.name}/${r.alias}`, id: Number(r.id), count: Number(r.count) })));
      expect(expected).toHaveLength(100);
      // Ties at the cut: the 100th count is shared by links left out, ranked by id.
      expect(new Set(expected.map((r) => r.count)).size).toBeLessThan(100);
    }
  });
});
