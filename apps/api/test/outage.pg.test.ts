import type { FastifyInstance } from "fastify";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { links, type Database } from "@shortener/db";
import { openTestDbBehindProxy, type ProxiedTestDb, type TcpProxy } from "@shortener/db/testing";
import { createDomain } from "@shortener/core";
import { createTestUser, type TestUser } from "@shortener/core/testing";
import { createApi, DEFAULT_API_CONFIG } from "../src/index.ts";
import { UNLIMITED } from "./helpers.ts";

/**
 * CONTRACT §16 on the API: while the database is unreachable every call answers 503
 * `service_unavailable` with Retry-After, on REST and tRPC alike, never 500; `/readyz` says so; when it
 * is back, everything answers again. The database goes away through a TCP proxy the test stops.
 * Postgres only: PGlite runs inside the process and cannot become unreachable.
 */
describe("the API while the database is unreachable (Postgres only: PGlite is in-process)", () => {
  let outage: ProxiedTestDb;
  let direct: Database;
  let viaProxy: Database;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  let user: TestUser;
  let other: TestUser;
  let domainId: number;

  beforeAll(async () => {
    outage = await openTestDbBehindProxy();
    ({ direct, viaProxy, proxy } = outage);
    app = await createApi({ database: viaProxy, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...UNLIMITED } });
    await app.ready();
    user = await createTestUser(direct.db);
    other = await createTestUser(direct.db);
    domainId = (await createDomain({ ctx: user.ctx, input: { name: `outage-${Date.now()}.example` } })).id;
  });
  afterAll(async () => {
    await proxy?.start();
    await app?.close();
    await outage?.close();
  });

  const call = (key: string, method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
    app.inject({ method, url, headers: { authorization: `Bearer ${key}`, ...(payload ? { "content-type": "application/json" } : {}) }, ...(payload ? { payload } : {}) });

  const UNAVAILABLE = { message: "Service Unavailable.", code: "service_unavailable", status: 503 };

  it("answers 503 with Retry-After on REST and tRPC, for a cached key and an unknown one, and writes nothing", async () => {
    // The key is cached by a first call, as in a running service.
    expect((await call(user.apiKey, "GET", "/api/v1/links")).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    const before = await direct.db.select({ n: sql<number>`count(*)::int` }).from(links);

    await proxy.stop();
    const requests = [
      () => call(user.apiKey, "GET", "/api/v1/links"),
      () => call(user.apiKey, "GET", `/api/v1/domains/${domainId}`),
      () => call(user.apiKey, "POST", "/api/v1/links", { url: "https://during-outage.example/", domain_id: domainId }),
      () => call(user.apiKey, "GET", "/api/v1/stats/1?name=clicks"),
      () => call(user.apiKey, "GET", "/api/v1/imports"),
      // A key this process has not seen: the guard itself needs the database.
      () => call(other.apiKey, "GET", "/api/v1/links"),
    ];
    for (const request of requests) {
      const res = await request();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual(UNAVAILABLE);
      expect(res.headers["retry-after"]).toBe("5");
    }

    const trpcQuery = await app.inject({ method: "GET", url: "/trpc/links.list?input=%7B%7D", headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(trpcQuery.statusCode).toBe(503);
    expect(trpcQuery.headers["retry-after"]).toBe("5");
    expect(trpcQuery.json()).toMatchObject({ error: { message: "Service Unavailable.", data: { code: "SERVICE_UNAVAILABLE", httpStatus: 503, slug: "service_unavailable" } } });
    const trpcMutation = await app.inject({
      method: "POST",
      url: "/trpc/links.create",
      headers: { authorization: `Bearer ${other.apiKey}`, "content-type": "application/json" },
      payload: { url: "https://during-outage.example/", domain_id: domainId },
    });
    expect(trpcMutation.statusCode).toBe(503);
    expect(trpcMutation.json()).toMatchObject({ error: { data: { httpStatus: 503, slug: "service_unavailable" } } });

    const ready = await app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: "unavailable" });

    await proxy.start();
    // Back: the pool reconnects on its own.
    const deadline = Date.now() + 15_000;
    let res = await call(user.apiKey, "GET", "/api/v1/links");
    while (res.statusCode !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      res = await call(user.apiKey, "GET", "/api/v1/links");
    }
    expect(res.statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/readyz" })).json()).toEqual({ status: "ok" });
    expect((await call(other.apiKey, "GET", "/api/v1/links")).statusCode).toBe(200);
    expect(await direct.db.select({ n: sql<number>`count(*)::int` }).from(links)).toEqual(before);
  });
});
