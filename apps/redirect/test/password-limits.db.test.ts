import { updateLink } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { createFailedTries, createPostgresStore, createRedisStore, FAILED_TRY_LIMIT, type FailedTries } from "@shortener/web-guard";
import { openTestRedis, type TestRedis } from "@shortener/web-guard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSite, startVisitor, testFailedTries, type Site, type Visitor } from "./helpers.ts";

/**
 * Link passwords under attack (CONTRACT §7.6, §15): a try is counted before it is checked, so a burst of
 * concurrent wrong passwords gets at most the limit of 401s; the right password inside a used-up window
 * is a 429 too; clients are grouped by IPv6 /64; a pass carries its own expiry.
 */
let database: Database;
let testRedis: TestRedis;
let site: Site;
beforeAll(async () => {
  database = await openTestDb();
  site = await createSite(database);
  testRedis = await openTestRedis(process.env.TEST_REDIS_URL);
});
afterAll(async () => {
  await database?.close();
  await testRedis?.close();
});

function post(visitor: Visitor, alias: string, password: string, ip: string, extra: Record<string, string> = {}) {
  return visitor.visit(`/${alias}`, {
    host: site.host,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip, ...extra },
    body: new URLSearchParams({ password }).toString(),
  });
}

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe.each([
  ["the database", () => createFailedTries({ store: createPostgresStore(database) })],
  ["Redis", () => createFailedTries({ store: createRedisStore(testRedis.redis, { prefix: testRedis.prefix }) })],
])("the limit of 10 in 15 minutes, counted in %s", (_name, makeTries: () => FailedTries) => {
  it("200 concurrent wrong passwords: at most 10 × 401, the rest 429; then the right one is a 429 too", async () => {
    const tries = makeTries();
    const visitor = await startVisitor(database, {}, undefined, tries);
    try {
      const link = await site.link({ url: "https://burst.example/", password: "right one" });
      const statuses = (await Promise.all(Array.from({ length: 200 }, () => post(visitor, link.alias, "wrong", "198.51.100.7")))).map((r) => r.status);
      const counts = tally(statuses);
      console.log(`visitor side, one process, ${_name}: 200 wrong passwords →`, JSON.stringify(counts));
      expect(counts[401]).toBe(FAILED_TRY_LIMIT.max);
      expect(counts[429]).toBe(200 - FAILED_TRY_LIMIT.max);
      const right = await post(visitor, link.alias, "right one", "198.51.100.7");
      expect(right.status).toBe(429);
      expect(right.headers["set-cookie"]).toBeUndefined();
      expect(Number(right.headers["retry-after"])).toBeGreaterThan(14 * 60);
      // Another client is not affected.
      expect((await post(visitor, link.alias, "right one", "198.51.100.8")).status).toBe(302);
    } finally {
      await visitor.close();
    }
  });

  it("the right password among 199 wrong ones, all at once: 401s and the one pass together at most 10", async () => {
    const tries = makeTries();
    const visitor = await startVisitor(database, {}, undefined, tries);
    try {
      const link = await site.link({ url: "https://burst.example/", password: "right one" });
      const passwords = Array.from({ length: 200 }, (_, i) => (i === 100 ? "right one" : "wrong"));
      const responses = await Promise.all(passwords.map((p) => post(visitor, link.alias, p, "198.51.100.9")));
      const counts = tally(responses.map((r) => r.status));
      expect((counts[401] ?? 0) + (counts[302] ?? 0)).toBeLessThanOrEqual(FAILED_TRY_LIMIT.max);
      expect(counts[429]).toBeGreaterThanOrEqual(200 - FAILED_TRY_LIMIT.max);
      expect(responses.filter((r) => r.headers["set-cookie"]).length).toBe(counts[302] ?? 0);
    } finally {
      await visitor.close();
    }
  });
});

describe("clients", () => {
  it("are grouped by IPv6 /64 on the visitor side: a host cannot rotate through its addresses", async () => {
    const visitor = await startVisitor(database);
    try {
      const link = await site.link({ password: "pw" });
      for (const ip of ["2001:db8:7:1::1", "2001:db8:7:1::2", "2001:db8:7:1:ffff::3"]) expect((await post(visitor, link.alias, "bad", ip)).status).toBe(401);
      expect((await post(visitor, link.alias, "pw", "2001:db8:7:1::99")).status).toBe(429);
      expect((await post(visitor, link.alias, "pw", "2001:db8:7:2::1")).status).toBe(302);
    } finally {
      await visitor.close();
    }
  });

  it("a right password takes its try back, and does not wipe the wrong ones", async () => {
    const visitor = await startVisitor(database);
    try {
      const link = await site.link({ password: "pw" });
      expect((await post(visitor, link.alias, "bad", "192.0.2.50")).status).toBe(401);
      expect((await post(visitor, link.alias, "bad", "192.0.2.50")).status).toBe(401);
      for (let i = 0; i < 5; i++) expect((await post(visitor, link.alias, "pw", "192.0.2.50")).status).toBe(302);
      expect((await post(visitor, link.alias, "bad", "192.0.2.50")).status).toBe(401);
      expect((await post(visitor, link.alias, "bad", "192.0.2.50")).status).toBe(429);
    } finally {
      await visitor.close();
    }
  });
});

describe("passes (CONTRACT §15)", () => {
  it("expire a day after they were issued, whatever the browser keeps; tampered ones are refused; a password change voids them", async () => {
    let clock = Date.parse("2026-11-22T10:00:00Z");
    const now = () => new Date(clock);
    const visitor = await startVisitor(database, {}, now, testFailedTries(database, now));
    try {
      const link = await site.link({ url: "https://kept.example/", password: "pw" });
      const right = await post(visitor, link.alias, "pw", "192.0.2.60");
      expect(right.status).toBe(302);
      const setCookie = String(right.headers["set-cookie"]);
      expect(setCookie).toMatch(/; Max-Age=86400; HttpOnly; SameSite=Lax$/);
      const cookie = setCookie.split(";")[0] as string;
      const value = cookie.slice(cookie.indexOf("=") + 1);
      const open = (c: string) => visitor.visit(`/${link.alias}`, { host: site.host, headers: { cookie: c } });

      clock += 86_399_000;
      expect((await open(cookie)).status).toBe(302);
      const [expires = "", sig = ""] = value.split(".");
      const name = `pass_${link.id}`;
      for (const forged of [`${Number(expires) + 86_400}.${sig}`, `${expires}.${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`, sig, `${value}x`, ""]) {
        expect((await open(`${name}=${forged}`)).status, forged).toBe(200);
      }
      clock += 1_000;
      expect((await open(cookie)).status).toBe(200);

      clock = Date.parse("2026-11-22T10:00:00Z");
      expect((await open(cookie)).status).toBe(302);
      await updateLink({ ctx: { ...site.user.ctx, now }, id: link.id, input: { password: "changed" } });
      await new Promise((r) => setTimeout(r, 200));
      expect((await open(cookie)).status).toBe(200);
    } finally {
      await visitor.close();
    }
  });
});
