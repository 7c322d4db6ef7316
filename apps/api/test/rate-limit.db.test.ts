import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { createTestUser, openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FailedTries, FailedTryLimit } from "@shortener/web-guard";
import { createApi, DEFAULT_API_CONFIG, type ApiConfig } from "../src/index.ts";
import { testFailedTries } from "./helpers.ts";

/** CONTRACT §10 with counters in memory; rate-limit-redis.db.test.ts shares them between processes. */
let database: Database;
const apps: FastifyInstance[] = [];
const limiters: FailedTries[] = [];
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  for (const limiter of limiters) await limiter.close();
  await database?.close();
});

/**
 * An API on this file's database with its own limits: its own per-key counters, and failed tries
 * counted in the database (shared by every app of this file: each test fails from addresses of its own).
 */
async function appWith(config: Partial<ApiConfig>, failedTryLimit: FailedTryLimit = { max: 1_000, windowMs: 60_000 }): Promise<FastifyInstance> {
  const failedTries = testFailedTries(database, failedTryLimit);
  limiters.push(failedTries);
  const app = await createApi({ database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...config }, failedTries });
  await app.ready();
  apps.push(app);
  return app;
}

const user = () => createTestUser(database.db);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const trpcInput = (input: unknown) => `input=${encodeURIComponent(JSON.stringify(input))}`;
const limitOf = (res: LightMyRequestResponse) => ({ limit: res.headers["x-ratelimit-limit"], remaining: res.headers["x-ratelimit-remaining"] });
const TOO_MANY = '{"message":"Too Many Attempts.","code":"rate_limited","status":429}';

describe("limit headers (CONTRACT §10)", () => {
  it("are on every response under /api/v1 and /trpc, whatever its status", async () => {
    const app = await appWith({ rateLimitPerMinute: 1000 }, { max: 50, windowMs: 60_000 });
    const { apiKey } = await user();
    const auth = bearer(apiKey);
    const form = { ...auth, "content-type": "application/x-www-form-urlencoded" };
    const json = { ...auth, "content-type": "application/json" };
    const requests: Array<[number, InjectOptions]> = [
      [200, { method: "GET", url: "/api/v1/account", headers: auth }],
      [201, { method: "POST", url: "/api/v1/spaces", headers: form, payload: "name=limits" }],
      [422, { method: "POST", url: "/api/v1/links", headers: form, payload: "url=javascript:alert(1)" }],
      [404, { method: "GET", url: "/api/v1/links/999999", headers: auth }],
      [404, { method: "GET", url: "/api/v1/no-such-route", headers: auth }],
      [405, { method: "PUT", url: "/api/v1/account", headers: auth }],
      [415, { method: "POST", url: "/api/v1/spaces", headers: { ...auth, "content-type": "application/xml" }, payload: "<a/>" }],
      [400, { method: "POST", url: "/api/v1/spaces", headers: json, payload: "{broken" }],
      [200, { method: "GET", url: "/trpc/account.get", headers: auth }],
      [404, { method: "GET", url: `/trpc/links.get?${trpcInput({ id: 999999 })}`, headers: auth }],
      [400, { method: "POST", url: "/trpc/links.create", headers: json, payload: JSON.stringify({ url: "nope" }) }],
    ];
    let expected = 1000;
    for (const [status, request] of requests) {
      const res = await app.inject(request);
      expect(res.statusCode, `${request.method} ${request.url}`).toBe(status);
      expected -= 1;
      expect(limitOf(res), `${request.method} ${request.url}`).toEqual({ limit: "1000", remaining: String(expected) });
      expect(res.headers["retry-after"]).toBeUndefined();
    }
    const head = await app.inject({ method: "HEAD", url: "/trpc/account.get", headers: auth });
    expect(head.statusCode).toBe(204);
    expect(limitOf(head)).toEqual({ limit: "1000", remaining: String(expected - 1) });
    // A 401 counts against the client address's failed authentications, and says so.
    const unauthenticated = await app.inject({ method: "GET", url: "/api/v1/account" });
    expect(unauthenticated.statusCode).toBe(401);
    expect(limitOf(unauthenticated)).toEqual({ limit: "50", remaining: "49" });
    const trpcUnauthenticated = await app.inject({ method: "GET", url: "/trpc/account.get" });
    expect(trpcUnauthenticated.statusCode).toBe(401);
    expect(limitOf(trpcUnauthenticated)).toEqual({ limit: "50", remaining: "48" });
  });
});

