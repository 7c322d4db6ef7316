import { eq, inArray, sql } from "drizzle-orm";
import { clicks, domains, links, users, type Database } from "@shortener/db";
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

describe("a link's clicks go with it", () => {
  it.each([
    { how: "the link is deleted", remove: (s: Awaited<ReturnType<typeof linksWithClicks>>) => database.db.delete(links).where(eq(links.id, s.ids[0] ?? 0)), gone: 1 },
    { how: "its domain is deleted", remove: (s: Awaited<ReturnType<typeof linksWithClicks>>) => database.db.delete(domains).where(eq(domains.id, s.domain.id)), gone: 3 },
    { how: "its user is deleted", remove: (s: Awaited<ReturnType<typeof linksWithClicks>>) => database.db.delete(users).where(eq(users.id, s.user.id)), gone: 3 },
  ])("when $how", async ({ remove, gone }) => {
    const setup = await linksWithClicks(3);
    expect(await clickCount(setup.ids)).toBe(9);
    await remove(setup);
    expect(await clickCount(setup.ids)).toBe(9 - 3 * gone);
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
