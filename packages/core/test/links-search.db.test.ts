import { and, asc, eq, sql } from "drizzle-orm";
import { links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANGES_CHANNEL, createDomain, createLink, listLinks, updateLink } from "../src/index.ts";
import { commonTrigrams, indexedPieces, searchConditionWith, type SearchColumn } from "../src/links/search.ts";
import { createTestUser, openTestDb, unique, type TestUser } from "../src/testing/index.ts";

let database: Database;
let user: TestUser;
let domainId: number;
const host = `${unique("s")}.example`;
/**
 * [url, alias, title] of the user's links: most share `host` (and so its trigrams); one in eight has
 * the rarer `rare7`; a few carry characters LIKE treats specially. Other links dilute the statistics.
 */
const rows: Array<[string, string, string | null]> = [];

beforeAll(async () => {
  database = await openTestDb();
  user = await createTestUser(database.db);
  domainId = (await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } })).id;
  for (let i = 0; i < 120; i++) rows.push([`https://${host}/${i % 8 ? "path" : "rare7"}/${i}`, `a${i}x`, i % 3 ? `Title ${i}` : null]);
  rows.push([`https://${host}/100%25_off\\now`, "Odd_1", "100% OFF_now"], [`https://${host.toUpperCase()}/CASE`, "UPPER", "ÉTÉ Straße"]);
  await database.db.insert(links).values(rows.map(([url, alias, title]) => ({ workspaceId: user.workspaceId, domainId, url, alias, title })));
  const other = await createTestUser(database.db);
  const otherDomain = (await createDomain({ ctx: other.ctx, input: { name: `${unique()}.example` } })).id;
  await database.db.insert(links).values(Array.from({ length: 300 }, (_, i) => ({ workspaceId: other.workspaceId, domainId: otherDomain, url: `https://filler.example/${i}`, alias: `f${i}` })));
  await database.db.execute(sql`analyze links`);
});
afterAll(async () => {
  await database?.close();
});

/** What CONTRACT §5 says a search finds: a case-insensitive substring. */
function expected(column: SearchColumn, term: string): string[] {
  const index = { url: 0, alias: 1, title: 2 }[column];
  return rows
    .filter((r) => r[index]?.toLowerCase().includes(term.toLowerCase()))
    .map((r) => r[1])
    .sort();
}

async function found(column: SearchColumn, term: string, shares: ReadonlyMap<string, number>): Promise<string[]> {
  const got = await database.db
    .select({ alias: links.alias })
    .from(links)
    .where(and(eq(links.workspaceId, user.id), searchConditionWith(column, term, shares)))
    .orderBy(asc(links.alias));
  return got.map((r) => r.alias).sort();
}

const TERMS: Array<[SearchColumn, string]> = [
  ["url", `${host}/path/1`],
  ["url", `${host}/rare7/`],
  ["url", `/RARE7/1`],
  ["url", `https://${host}/path/11`],
  ["url", `${host.toUpperCase()}/PATH/7`],
  ["url", "/path/"],
  ["url", "%25_off\\"],
  ["url", "_"],
  ["url", `https://${host}/case`],
  ["alias", "a1"],
  ["alias", "odd_"],
  ["title", "title 1"],
  ["title", "% off_"],
  ["title", "été straße"],
];

describe("link search (CONTRACT §5) with common trigrams left out of the index scan", () => {
  it("reads the common trigrams from the statistics ANALYZE keeps", async () => {
    const shares = await commonTrigrams(database.db, "url");
    // Every URL of every test starts with https://.
    expect(shares.get("htt")).toBeGreaterThan(0.5);
    const pieces = indexedPieces(`https://${host}/rare7/8`, shares);
    expect(pieces?.length).toBeGreaterThan(0);
    expect(pieces?.some((p) => p.includes("http"))).toBe(false);
  });

  it.each(TERMS)("finds exactly the links whose %s contains %j, rewritten or not", async (column, term) => {
    const want = expected(column, term);
    const everyTrigramCommon = new Map(rows.flatMap((r) => [r[0], r[1], r[2] ?? ""]).flatMap((s) => Array.from(s.toLowerCase().matchAll(/(?=(.{3}))/gsu), (m) => [m[1] as string, 0.9] as const)));
    const someCommon = new Map([...everyTrigramCommon].filter((_, i) => i % 2 === 0));
    expect(await found(column, term, new Map())).toEqual(want);
    expect(await found(column, term, someCommon)).toEqual(want);
    expect(await found(column, term, await commonTrigrams(database.db, column))).toEqual(want);
  });

  it("lists pages and totals of a rewritten search exactly", async () => {
    const term = `https://${host}/rare7/`;
    const want = expected("url", term);
    expect(want.length).toBe(15);
    expect(indexedPieces(term, await commonTrigrams(database.db, "url"))).toBeDefined();
    const first = await listLinks({ ctx: user.ctx, input: { search: term, search_by: "url", sort_by: "alias", sort: "asc", per_page: 10 } });
    const second = await listLinks({ ctx: user.ctx, input: { search: term, search_by: "url", sort_by: "alias", sort: "asc", per_page: 10, page: 2 } });
    const past = await listLinks({ ctx: user.ctx, input: { search: term, search_by: "url", per_page: 10, page: 9 } });
    expect([first.total, second.total, past.total]).toEqual([want.length, want.length, want.length]);
    expect([...first.data, ...second.data].map((l) => l.alias)).toEqual(want.slice(0, 20));
    expect(past.data).toEqual([]);
  });
});

describe("creating a link announces nothing on the changes channel (visitor sides cache misses for under a second instead)", () => {
  it("sends no notification for a create, and one for an update", async () => {
    const heard: string[] = [];
    const unlisten = await database.listen(CHANGES_CHANNEL, (payload) => heard.push(payload));
    try {
      const alias = unique("n");
      const link = await createLink({ ctx: user.ctx, input: { url: "https://quiet.example/", domain_id: domainId, alias } });
      await updateLink({ ctx: user.ctx, id: link.id, input: { url: "https://changed.example/" } });
      const started = Date.now();
      while (!heard.length && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      const mine = heard.map((p) => JSON.parse(p) as { alias?: string }).filter((c) => c.alias === alias);
      expect(mine).toEqual([{ kind: "link", id: link.id, domainId, alias }]);
    } finally {
      await unlisten();
    }
  });
});
