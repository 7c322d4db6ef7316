import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessions, type Database } from "@shortener/db";
import { createSession, deleteUserSession, findSession, listUserSessions, NotFoundError, SESSION_SEEN_EVERY_MS, sessionUserAgent } from "@shortener/core";
import { createTestUser, openTestDb } from "@shortener/core/testing";

/** Dashboard sessions as devices (CONTRACT §19): what a session keeps of its browser, its last use, and signing one out. */
let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

/** A clock the test moves. */
function clock(start = "2026-11-24T10:00:00Z") {
  let now = new Date(start).getTime();
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

describe("what a session keeps of the User-Agent", () => {
  const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";
  it.each([
    ["an ordinary browser", firefox, firefox],
    ["absent", undefined, null],
    ["empty", "", null],
    ["only spaces and control characters", " \t\u0001\u007f ", null],
    ["a NUL byte (Postgres refuses it in text)", "Evil\u0000Agent/1.0", "Evil Agent/1.0"],
    ["line breaks (log and header injection)", "A\r\nSet-Cookie: x=1", "A Set-Cookie: x=1"],
    ["5,000 characters", "x".repeat(5_000), "x".repeat(300)],
    ["non-Latin text", "Браузер/1.0 😀", "Браузер/1.0 😀"],
  ])("%s", async (_, header, kept) => {
    expect(sessionUserAgent(header)).toBe(kept);
    const user = await createTestUser(database.db);
    await createSession({ db: database.db, now: () => new Date() }, user.id, header);
    const [row] = await listUserSessions({ db: database.db, now: () => new Date() }, user.id);
    expect(row?.userAgent).toBe(kept);
  });
});

describe("a session's last use", () => {
  it("is the sign-in at first, then written when the session is used a minute or more after the last write, not on every request", async () => {
    const time = clock();
    const ctx = { db: database.db, now: time.now };
    const user = await createTestUser(database.db);
    const { token } = await createSession(ctx, user.id, "Agent/1");
    const seen = async () => (await database.db.select({ at: sessions.lastSeenAt }).from(sessions).where(eq(sessions.userId, user.id)))[0]?.at?.toISOString();
    expect(await seen()).toBe("2026-11-24T10:00:00.000Z");
    time.advance(SESSION_SEEN_EVERY_MS - 1);
    expect(await findSession(ctx, token)).not.toBeNull();
    expect(await seen()).toBe("2026-11-24T10:00:00.000Z");
    time.advance(1);
    expect(await findSession(ctx, token)).not.toBeNull();
    expect(await seen()).toBe("2026-11-24T10:01:00.000Z");
    time.advance(30_000);
    await findSession(ctx, token);
    expect(await seen()).toBe("2026-11-24T10:01:00.000Z");
  });
});

describe("a user's sessions", () => {
  it("lists the live ones of this user only, the most recently used first", async () => {
    const time = clock();
    const ctx = { db: database.db, now: time.now };
    const user = await createTestUser(database.db);
    const other = await createTestUser(database.db);
    await createSession(ctx, other.id, "Other/1");
    const old = await createSession(ctx, user.id, "Old/1");
    time.advance(5 * 60_000);
    await createSession(ctx, user.id, "New/1");
    time.advance(5 * 60_000);
    expect((await listUserSessions(ctx, user.id)).map((s) => s.userAgent)).toEqual(["New/1", "Old/1"]);
    // Using the older one makes it the most recent.
    await findSession(ctx, old.token);
    expect((await listUserSessions(ctx, user.id)).map((s) => s.userAgent)).toEqual(["Old/1", "New/1"]);
    // Past 30 days none is live.
    time.advance(31 * 24 * 60 * 60_000);
    expect(await listUserSessions(ctx, user.id)).toEqual([]);
  });

  it("signs one out by its id: its token stops working, the others do not; another user's session or one gone is not found", async () => {
    const ctx = { db: database.db, now: () => new Date() };
    const user = await createTestUser(database.db);
    const other = await createTestUser(database.db);
    const a = await createSession(ctx, user.id, "A/1");
    const b = await createSession(ctx, user.id, "B/1");
    const theirs = await createSession(ctx, other.id, "Theirs/1");
    const idOf = async (userId: number, agent: string) => (await listUserSessions(ctx, userId)).find((s) => s.userAgent === agent)?.id ?? -1;
    const aId = await idOf(user.id, "A/1");
    const theirsId = await idOf(other.id, "Theirs/1");

    await expect(deleteUserSession(ctx, user.id, theirsId)).rejects.toBeInstanceOf(NotFoundError);
    expect(await findSession(ctx, theirs.token)).not.toBeNull();

    expect(await deleteUserSession(ctx, user.id, aId)).toEqual({ id: aId });
    expect(await findSession(ctx, a.token)).toBeNull();
    expect(await findSession(ctx, b.token)).not.toBeNull();
    await expect(deleteUserSession(ctx, user.id, aId)).rejects.toBeInstanceOf(NotFoundError);
  });
});
