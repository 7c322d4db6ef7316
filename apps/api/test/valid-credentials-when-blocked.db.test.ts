import type { FastifyInstance, InjectOptions } from "fastify";
import { createTestUser, insertTestDomain } from "@shortener/core/testing";
import { FAILED_TRY_LIMIT } from "@shortener/web-guard";
import { describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG, type ApiConfig } from "../src/index.ts";
import { testFailedTries, useDatabaseAndRedis } from "./helpers.ts";

/**
 * CONTRACT §15 ✦ (issue 26, item 1): failed tries lock out guessers, never callers with a valid
 * credential. After a burst of bad keys from one address, that address's valid API keys (cached or
 * not, on any process), its tRPC calls and its dashboard session get their normal answers; its
 * missing and unknown keys are still 429. Two API processes on one database, with the failed tries
 * counted in the database and, second, in Redis (shared either way).
 */
const suite = useDatabaseAndRedis();

const CONFIG: Partial<ApiConfig> = { rateLimitPerMinute: 1_000 };

/** One API process with the real failed-try limit, counting in the database or in Redis. */
async function processOn(store: "database" | "Redis"): Promise<FastifyInstance> {
  let app: FastifyInstance;
  if (store === "Redis") {
    app = await createApi({ database: suite.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...CONFIG, redisUrl: suite.redis.url, redisKeyPrefix: suite.redis.prefix } });
  } else {
    const failedTries = testFailedTries(suite.database, FAILED_TRY_LIMIT);
    suite.limiters.push(failedTries);
    app = await createApi({ database: suite.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...CONFIG }, failedTries });
  }
  await app.ready();
  suite.apps.push(app);
  return app;
}

let n = 0;
/** An address of its own for each test (the suite.database's counters are shared by the whole file). */
const nextIp = () => `198.51.100.${++n}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe.each([["database"], ["Redis"]] as const)("failed tries counted in the %s", (store) => {
  it("a burst of bad keys blocks the guesses of that address, never its valid keys or sessions", async () => {
    const [a, b] = [await processOn(store), await processOn(store)];
    const ip = nextIp();
    const admin = await createTestUser(suite.database.db, { role: "admin" });
    const owner = await createTestUser(suite.database.db);
    const domain = await insertTestDomain(suite.database.db, owner.workspaceId);
    // The admin's key is in process A's cache; the session was opened from another address.
    expect((await a.inject({ method: "GET", url: "/api/v1/account", remoteAddress: nextIp(), headers: bearer(admin.apiKey) })).statusCode).toBe(200);
    const signIn = await a.inject({
      method: "POST",
      url: "/app/session",
      remoteAddress: nextIp(),
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ api_key: owner.apiKey }),
    });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers["set-cookie"]).split(";", 1)[0] ?? "";
    const csrf = String(signIn.json().data.csrf_token);
    const link = await a.inject({
      method: "POST",
      url: "/api/v1/links",
      remoteAddress: nextIp(),
      headers: { ...bearer(owner.apiKey), "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ url: "https://dest.example/", domain_id: String(domain.id), privacy: "1" }).toString(),
    });
    expect(link.statusCode).toBe(201);
    const linkId = Number(link.json().data.id);

    // 30 bad keys at once, over REST, tRPC and the stats page, on both processes: 10 checked, 20 refused.
    const guesses: Array<[FastifyInstance, InjectOptions]> = Array.from({ length: 30 }, (_, i) => [
      i % 2 ? a : b,
      { method: "GET", url: ["/api/v1/links", "/trpc/links.list", `/stats/${linkId}`][i % 3], remoteAddress: ip, headers: { ...bearer(`shk_guess${i}`), accept: "application/json" } },
    ]);
    const statuses = (await Promise.all(guesses.map(([app, request]) => app.inject(request)))).map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.filter((s) => s !== 429).every((s) => s === 401 || s === 404)).toBe(true);

    // Valid credentials from the blocked address: their normal answers, with their own key's limit.
    const fresh = await createTestUser(suite.database.db);
    const another = await createTestUser(suite.database.db);
    const from = (app: FastifyInstance, request: InjectOptions) => app.inject({ ...request, remoteAddress: ip });
    const valid: Array<[string, FastifyInstance, InjectOptions, number]> = [
      ["the admin's cached key on A", a, { method: "GET", url: "/api/v1/account", headers: bearer(admin.apiKey) }, 200],
      ["the admin's key on B, which has not seen it", b, { method: "GET", url: "/api/v1/users", headers: bearer(admin.apiKey) }, 200],
      ["a key no process has cached, on A", a, { method: "GET", url: "/api/v1/account", headers: bearer(fresh.apiKey) }, 200],
      ["a key no process has cached, on B", b, { method: "GET", url: "/api/v1/links", headers: bearer(another.apiKey) }, 200],
      ["tRPC with a valid key", a, { method: "GET", url: "/trpc/account.get", headers: bearer(fresh.apiKey) }, 200],
      [
        "a tRPC batch with a valid key",
        b,
        { method: "GET", url: `/trpc/account.get,links.list?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: {} }))}`, headers: bearer(admin.apiKey) },
        200,
      ],
      ["the owner's key on the stats page", a, { method: "GET", url: `/stats/${linkId}`, headers: { ...bearer(owner.apiKey), accept: "application/json" } }, 200],
      ["the dashboard session: a query", a, { method: "GET", url: "/trpc/auth.me", headers: { cookie } }, 200],
      [
        "the dashboard session: a mutation",
        b,
        { method: "POST", url: "/trpc/spaces.create", headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json" }, payload: JSON.stringify({ name: "from a shared office" }) },
        200,
      ],
    ];
    for (const [what, app, request, status] of valid) {
      const res = await from(app, request);
      expect(res.statusCode, what).toBe(status);
      // The key's own limit of §10 (the stats page has none), not the failed tries' 10.
      if (!String(request.url).startsWith("/stats/")) expect(res.headers["x-ratelimit-limit"], what).toBe("1000");
    }

    // Attempts without a valid credential from there: still 429, on both processes.
    const refused: Array<[string, FastifyInstance, InjectOptions]> = [
      ["no key", a, { method: "GET", url: "/api/v1/account" }],
      ["an unknown key", b, { method: "GET", url: "/api/v1/account", headers: bearer("shk_guess_again") }],
      ["an unknown key over tRPC", a, { method: "GET", url: "/trpc/account.get", headers: bearer("shk_guess_more") }],
      ["an unknown key on the stats page", b, { method: "GET", url: `/stats/${linkId}`, headers: { ...bearer("shk_guess_stats"), accept: "application/json" } }],
    ];
    for (const [what, app, request] of refused) {
      const res = await from(app, request);
      expect(res.statusCode, what).toBe(429);
      expect(Number(res.headers["retry-after"]), what).toBeGreaterThan(14 * 60);
    }
  });

  it("valid keys do not take failed tries back: the address stays blocked after them", async () => {
    const app = await processOn(store);
    const ip = nextIp();
    const { apiKey } = await createTestUser(suite.database.db);
    for (let i = 0; i < FAILED_TRY_LIMIT.max; i++) {
      expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: bearer(`shk_wrong${i}`) })).statusCode).toBe(401);
      expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: bearer(apiKey) })).statusCode).toBe(200);
    }
    expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: bearer("shk_wrong") })).statusCode).toBe(429);
    expect((await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: bearer(apiKey) })).statusCode).toBe(200);
  });
});
