import { eq, sql } from "drizzle-orm";
import { links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admitClicks, countLimitedClicks } from "../src/index.ts";
import { createTestUser, insertTestDomain, openTestDb, unique } from "../src/testing/index.ts";
import { ADMISSION_CASES } from "./expiration-cases.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb({ poolSize: 10 });
});
afterAll(async () => {
  await database?.close();
});

const ctx = () => ({ db: database.db, now: () => new Date() });

async function limitedLink(expirationClicks: number, clicks = 0): Promise<number> {
  const user = await createTestUser(database.db);
  const domain = await insertTestDomain(database.db, user.workspaceId);
  const [row] = await database.db
    .insert(links)
    .values({ workspaceId: user.workspaceId, domainId: domain.id, alias: unique("a"), url: "https://x.example/", expirationClicks, clicks })
    .returning({ id: links.id });
  if (!row) throw new Error("no link");
  return row.id;
}

async function clicksOf(id: number): Promise<number> {
  const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, id));
  return row?.clicks ?? -1;
}

describe("countLimitedClicks, the admission rule in SQL (CONTRACT §7 step 11)", () => {
  it.each(ADMISSION_CASES)("limit $limit, count $before, $wanted wanted → $admitted admitted, count $after", async (c) => {
    const id = await limitedLink(c.limit, c.before);
    const result = await countLimitedClicks(ctx(), id, c.wanted);
    expect(result.admitted).toBe(c.admitted);
    if (c.admitted) expect(result.clicks).toBe(c.after);
    expect(await clicksOf(id)).toBe(c.after);
    // The same rule in JS (expiration/click-limit.ts) agrees with the statement.
    const rule = admitClicks({ clicks: c.before, expirationClicks: c.limit }, c.wanted);
    expect(rule.admitted).toBe(result.admitted);
    expect(rule.clicks).toBe(c.after);
  });

  it("a link that does not exist admits no one", async () => {
    expect((await countLimitedClicks(ctx(), 2_000_000_000, 3)).admitted).toBe(0);
  });

  it("concurrent groups admit exactly the limit in all, and their ranges do not overlap", async () => {
    const id = await limitedLink(37);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => countLimitedClicks(ctx(), id, 1 + (i % 4))));
    expect(results.reduce((n, r) => n + r.admitted, 0)).toBe(37);
    const taken = results.filter((r) => r.admitted).flatMap((r) => Array.from({ length: r.admitted }, (_, i) => r.clicks - r.admitted + i + 1));
    expect(taken.sort((a, b) => a - b)).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
    expect(await clicksOf(id)).toBe(37);
  });

  it("raising a counter writes no index entries (a HOT update): `clicks` is in no index", async () => {
    const id = await limitedLink(1_000);
    const stats = await database.db.transaction(async (tx) => {
      const read = async () => {
        const result: unknown = await tx.execute(sql`select n_tup_upd, n_tup_hot_upd from pg_stat_xact_user_tables where relname = 'links'`);
        const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
        const row = rows[0] as { n_tup_upd: number | string; n_tup_hot_upd: number | string };
        return { updated: Number(row.n_tup_upd), hot: Number(row.n_tup_hot_upd) };
      };
      const before = await read();
      await countLimitedClicks({ db: tx as unknown as Database["db"], now: () => new Date() }, id, 5);
      await tx.execute(sql`update links set clicks = clicks + 1 where id = ${id}`);
      const after = await read();
      return { updated: after.updated - before.updated, hot: after.hot - before.hot };
    });
    expect(stats).toEqual({ updated: 2, hot: 2 });
  });
});
