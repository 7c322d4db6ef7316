import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from "@trpc/client";
import type { FastifyInstance, InjectOptions } from "fastify";
import type { Database } from "@shortener/db";
import { createTestUser, openTestDb, type TestUser } from "@shortener/core/testing";
import { createFailedTries, createPostgresStore, type AccountTryLimit, type FailedTries, type FailedTryLimit } from "@shortener/web-guard";
import { openTestRedis, type TestRedis } from "@shortener/web-guard/testing";
import { afterAll, beforeAll } from "vitest";
import { createApi, DEFAULT_API_CONFIG, type ApiConfig, type ApiDeps, type AppRouter } from "../src/index.ts";

export type TestApi = {
  app: FastifyInstance;
  database: Database;
  user(role?: "admin" | "user"): Promise<TestUser>;
  /** A request with the user's bearer key and a form-encoded body. */
  call(
    user: TestUser | string | undefined,
    method: InjectOptions["method"],
    url: string,
    form?: Record<string, string | string[]>,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
};

/** Limits high enough that suites sending many requests with one key never meet them; rate-limit tests set their own. */
export const UNLIMITED: Pick<ApiConfig, "rateLimitPerMinute"> = { rateLimitPerMinute: 1_000_000 };
/** Failed tries (unknown keys, wrong stats passwords) the suites may make; limit tests set their own. */
export const MANY_TRIES: FailedTryLimit = { max: 1_000_000, windowMs: 60_000 };

/** Sign-in guesses per account the suites may make (with MANY_TRIES); limit tests get the real rule. */
export const MANY_ACCOUNT_TRIES: AccountTryLimit = { free: 1_000_000, windowMs: 60_000, baseDelayMs: 1, maxDelayMs: 1 };

/** The failed-try limiter of a test API: counted in the test's database, with `limit`. */
export function testFailedTries(database: Database, limit: FailedTryLimit = MANY_TRIES): FailedTries {
  return createFailedTries({ store: createPostgresStore(database), limit, ...(limit === MANY_TRIES ? { accountLimit: MANY_ACCOUNT_TRIES } : {}) });
}

export async function createTestApi(config: Partial<ApiConfig> = {}, deps: Partial<Pick<ApiDeps, "enqueueImport" | "now">> & { failedTryLimit?: FailedTryLimit } = {}): Promise<TestApi> {
  const database = await openTestDb();
  const { failedTryLimit, ...rest } = deps;
  const failedTries = testFailedTries(database, failedTryLimit);
  const app = await createApi({ database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...UNLIMITED, ...config }, failedTries, ...rest });
  await app.ready();
  return {
    app,
    database,
    user: (role = "user") => createTestUser(database.db, { role }),
    async call(user, method, url, form) {
      const key = typeof user === "string" ? user : user?.apiKey;
      const headers: Record<string, string> = { accept: "application/json" };
      if (key) headers.authorization = `Bearer ${key}`;
      let payload: string | undefined;
      if (form) {
        const params = new URLSearchParams();
        for (const [k, v] of Object.entries(form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
        payload = params.toString();
        headers["content-type"] = "application/x-www-form-urlencoded";
      }
      const res = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
      const isJson = String(res.headers["content-type"] ?? "").startsWith("application/json");
      return { status: res.statusCode, body: isJson ? res.json() : res.body, headers: res.headers };
    },
    async close() {
      await app.close();
      await failedTries.close();
      await database.close();
    },
  };
}

/**
 * A user with a domain, a space and a pixel of their own, created through the API. A user's domain is
 * unverified (CONTRACT §14) unless the API runs with verification off; an admin's is verified.
 */
export async function createOwner(api: TestApi, role: "admin" | "user" = "user") {
  const user = await api.user(role);
  const name = `${Math.random().toString(36).slice(2, 10)}.example`;
  const domain = (await api.call(user, "POST", "/api/v1/domains", { name })).body.data;
  const space = (await api.call(user, "POST", "/api/v1/spaces", { name: `s${Math.random().toString(36).slice(2, 8)}` })).body.data;
  const pixel = (await api.call(user, "POST", "/api/v1/pixels", { name: "p", type: "facebook", value: "123" })).body.data;
  if (!domain?.id || !space?.id || !pixel?.id) throw new Error("owner setup failed");
  return { user, domain, space, pixel };
}

/** A `fetch` that answers through `app.inject`, so the real tRPC client can drive an app that is not listening. */
export function injectFetch(app: FastifyInstance, extraHeaders: Record<string, string> = {}) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = { ...extraHeaders };
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    const res = await app.inject({
      method: (init?.method ?? "GET") as InjectOptions["method"],
      url: url.pathname + url.search,
      headers,
      ...(typeof init?.body === "string" ? { payload: init.body } : {}),
    });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(res.headers)) {
      for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) responseHeaders.append(key, String(item));
    }
    return new Response(res.statusCode === 204 ? null : res.body, { status: res.statusCode, headers: responseHeaders });
  };
}

/** The typed tRPC client of an app, with `key` as its bearer key (one HTTP request a call: httpLink). */
export function trpcClient(app: FastifyInstance, key: string | undefined, options: { batch?: boolean; headers?: Record<string, string> } = {}) {
  const link = options.batch ? httpBatchLink : httpLink;
  return createTRPCClient<AppRouter>({
    links: [
      link({
        url: "http://localhost/trpc",
        fetch: injectFetch(app, options.headers),
        headers: () => (key ? { authorization: `Bearer ${key}` } : {}),
      }),
    ],
  });
}

/** The tRPC error a call fails with (the test fails if the call succeeds or fails otherwise). */
export async function trpcFailure(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<AppRouter>;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/**
 * A suite's test database and Redis, and the API processes and limiters its tests make, all closed
 * after the suite (the limiter suites: sign-in limits, valid credentials from a blocked address).
 */
export function useDatabaseAndRedis() {
  const suite = { database: undefined as unknown as Database, redis: undefined as unknown as TestRedis, apps: [] as FastifyInstance[], limiters: [] as FailedTries[] };
  beforeAll(async () => {
    suite.database = await openTestDb();
    suite.redis = await openTestRedis(process.env.TEST_REDIS_URL);
  });
  afterAll(async () => {
    for (const app of suite.apps) await app.close();
    for (const limiter of suite.limiters) await limiter.close();
    await suite.database?.close();
    await suite.redis?.close();
  });
  return suite;
}