describe("the limit per API key", () => {
  it("answers 429 with the §2 body, Retry-After and X-RateLimit-Reset past the limit, on REST and tRPC", async () => {
    const app = await appWith({ rateLimitPerMinute: 5 });
    const { apiKey } = await user();
    for (let i = 4; i >= 0; i--) {
      const res = await app.inject({ method: "GET", url: "/api/v1/account", headers: bearer(apiKey) });
      expect(res.statusCode).toBe(200);
      expect(limitOf(res)).toEqual({ limit: "5", remaining: String(i) });
    }
    const limited = await app.inject({ method: "GET", url: "/api/v1/account", headers: bearer(apiKey) });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(limited.body).toBe(TOO_MANY);
    expect(limitOf(limited)).toEqual({ limit: "5", remaining: "0" });
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    const reset = Number(limited.headers["x-ratelimit-reset"]);
    expect(Math.abs(reset - (Math.ceil(Date.now() / 1000) + retryAfter))).toBeLessThanOrEqual(2);

    const trpc = await app.inject({ method: "GET", url: "/trpc/account.get", headers: bearer(apiKey) });
    expect(trpc.statusCode).toBe(429);
    expect(trpc.json().error).toMatchObject({ message: "Too Many Attempts.", data: { code: "TOO_MANY_REQUESTS", httpStatus: 429, slug: "rate_limited" } });
    expect(trpc.headers["retry-after"]).toBeDefined();
    expect(trpc.headers["x-ratelimit-reset"]).toBeDefined();
  });

  it("counts each key on its own", async () => {
    const app = await appWith({ rateLimitPerMinute: 2 });
    const [a, b] = [await user(), await user()];
    for (let i = 0; i < 3; i++) await app.inject({ method: "GET", url: "/api/v1/account", headers: bearer(a.apiKey) });
    expect((await app.inject({ method: "GET", url: "/api/v1/account", headers: bearer(a.apiKey) })).statusCode).toBe(429);
    const other = await app.inject({ method: "GET", url: "/api/v1/account", headers: bearer(b.apiKey) });
    expect(other.statusCode).toBe(200);
    expect(limitOf(other)).toEqual({ limit: "2", remaining: "1" });
  });

  it("counts each call of a tRPC batch", async () => {
    const app = await appWith({ rateLimitPerMinute: 5 });
    const { apiKey } = await user();
    const batch = await app.inject({ method: "GET", url: `/trpc/account.get,spaces.list,domains.list?batch=1&${trpcInput({ 0: {}, 1: {}, 2: {} })}`, headers: bearer(apiKey) });
    expect(batch.statusCode).toBe(200);
    expect(batch.json()).toHaveLength(3);
    expect(limitOf(batch)).toEqual({ limit: "5", remaining: "2" });
    const tooBig = await app.inject({ method: "GET", url: `/trpc/account.get,spaces.list,domains.list?batch=1&${trpcInput({ 0: {}, 1: {}, 2: {} })}`, headers: bearer(apiKey) });
    expect(tooBig.statusCode).toBe(429);
    expect(tooBig.json().map((r: { error: { data: { code: string } } }) => r.error.data.code)).toEqual(["TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS"]);
  });
});

describe("failed authentication, limited per client address", () => {
  it("turns 401s into 429s past the limit, then refuses every request of that address, and no other", async () => {
    const app = await appWith({ rateLimitPerMinute: 100 }, { max: 3, windowMs: 60_000 });
    const { apiKey } = await user();
    const from = (remoteAddress: string, headers: Record<string, string> = {}) => app.inject({ method: "GET", url: "/api/v1/account", remoteAddress, headers });
    for (const remaining of ["2", "1", "0"]) {
      const res = await from("10.0.0.1", bearer("shk_wrongwrongwrongwrongwrongwrongwrongwron"));
      expect(res.statusCode).toBe(401);
      expect(limitOf(res)).toEqual({ limit: "3", remaining });
    }
    const locked = await from("10.0.0.1");
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toBe(TOO_MANY);
    expect(Number(locked.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // A valid key is answered, with its own limit: only guesses are refused (CONTRACT §15 ✦).
    const valid = await from("10.0.0.1", bearer(apiKey));
    expect(valid.statusCode).toBe(200);
    expect(limitOf(valid)).toEqual({ limit: "100", remaining: "99" });
    expect((await app.inject({ method: "GET", url: "/trpc/account.get", remoteAddress: "10.0.0.1", headers: bearer(apiKey) })).statusCode).toBe(200);
    expect((await from("10.0.0.1", bearer("shk_wrongwrongwrongwrongwrongwrongwrongwron"))).statusCode).toBe(429);
    // Another address is not affected.
    const elsewhere = await from("10.0.0.2", bearer(apiKey));
    expect(elsewhere.statusCode).toBe(200);
    expect(limitOf(elsewhere)).toEqual({ limit: "100", remaining: "97" });
    expect((await from("10.0.0.2")).statusCode).toBe(401);
  });

  it("groups IPv6 clients by /64, so one host cannot rotate through its addresses", async () => {
    const app = await appWith({}, { max: 2, windowMs: 60_000 });
    await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "2001:db8:1:2::1" });
    await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "2001:db8:1:2::2" });
    expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "2001:db8:1:2::3" })).statusCode).toBe(429);
    expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "2001:db8:1:3::1" })).statusCode).toBe(401);
  });

  it("reads X-Forwarded-For only from a trusted proxy (TRUST_PROXY)", async () => {
    const untrusted = await appWith({ trustProxy: false }, { max: 2, windowMs: 60_000 });
    const trusted = await appWith({ trustProxy: ["10.9.9.9"] }, { max: 2, windowMs: 60_000 });
    const fail = (app: FastifyInstance, remoteAddress: string, client: string) => app.inject({ method: "GET", url: "/api/v1/account", remoteAddress, headers: { "x-forwarded-for": client } });

    // Not trusted: a client cannot escape its counter by inventing X-Forwarded-For addresses.
    expect((await fail(untrusted, "10.9.9.9", "1.1.1.1")).statusCode).toBe(401);
    expect((await fail(untrusted, "10.9.9.9", "1.1.1.2")).statusCode).toBe(401);
    expect((await fail(untrusted, "10.9.9.9", "1.1.1.3")).statusCode).toBe(429);

    // Trusted proxy: each forwarded client has its own counter.
    for (const client of ["2.2.2.1", "2.2.2.2", "2.2.2.3", "2.2.2.1"]) expect((await fail(trusted, "10.9.9.9", client)).statusCode).toBe(401);
    expect((await fail(trusted, "10.9.9.9", "2.2.2.1")).statusCode).toBe(429);
    // The same header from an address that is not the proxy is ignored.
    expect((await fail(trusted, "10.8.8.8", "3.3.3.1")).statusCode).toBe(401);
    expect((await fail(trusted, "10.8.8.8", "3.3.3.2")).statusCode).toBe(401);
    expect((await fail(trusted, "10.8.8.8", "3.3.3.3")).statusCode).toBe(429);
  });
});
