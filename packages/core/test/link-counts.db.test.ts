import { eq, sql } from "drizzle-orm";
import { linkCounts, links, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDomain, createLink, deleteDomain, deleteLink, listLinks } from "../src/index.ts";
import { createTestUser, openTestDb, unique } from "../src/testing/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

async function counted(workspaceId: number): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`coalesce(sum(${linkCounts.n}), 0)::int` })
    .from(linkCounts)
    .where(eq(linkCounts.workspaceId, workspaceId));
  return Number(row?.n ?? 0);
}
async function actual(workspaceId: number): Promise<number> {
  const [row] = await database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(links)
    .where(eq(links.workspaceId, workspaceId));
  return Number(row?.n ?? 0);
}

describe("link counts (the unfiltered list's total)", () => {
  it("stay equal to the real count through creates, parallel creates, deletes, cascades and bulk inserts", async () => {
    const user = await createTestUser(database.db);
    const other = await createTestUser(database.db);
    const a = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
    const b = await createDomain({ ctx: user.ctx, input: { name: `${unique()}.example` } });
    const make = (domain_id: number) => createLink({ ctx: user.ctx, input: { url: "https://x.example/", domain_id } });
    const first = await make(a.id);
    await Promise.all(Array.from({ length: 25 }, (_, i) => make(i % 2 ? a.id : b.id)));
    expect(await counted(user.workspaceId)).toBe(26);
    await deleteLink({ ctx: user.ctx, id: first.id });
    expect(await counted(user.workspaceId)).toBe(25);
    await database.db.execute(sql`insert into links (workspace_id, domain_id, alias, url) select ${user.workspaceId}, ${a.id}, 'bulk' || g, 'https://bulk.example/' from generate_series(1, 500) g`);
    expect(await counted(user.workspaceId)).toBe(525);
    await deleteDomain({ ctx: user.ctx, id: b.id });
    expect(await counted(user.workspaceId)).toBe(await actual(user.workspaceId));
    expect(await counted(other.id)).toBe(0);
    const page = await listLinks({ ctx: user.ctx, input: {} });
    expect(page.total).toBe(await actual(user.workspaceId));
    const filtered = await listLinks({ ctx: user.ctx, input: { search: "bulk", search_by: "alias", per_page: 10, page: 2 } });
    expect(filtered.total).toBe(500);
    expect(filtered.data).toHaveLength(10);
    const past = await listLinks({ ctx: user.ctx, input: { search: "bulk", search_by: "alias", page: 999 } });
    expect([past.total, past.data.length]).toEqual([500, 0]);
  });
});
