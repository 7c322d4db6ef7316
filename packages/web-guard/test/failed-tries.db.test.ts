import { sql } from "drizzle-orm";
import { queryRows, type Database } from "@shortener/db";
import { openTestDb } from "@shortener/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_TRY_LIMIT, createFailedTries, createMemoryStore, createPostgresStore, createRedisStore, FAILED_TRY_LIMIT, sweepFailedTries, type TryStore } from "../src/index.ts";
import { openTestRedis, type TestRedis } from "../src/testing.ts";

/**
 * The failed-try limiter on each store, on this project's database (PGlite or Postgres) and on the
 * machine's Redis (needed: these tests fail, never skip, when it is down).
 */
let database: Database;
let testRedis: TestRedis;
beforeAll(async () => {
  database = await openTestDb();
  testRedis = await openTestRedis(process.env.TEST_REDIS_URL);
});
afterAll(async () => {
  await database?.close();
  await testRedis?.close();
});

const stores: Array<[string, () => TryStore]> = [
  ["the database", () => createPostgresStore(database)],
  ["Redis", () => createRedisStore(testRedis.redis, { prefix: testRedis.prefix })],
  ["memory", () => createMemoryStore()],
];

let n = 0;
const target = () => `link:${++n}` as const;

describe.each(stores)("on %s", (_name, makeStore) => {
  it("200 concurrent tries: exactly 10 are allowed, and the rest are refused with Retry-After", async () => {
    const tries = createFailedTries({ store: makeStore() });
    const t = target();
    const verdicts = await Promise.all(Array.from({ length: 200 }, () => tries.begin("203.0.113.9", t)));
    const allowed = verdicts.filter((v) => v.isAllowed);
    expect(allowed).toHaveLength(FAILED_TRY_LIMIT.max);
    expect(allowed.map((v) => v.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const v of verdicts.filter((v) => !v.isAllowed)) {
      expect(v.isAllowed || v.retryAfter).toBeGreaterThan(14 * 60);
      expect(v.isAllowed || v.retryAfter).toBeLessThanOrEqual(15 * 60);
    }
    await tries.close();
  });

  it("counts per client group and target: another /64 or another link starts from zero; the same /64 shares", async () => {
    const tries = createFailedTries({ store: makeStore(), limit: { max: 2, windowMs: 60_000 } });
    const t = target();
    expect((await tries.begin("2001:db8:1:2::1", t)).isAllowed).toBe(true);
    expect((await tries.begin("2001:db8:1:2::2", t)).isAllowed).toBe(true);
    expect((await tries.begin("2001:db8:1:2::3", t)).isAllowed).toBe(false);
    expect((await tries.begin("2001:db8:1:3::1", t)).isAllowed).toBe(true);
    expect((await tries.begin("2001:db8:1:2::1", target())).isAllowed).toBe(true);
    await tries.close();
  });

  it("a refund takes exactly one try back, so a right password does not reset a guesser's count", async () => {
    const tries = createFailedTries({ store: makeStore(), limit: { max: 3, windowMs: 60_000 } });
    const t = target();
    const first = await tries.begin("198.51.100.1", t);
    const second = await tries.begin("198.51.100.1", t);
    if (!second.isAllowed || !first.isAllowed) throw new Error("expected allowed");
    await second.refund();
    expect(await tries.begin("198.51.100.1", t)).toMatchObject({ isAllowed: true, count: 2 });
    expect(await tries.begin("198.51.100.1", t)).toMatchObject({ isAllowed: true, count: 3, remaining: 0 });
    expect(await tries.begin("198.51.100.1", t)).toMatchObject({ isAllowed: false });
    await tries.close();
  });
});

describe("with the service's secret (CONTRACT §21: no address stored)", () => {
  it("the table holds a keyed hash of the client's group, never the address; processes with the same secret count together", async () => {
    const t = target();
    const a = createFailedTries({ store: createPostgresStore(database), keySecret: "secret-one" });
    const b = createFailedTries({ store: createPostgresStore(database), keySecret: "secret-one" });
    const other = createFailedTries({ store: createPostgresStore(database), keySecret: "secret-two" });
    expect((await a.begin("198.51.100.42", t)).count).toBe(1);
    expect((await b.begin("198.51.100.42", t)).count).toBe(2);
    expect((await a.begin("2001:db8:42:42::1", t)).count).toBe(1);
    expect((await b.begin("2001:db8:42:42::2", t)).count).toBe(2);
    expect((await other.begin("198.51.100.42", t)).count).toBe(1);
    const keys = await queryRows<{ key: string }>(database.db, sql`select key from failed_tries where key like ${`${t}|%`}`);
    expect(keys).toHaveLength(3);
    for (const { key } of keys) expect(key).not.toMatch(/198\.51\.100\.42|2001:db8:42:42/);
    // The control: without a secret the group is the key.
    const plain = createFailedTries({ store: createPostgresStore(database) });
    await plain.begin("198.51.100.42", t);
    expect(await queryRows(database.db, sql`select key from failed_tries where key = ${`${t}|198.51.100.42`}`)).toHaveLength(1);
    await Promise.all([a.close(), b.close(), other.close(), plain.close()]);
  });
});

describe("windows on the database and in memory follow the injected clock", () => {
  it.each([
    ["the database", (now: () => number) => createPostgresStore(database, { now })],
    ["memory", () => createMemoryStore()],
  ])("%s: a used-up window opens again when it ends, not before", async (_name, make) => {
    let clock = Date.parse("2026-11-22T10:00:00Z");
    const now = () => clock;
    const tries = createFailedTries({ store: make(now), limit: { max: 2, windowMs: 60_000 }, now });
    const t = target();
    await tries.begin("192.0.2.1", t);
    await tries.begin("192.0.2.1", t);
    expect(await tries.begin("192.0.2.1", t)).toMatchObject({ isAllowed: false, retryAfter: 60 });
    clock += 59_000;
    expect(await tries.begin("192.0.2.1", t)).toMatchObject({ isAllowed: false, retryAfter: 1 });
    clock += 1_000;
    expect(await tries.begin("192.0.2.1", t)).toMatchObject({ isAllowed: true, count: 1 });
    await tries.close();
  });
});

describe("Redis windows", () => {
  it("expire with Redis's own expiry (a window of 300 ms)", async () => {
    const tries = createFailedTries({ store: createRedisStore(testRedis.redis, { prefix: testRedis.prefix }), limit: { max: 1, windowMs: 300 } });
    const t = target();
    expect((await tries.begin("192.0.2.2", t)).isAllowed).toBe(true);
    expect((await tries.begin("192.0.2.2", t)).isAllowed).toBe(false);
    await new Promise((r) => setTimeout(r, 400));
    expect((await tries.begin("192.0.2.2", t)).isAllowed).toBe(true);
    const ttl = await testRedis.redis.pttl(`${testRedis.prefix}${t}|192.0.2.2`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await tries.close();
  });
});

describe("bounded cost", () => {
  it("a try is a primary-key upsert and a sweep walks the expires_at index, with 150,000 rows in the table", async () => {
    const now = Date.parse("2026-11-22T10:00:00Z");
    await database.db.execute(sql`insert into failed_tries (key, count, expires_at)
      select 'flood|' || i, 1, ${new Date(now).toISOString()}::timestamptz + (case when i % 2 = 0 then -1 else 1 end) * interval '1 minute'
      from generate_series(1, 150000) i`);
    await database.db.execute(sql`analyze failed_tries`);
    const plan = async (query: ReturnType<typeof sql>) => (await queryRows<Record<string, string>>(database.db, sql`explain ${query}`)).map((r) => Object.values(r)[0]).join("\n");
    const upsert = await plan(sql`insert into failed_tries as f (key, count, expires_at) values ('k', 1, now())
      on conflict (key) do update set count = f.count + 1 returning count`);
    expect(upsert).toMatch(/Conflict Arbiter Indexes: failed_tries_pkey/);
    const sweep = await plan(sql`delete from failed_tries where key = any(array(select key from failed_tries where expires_at <= now() order by expires_at limit 1000)) and expires_at <= now()`);
    expect(sweep).toMatch(/failed_tries_expires_at_idx/);
    expect(sweep).not.toMatch(/Seq Scan on failed_tries/);

    await sweepFailedTries(database, now);
    const [left] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from failed_tries where key like 'flood|%'`);
    expect(left?.n).toBe(150_000 - 1_000);
    await database.db.execute(sql`delete from failed_tries where key like 'flood|%'`);
  });

  it("memory: at most maxKeys counters, whatever the number of clients", async () => {
    const store = createMemoryStore({ maxKeys: 1_000 });
    for (let i = 0; i < 20_000; i++) await store.add(`k${i}`, 60_000, 0);
    expect(store.size()).toBe(1_000);
  });
});

describe("when the shared store fails", () => {
  it("counts in memory meanwhile, logged once, and still refuses past the limit", async () => {
    const broken: TryStore = {
      name: "postgres",
      add: () => Promise.reject(new Error("connection refused")),
      remove: () => Promise.reject(new Error("connection refused")),
      close: async () => {},
    };
    const logged: unknown[] = [];
    const tries = createFailedTries({ store: broken, limit: { max: 2, windowMs: 60_000 }, log: { error: (obj) => logged.push(obj) } });
    const t = target();
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => tries.begin("192.0.2.3", t)));
    expect(verdicts.filter((v) => v.isAllowed)).toHaveLength(2);
    expect(tries.storeName()).toBe("memory");
    expect(logged).toHaveLength(1);
    await tries.close();
  });
});

describe("sign-in guesses per account (CONTRACT §15)", () => {
  let account = 0;
  const nextAccount = () => `acct${++account}-${Math.random().toString(36).slice(2, 8)}`;

  it.each(stores)("on %s: 200 concurrent guesses at one account from many addresses: the 5 free ones and 1 more go through", async (_name, makeStore) => {
    const tries = createFailedTries({ store: makeStore() });
    const a = nextAccount();
    const verdicts = await Promise.all(Array.from({ length: 200 }, () => tries.beginAccount(a)));
    expect(verdicts.filter((v) => v.isAllowed)).toHaveLength(ACCOUNT_TRY_LIMIT.free + 1);
    for (const v of verdicts) if (!v.isAllowed) expect(v.retryAfter).toBeLessThanOrEqual(ACCOUNT_TRY_LIMIT.maxDelayMs / 1000);
    // Another account is not affected.
    expect((await tries.beginAccount(nextAccount())).isAllowed).toBe(true);
    await tries.close();
  });

  it.each([
    ["the database", (now: () => number) => createPostgresStore(database, { now })],
    ["memory", () => createMemoryStore()],
  ])("on %s: after the free guesses, waits of 1, 2, 4, 8, 10, 10 minutes, never longer; a refused guess does not lengthen them", async (_name, make) => {
    let clock = Date.parse("2026-11-22T10:00:00Z");
    const now = () => clock;
    const tries = createFailedTries({ store: make(now), now });
    const a = nextAccount();
    for (let i = 0; i < ACCOUNT_TRY_LIMIT.free + 1; i++) expect((await tries.beginAccount(a)).isAllowed).toBe(true);
    const waits: number[] = [];
    for (const expected of [60, 120, 240, 480, 600, 600, 600]) {
      const refused = await tries.beginAccount(a);
      if (refused.isAllowed) throw new Error("expected a wait");
      waits.push(refused.retryAfter);
      // Guessing again during the wait changes nothing.
      clock += (refused.retryAfter - 1) * 1000;
      expect(await tries.beginAccount(a)).toMatchObject({ isAllowed: false, retryAfter: 1 });
      clock += 1000;
      expect((await tries.beginAccount(a)).isAllowed, `after ${expected} s`).toBe(true);
    }
    expect(waits).toEqual([60, 120, 240, 480, 600, 600, 600]);
    // The window ends a day after it began: the free guesses are back.
    clock = Date.parse("2026-11-23T10:00:01Z");
    expect(await tries.beginAccount(a)).toMatchObject({ isAllowed: true, count: 1 });
    await tries.close();
  });

  it("a right guess takes one back, never resets the count", async () => {
    const tries = createFailedTries({ store: createMemoryStore(), accountLimit: { ...ACCOUNT_TRY_LIMIT, free: 2 } });
    const a = nextAccount();
    const first = await tries.beginAccount(a);
    const second = await tries.beginAccount(a);
    if (!first.isAllowed || !second.isAllowed) throw new Error("expected allowed");
    await second.refund();
    expect(await tries.beginAccount(a)).toMatchObject({ isAllowed: true, count: 2 });
    await tries.close();
  });
});
