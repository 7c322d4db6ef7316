import { eq, inArray, sql } from "drizzle-orm";
import { accountLinkDaily, accountStatsDaily, clicks, domains, linkStatsDaily, links, users, workspaces, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordClicks, type Click } from "../src/index.ts";
import { createTestUser, insertTestDomain, openTestDb, unique } from "../src/testing/index.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb({ poolSize: 10 });
});
afterAll(async () => {
  await database?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function click(linkId: number): Click {
  return { linkId, at: new Date(), country: "FR", platform: "Linux", browser: "Firefox", device: "desktop", language: "fr", referrer: null, counted: false, rotation: null };
}

/** A user with a domain and `n` links, each with 3 recorded clicks. */
async function linksWithClicks(n: number) {
  const user = await createTestUser(database.db);
  const domain = await insertTestDomain(database.db, user.workspaceId);
  const rows = await database.db
    .insert(links)
    .values(Array.from({ length: n }, () => ({ workspaceId: user.workspaceId, domainId: domain.id, alias: unique("a"), url: "https://x.example/" })))
    .returning({ id: links.id });
  const ids = rows.map((r) => r.id);
  await recordClicks(
    database.db,
    ids.flatMap((id) => [click(id), click(id), click(id)]),
  );
  return { user, domain, ids };
}

async function clickCount(ids: number[]): Promise<number> {
  return (await database.db.select({ linkId: clicks.linkId }).from(clicks).where(inArray(clicks.linkId, ids))).length;
}

/** The links' daily rollup rows. */
async function rollupRows(ids: number[]): Promise<number> {
  return (await database.db.select({ linkId: linkStatsDaily.linkId }).from(linkStatsDaily).where(inArray(linkStatsDaily.linkId, ids))).length;
}

/** A workspace's daily rollup rows: its statistics and its clicks per link. */
async function accountRows(workspaceId: number): Promise<number> {
  const stats = await database.db.select({ n: accountStatsDaily.count }).from(accountStatsDaily).where(eq(accountStatsDaily.workspaceId, workspaceId));
  const perLink = await database.db.select({ n: accountLinkDaily.count }).from(accountLinkDaily).where(eq(accountLinkDaily.workspaceId, workspaceId));
  return stats.length + perLink.length;
}

describe("a link's clicks go with it", () => {
  type Setup = Awaited<ReturnType<typeof linksWithClicks>>;
  it.each([
    { how: "the link is deleted", remove: (s: Setup) => database.db.delete(links).where(eq(links.id, s.ids[0] ?? 0)), gone: 1, accountGone: false },
    { how: "its domain is deleted", remove: (s: Setup) => database.db.delete(domains).where(eq(domains.id, s.domain.id)), gone: 3, accountGone: false },
    { how: "its user is deleted", remove: (s: Setup) => database.db.delete(users).where(eq(users.id, s.user.id)), gone: 3, accountGone: true },
    { how: "its workspace is deleted", remove: (s: Setup) => database.db.delete(workspaces).where(eq(workspaces.id, s.user.workspaceId)), gone: 3, accountGone: true },
  ])("when $how, with its rollups (and the account's, with the workspace)", async ({ remove, gone, accountGone }) => {
    const setup = await linksWithClicks(3);
    const perLink = (await rollupRows(setup.ids)) / 3;
    const account = await accountRows(setup.user.workspaceId);
    expect([await clickCount(setup.ids), perLink > 0, account > 0]).toEqual([9, true, true]);
    await remove(setup);
    expect(await clickCount(setup.ids)).toBe(9 - 3 * gone);
    expect(await rollupRows(setup.ids)).toBe(perLink * (3 - gone));
    // A deleted link's clicks stay in its account's figures; a deleted workspace's figures go with it.
    expect(await accountRows(setup.user.workspaceId)).toBe(accountGone ? 0 : account);
  });

  it("a workspace deleted takes only its own account rollups", async () => {
    const [one, other] = [await linksWithClicks(1), await linksWithClicks(1)];
    const kept = await accountRows(other.user.workspaceId);
    await database.db.delete(workspaces).where(eq(workspaces.id, one.user.workspaceId));
    expect([await accountRows(one.user.workspaceId), await accountRows(other.user.workspaceId), (await rollupRows(other.ids)) > 0]).toEqual([0, kept, true]);
  });

  it("a batch written while its link is being deleted leaves no clicks behind", async () => {
    const { ids } = await linksWithClicks(1);
    const id = ids[0] ?? 0;
    let deleted!: () => void;
    const hasDeleted = new Promise<void>((ok) => (deleted = ok));
    const deleting = database.db.transaction(async (tx) => {
      await tx.delete(links).where(eq(links.id, id));
      deleted();
      await sleep(300);
    });
    await hasDeleted;
    await recordClicks(database.db, [click(id), click(id)]);
    await deleting;
    expect(await clickCount(ids)).toBe(0);
  });

  it("a link deleted while a batch for it is being written takes that batch's clicks too", async () => {
    const { ids } = await linksWithClicks(1);
    const id = ids[0] ?? 0;
    let written!: () => void;
    const hasWritten = new Promise<void>((ok) => (written = ok));
    const writing = database.db.transaction(async (tx) => {
      await tx.execute(sql`select id from links where id = ${id} for key share`);
      await tx.insert(clicks).values([{ linkId: id }, { linkId: id }]);
      written();
      await sleep(300);
    });
    await hasWritten;
    await database.db.delete(links).where(eq(links.id, id));
    await writing;
    expect(await clickCount(ids)).toBe(0);
  });

  it("a batch skips the clicks of links already gone and keeps the rest", async () => {
    const { ids } = await linksWithClicks(2);
    const [kept = 0, gone = 0] = ids;
    await database.db.delete(links).where(eq(links.id, gone));
    await recordClicks(database.db, [click(kept), click(gone), click(kept)]);
    expect(await clickCount([kept])).toBe(5);
    expect(await clickCount([gone])).toBe(0);
  });

  it("a recorded click keeps its time to the millisecond and its traits", async () => {
    const { ids } = await linksWithClicks(1);
    const id = ids[0] ?? 0;
    const at = new Date("2026-03-04T05:06:07.089Z");
    await recordClicks(database.db, [{ ...click(id), at, referrer: 'quote" back\\slash' }]);
    const rows = await database.db.select().from(clicks).where(eq(clicks.linkId, id));
    const row = rows.find((r) => r.createdAt.getTime() === at.getTime());
    expect(row).toMatchObject({ linkId: id, country: "FR", platform: "Linux", browser: "Firefox", device: "desktop", language: "fr", referrer: 'quote" back\\slash' });
  });
});
