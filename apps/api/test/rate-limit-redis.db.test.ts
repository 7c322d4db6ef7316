import { createServer, connect, type Server, type Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { openTestRedis, type TestRedis } from "@shortener/web-guard/testing";
import { createTestUser, openTestDb } from "@shortener/core/testing";
import type { Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG, type ApiConfig } from "../src/index.ts";

/**
 * CONTRACT §10: with REDIS_URL the counters are shared by every process. Needs the Redis of the
 * development and CI machines (TOOLCHAIN.md); when it is down these tests fail, they never skip.
 * Each run writes under a prefix of its own, so parallel runs and test files never share a counter.
 */
let database: Database;
let testRedis: TestRedis;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  database = await openTestDb();
  testRedis = await openTestRedis(process.env.TEST_REDIS_URL);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await database?.close();
  await testRedis?.close();
});

/** One API process: its own Fastify instance, on the shared database and the shared Redis. */
async function processWith(config: Partial<ApiConfig>, redisUrl = testRedis.url): Promise<FastifyInstance> {
  const app = await createApi({ database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, redisUrl, redisKeyPrefix: testRedis.prefix, ...config } });
  await app.ready();
  apps.push(app);
  return app;
}

const account = (app: FastifyInstance, key?: string) => app.inject({ method: "GET", url: "/api/v1/account", headers: key ? { authorization: `Bearer ${key}` } : {} });

describe("rate limits shared through Redis", () => {
  it("two processes enforce one limit per key: 3 requests on A and 3 on B, the sixth is 429", async () => {
    const a = await processWith({ rateLimitPerMinute: 5 });
    const b = await processWith({ rateLimitPerMinute: 5 });
    const { apiKey } = await createTestUser(database.db);
    const remaining: string[] = [];
    for (const app of [a, a, a, b, b]) {
      const res = await account(app, apiKey);
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers["x-ratelimit-remaining"]));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const sixth = await account(b, apiKey);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.body).toBe('{"message":"Too Many Attempts.","code":"rate_limited","status":429}');
    expect(Number(sixth.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect((await account(a, apiKey)).statusCode).toBe(429);
    expect((await a.inject({ method: "GET", url: "/trpc/account.get", headers: { authorization: `Bearer ${apiKey}` } })).statusCode).toBe(429);
  });

  it("shares the failed authentications of an address too: 10 in 15 minutes over both processes (CONTRACT §15)", async () => {
    const a = await processWith({});
    const b = await processWith({});
    const from = (app: FastifyInstance) => app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "192.0.2.77", headers: { authorization: "Bearer shk_not-a-key" } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await from(a)).statusCode, (await from(b)).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    expect((await from(a)).statusCode).toBe(429);
    expect((await from(b)).statusCode).toBe(429);
  });

  it("200 concurrent unknown keys spread over two processes: at most 10 × 401, the rest 429", async () => {
    const a = await processWith({});
    const b = await processWith({});
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).inject({ method: "GET", url: "/api/v1/account", remoteAddress: "192.0.2.79", headers: { authorization: `Bearer shk_guess${i}` } })),
    );
    const statuses = responses.map((r) => r.statusCode);
    const counts = { 401: statuses.filter((s) => s === 401).length, 429: statuses.filter((s) => s === 429).length };
    console.log("API keys, two API instances on Redis: 200 wrong keys →", JSON.stringify(counts));
    expect(counts).toEqual({ 401: 10, 429: 190 });
  });

  it("stores counters under the prefix, by key id and a keyed hash of the address, never the key or the address itself", async () => {
    const app = await processWith({});
    const { apiKey } = await createTestUser(database.db);
    await account(app, apiKey);
    const before = new Set(await testRedis.redis.keys(`${testRedis.prefix}failed-tries:*`));
    await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "192.0.2.78" });
    await app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: "2001:db8:5:6::7" });
    const keys = await testRedis.redis.keys(`${testRedis.prefix}*`);
    expect(keys.some((k) => /k:\d+$/.test(k))).toBe(true);
    // One failed-try counter per address group (CONTRACT §21: no address stored anywhere, Redis included).
    const tries = keys.filter((k) => k.startsWith(`${testRedis.prefix}failed-tries:key|`) && !before.has(k));
    expect(tries).toHaveLength(2);
    for (const key of tries) expect(key.slice(`${testRedis.prefix}failed-tries:key|`.length)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const all = keys.join(" ");
    for (const text of [apiKey.slice(4, 20), "192.0.2.78", "2001:db8:5:6"]) expect(all).not.toContain(text);
    const ttl = await testRedis.redis.pttl(tries[0] as string);
    expect(ttl > 14 * 60_000 && ttl <= 15 * 60_000).toBe(true);
  });

  it("an unreachable Redis stops the start with a message naming REDIS_URL", async () => {
    await expect(createApi({ database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, redisUrl: "redis://127.0.0.1:1" } })).rejects.toThrow(/REDIS_URL cannot be reached/);
  });

  it("closing the app closes its Redis connections (rate limits and failed tries)", async () => {
    const count = async (name: string) =>
      String(await testRedis.redis.client("LIST"))
        .split("\n")
        .filter((line: string) => line.includes(` name=${name}-${process.pid} `)).length;
    const app = await createApi({ database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, redisUrl: testRedis.url, redisKeyPrefix: testRedis.prefix } });
    const before = [await count("shortener-api"), await count("shortener-failed-tries")];
    expect(before[0]).toBeGreaterThanOrEqual(1);
    expect(before[1]).toBeGreaterThanOrEqual(1);
    await app.close();
    expect([await count("shortener-api"), await count("shortener-failed-tries")]).toEqual([(before[0] ?? 0) - 1, (before[1] ?? 0) - 1]);
  });

  it("when Redis goes away, the process keeps answering and limits with counters in its memory", async () => {
    const proxy = await startProxy(testRedis.url);
    const app = await processWith({ rateLimitPerMinute: 3 }, proxy.url);
    const { apiKey } = await createTestUser(database.db);
    expect((await account(app, apiKey)).headers["x-ratelimit-remaining"]).toBe("2");
    await proxy.stop();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await account(app, apiKey);
      statuses.push(res.statusCode);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

/** A TCP proxy to Redis that the test can cut, as if Redis went down. */
async function startProxy(target: string): Promise<{ url: string; stop(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port || 6379), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("proxy has no port");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    async stop() {
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
