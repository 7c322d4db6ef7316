import { TRPCClientError } from "@trpc/client";
import { API_KEY_SCOPES, MAX_NAMED_KEYS_PER_USER, sha256 } from "@shortener/core";
import type { TestUser } from "@shortener/core/testing";
import { queryRows, sql, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createKeyCache, LAST_USED_WRITE_INTERVAL_MS } from "../src/http/key-cache.ts";
import { createOwner, createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §17: named, scoped, expiring API keys on a real server — the secret shown once and stored as
 * a hash, the prefix, the limits and 422s, deletion (own keys only), expiry by the app's clock, the
 * once-a-minute `last_used_at`, rotation that keeps a key's scopes, and the same keys on tRPC.
 */
let database: Database;
let api: TestApi;
/** The app's clock: tests move it to expire keys and to space out uses. */
let clock = new Date("2026-11-24T10:00:00.000Z");
const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));

beforeAll(async () => {
  api = await createTestApi({}, { now: () => clock });
  database = api.database;
});
afterAll(async () => {
  await api?.close();
});

async function createKey(user: TestUser | string, form: Record<string, string | string[]>) {
  const res = await api.call(user, "POST", "/api/v1/account/api-keys", form);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; name: string; prefix: string; scopes: string[]; expires_at: string | null; last_used_at: string | null; created_at: string; api_key: string };
}

async function storedKey(id: number) {
  const [row] = await queryRows<{ key_hash: string; prefix: string; name: string | null; scopes: string[] | null; last_used_at: string | null; revoked_at: string | null }>(
    database.db,
    sql`select key_hash, prefix, name, scopes, last_used_at, revoked_at from api_keys where id = ${id}`,
  );
  return row;
}

describe("POST /api/v1/account/api-keys", () => {
  it("answers 201 with the key and its secret once; the database keeps only the hash and the first 8 characters", async () => {
    const user = await api.user();
    const key = await createKey(user, { name: "  CI deploys  ", "scopes[]": ["stats:read", "links:read", "links:read"], expires_at: "2027-01-01" });
    expect(key).toEqual({
      id: expect.any(Number),
      name: "CI deploys",
      prefix: key.api_key.slice(0, 8),
      scopes: ["links:read", "stats:read"],
      expires_at: "2027-01-01T00:00:00.000Z",
      last_used_at: null,
      created_at: clock.toISOString(),
      created_by: { id: user.id, name: "Test User", email: user.email },
      api_key: expect.stringMatching(/^shk_[A-Za-z0-9]{40}$/),
    });
    expect(key.prefix).toHaveLength(8);
    const row = await storedKey(key.id);
    expect(row).toMatchObject({ key_hash: sha256(key.api_key), prefix: key.prefix, name: "CI deploys", scopes: ["links:read", "stats:read"] });
    expect(JSON.stringify(row)).not.toContain(key.api_key);
  });

  it("takes the scopes as scopes[], as one string separated by spaces or commas, or as a JSON array", async () => {
    const user = await api.user();
    expect((await createKey(user, { name: "a", scopes: "domains:write links:read" })).scopes).toEqual(["links:read", "domains:write"]);
    expect((await createKey(user, { name: "b", scopes: "account,imports:write" })).scopes).toEqual(["imports:write", "account"]);
    const res = await api.app.inject({
      method: "POST",
      url: "/api/v1/account/api-keys",
      headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" },
      payload: JSON.stringify({ name: "c", scopes: [...API_KEY_SCOPES].reverse(), expires_at: "2027-03-04T05:06:07+02:00" }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ scopes: [...API_KEY_SCOPES], expires_at: "2027-03-04T03:06:07.000Z" });
  });

  it("422 with every failing field at once: name, scopes, expires_at", async () => {
    const user = await api.user();
    const cases: Array<[Record<string, string | string[]>, Record<string, string[]>]> = [
      [{}, { name: ["The name field is required."], scopes: ["The scopes must be a non-empty list of links:read, links:write, domains:read, domains:write, stats:read, imports:write, account."] }],
      [
        { name: "x".repeat(101), "scopes[]": ["links:read", "links:delete"], expires_at: "tomorrow" },
        {
          name: ["The name must not be greater than 100 characters."],
          "scopes.1": ['The scope "links:delete" is not one of links:read, links:write, domains:read, domains:write, stats:read, imports:write, account.'],
          expires_at: ["The expires at must be an ISO-8601 date or date-time."],
        },
      ],
      [
        { name: "   ", scopes: "" },
        { name: ["The name field is required."], scopes: ["The scopes must be a non-empty list of links:read, links:write, domains:read, domains:write, stats:read, imports:write, account."] },
      ],
      [{ name: "past", scopes: "links:read", expires_at: "2026-11-24T09:59:59Z" }, { expires_at: ["The expires at must be a date in the future."] }],
      [{ name: "now", scopes: "links:read", expires_at: "2026-11-24T10:00:00Z" }, { expires_at: ["The expires at must be a date in the future."] }],
      [{ name: "bad date", scopes: "links:read", expires_at: "2027-02-30" }, { expires_at: ["The expires at must be an ISO-8601 date or date-time."] }],
    ];
    for (const [form, message] of cases) {
      const res = await api.call(user, "POST", "/api/v1/account/api-keys", form);
      expect(res.status, JSON.stringify(form)).toBe(422);
      expect(res.body, JSON.stringify(form)).toEqual({ message, code: "validation_failed", status: 422 });
    }
    const list = await api.call(user, "GET", "/api/v1/account/api-keys");
    expect(list.body.meta.total).toBe(0);
  });

  it(`at most ${MAX_NAMED_KEYS_PER_USER} live keys a user; deleting one frees a place`, async () => {
    const user = await api.user();
    const ids: number[] = [];
    for (let i = 0; i < MAX_NAMED_KEYS_PER_USER; i++) ids.push((await createKey(user, { name: `k${i}`, scopes: "links:read" })).id);
    const over = await api.call(user, "POST", "/api/v1/account/api-keys", { name: "one more", scopes: "links:read" });
    expect(over.status).toBe(422);
    expect(over.body.message).toEqual({ name: [`You cannot have more than ${MAX_NAMED_KEYS_PER_USER} API keys; delete one first.`] });
    expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${ids[0]}`)).status).toBe(200);
    await createKey(user, { name: "one more", scopes: "links:read" });
    // Creates at once cannot both take the last place (the user's row is locked while counting).
    expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${ids[1]}`)).status).toBe(200);
    const racing = await Promise.all([1, 2, 3].map((i) => api.call(user, "POST", "/api/v1/account/api-keys", { name: `race ${i}`, scopes: "links:read" })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    expect((await api.call(user, "GET", "/api/v1/account/api-keys")).body.meta.total).toBe(MAX_NAMED_KEYS_PER_USER);
    // Another user's count is their own.
    await createKey(await api.user(), { name: "elsewhere", scopes: "links:read" });
  });
});

describe("GET /api/v1/account/api-keys", () => {
  it("lists the caller's named keys, newest first, without secrets; not the key of §9, not deleted ones, not other users'", async () => {
    const user = await api.user();
    const first = await createKey(user, { name: "first", scopes: "links:read" });
    const second = await createKey(user, { name: "second", scopes: "stats:read account", expires_at: "2030-01-01T00:00:00Z" });
    const gone = await createKey(user, { name: "gone", scopes: "links:read" });
    await api.call(user, "DELETE", `/api/v1/account/api-keys/${gone.id}`);
    await createKey(await api.user(), { name: "someone else's", scopes: "links:read" });
    const res = await api.call(user, "GET", "/api/v1/account/api-keys");
    expect(res.status).toBe(200);
    const { api_key: _secret, ...shown } = second;
    expect(res.body.data).toEqual([shown, { ...first, api_key: undefined }].map((k) => JSON.parse(JSON.stringify(k))));
    expect(JSON.stringify(res.body)).not.toContain(first.api_key);
    expect(JSON.stringify(res.body)).not.toContain(second.api_key);
    expect(res.body.meta).toMatchObject({ total: 2, per_page: 10, current_page: 1 });
    const asc = await api.call(user, "GET", "/api/v1/account/api-keys?sort=asc&per_page=25");
    expect(asc.body.data.map((k: { name: string }) => k.name)).toEqual(["first", "second"]);
    expect((await api.call(user, "GET", "/api/v1/account/api-keys?per_page=7")).status).toBe(422);
  });
});

describe("using a named key", () => {
  it("works as a Bearer key within its scopes; §9 keys keep every scope", async () => {
    const owner = await createOwner(api);
    const key = await createKey(owner.user, { name: "reader", scopes: "links:read" });
    expect((await api.call(key.api_key, "GET", "/api/v1/links")).status).toBe(200);
    const write = await api.call(key.api_key, "POST", "/api/v1/links", { url: "https://example.com/", domain_id: String(owner.domain.id) });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ message: "This API key does not have the links:write scope.", code: "forbidden", status: 403 });
    // The user's own key of §9: full scope.
    expect((await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/", domain_id: String(owner.domain.id) })).status).toBe(201);
    expect((await api.call(owner.user, "GET", "/api/v1/account")).status).toBe(200);
  });

  it("a deleted key is a 401 at once; only the owner can delete it (another user's id, a §9 key's id, a deleted one: 404)", async () => {
    const user = await api.user();
    const other = await api.user();
    const key = await createKey(user, { name: "short-lived", scopes: "account" });
    expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(200);
    const foreign = await api.call(other, "DELETE", `/api/v1/account/api-keys/${key.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(200);
    const [own] = await queryRows<{ id: number }>(database.db, sql`select id from api_keys where key_hash = ${sha256(user.apiKey)}`);
    expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${own?.id}`)).status).toBe(404);
    expect((await api.call(user, "DELETE", "/api/v1/account/api-keys/abc")).status).toBe(404);
    const deleted = await api.call(user, "DELETE", `/api/v1/account/api-keys/${key.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: key.id, object: "api_key", deleted: true, status: 200 });
    const after = await api.call(key.api_key, "GET", "/api/v1/account");
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated", status: 401 });
    expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${key.id}`)).status).toBe(404);
    // A key can delete itself.
    const self = await createKey(user, { name: "self", scopes: "account" });
    expect((await api.call(self.api_key, "DELETE", `/api/v1/account/api-keys/${self.id}`)).status).toBe(200);
    expect((await api.call(self.api_key, "GET", "/api/v1/account")).status).toBe(401);
  });

  it("an expired key is a 401, whether this process held it in memory or not", async () => {
    const user = await api.user();
    const held = await createKey(user, { name: "held", scopes: "account", expires_at: new Date(clock.getTime() + 60 * 60_000).toISOString() });
    const cold = await createKey(user, { name: "cold", scopes: "account", expires_at: new Date(clock.getTime() + 60 * 60_000).toISOString() });
    expect((await api.call(held.api_key, "GET", "/api/v1/account")).status).toBe(200);
    advance(60 * 60_000);
    for (const key of [held, cold]) {
      const res = await api.call(key.api_key, "GET", "/api/v1/account");
      expect(res.status, key.name).toBe(401);
      expect(res.body).toEqual({ message: "Unauthenticated.", code: "unauthenticated", status: 401 });
    }
    // Still listed (so its owner sees it expired), until deleted.
    const list = await api.call(user, "GET", "/api/v1/account/api-keys");
    expect(list.body.data.map((k: { name: string }) => k.name)).toEqual(["cold", "held"]);
  });

  it("rotating a named key (POST /account/api-key) keeps its name, scopes and expiry: never a wider key", async () => {
    const user = await api.user();
    const key = await createKey(user, { name: "rotating", scopes: "account links:read", expires_at: "2030-05-06" });
    const rotated = await api.call(key.api_key, "POST", "/api/v1/account/api-key");
    expect(rotated.status).toBe(201);
    const next = rotated.body.data.api_key as string;
    expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(401);
    expect((await api.call(next, "GET", "/api/v1/links")).status).toBe(200);
    expect((await api.call(next, "GET", "/api/v1/domains")).status).toBe(403);
    const list = await api.call(user, "GET", "/api/v1/account/api-keys");
    expect(list.body.data).toEqual([expect.objectContaining({ name: "rotating", prefix: next.slice(0, 8), scopes: ["links:read", "account"], expires_at: "2030-05-06T00:00:00.000Z" })]);
  });

  it("the public stats page opens a privacy-1 link to its owner's key only with stats:read", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/p", domain_id: String(owner.domain.id), privacy: "1" })).body.data;
    const page = (key: string) => api.app.inject({ method: "GET", url: `/stats/${link.id}`, headers: { accept: "application/json", authorization: `Bearer ${key}` } });
    const withStats = await createKey(owner.user, { name: "stats", scopes: "stats:read" });
    const without = await createKey(owner.user, { name: "links", scopes: "links:read" });
    expect((await page(withStats.api_key)).statusCode).toBe(200);
    expect((await page(without.api_key)).statusCode).toBe(404);
    expect((await page(owner.user.apiKey)).statusCode).toBe(200);
  });
});

describe("last_used_at", () => {
  it("is written at the first use and then at most once a minute per key", async () => {
    const user = await api.user();
    const key = await createKey(user, { name: "busy", scopes: "account" });
    const lastUsed = async () => (await storedKey(key.id))?.last_used_at;
    const start = clock.toISOString();
    expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(200);
    await vi.waitFor(async () => expect(new Date((await lastUsed()) ?? 0).toISOString()).toBe(start));
    advance(LAST_USED_WRITE_INTERVAL_MS - 1_000);
    for (let i = 0; i < 5; i++) expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(200);
    advance(1_000);
    const minuteLater = clock.toISOString();
    expect((await api.call(key.api_key, "GET", "/api/v1/account")).status).toBe(200);
    await vi.waitFor(async () => expect(new Date((await lastUsed()) ?? 0).toISOString()).toBe(minuteLater));
    const listed = await api.call(user, "GET", "/api/v1/account/api-keys");
    expect(listed.body.data[0]).toMatchObject({ name: "busy", last_used_at: minuteLater });
  });

  it("the key cache writes once per key a minute, however many uses (counted by the writes it makes)", async () => {
    let now = new Date("2026-11-24T12:00:00.000Z");
    const cache = createKeyCache(database, () => now);
    const user = await api.user();
    const a = await createKey(user, { name: "a", scopes: "account" });
    const b = await createKey(user, { name: "b", scopes: "account" });
    const written = async () =>
      Object.fromEntries((await Promise.all([a, b].map(async (k) => [k.name, (await storedKey(k.id))?.last_used_at ?? null] as const))).map(([n, v]) => [n, v && new Date(v).toISOString()]));
    const t0 = now.toISOString();
    for (let i = 0; i < 10; i++) cache.touch(a.id);
    await cache.settle();
    expect(await written()).toEqual({ a: t0, b: null });
    now = new Date(now.getTime() + 59_999);
    cache.touch(a.id);
    cache.touch(b.id);
    await cache.settle();
    expect(await written()).toEqual({ a: t0, b: now.toISOString() });
    now = new Date(now.getTime() + 1);
    cache.touch(a.id);
    await cache.settle();
    expect(await written()).toEqual({ a: now.toISOString(), b: new Date(now.getTime() - 1).toISOString() });
    await cache.stop();
  });
});

describe("tRPC: account.apiKeys", () => {
  it("lists, creates and deletes keys; the keys work as Bearer on /trpc with FORBIDDEN outside their scopes", async () => {
    const user = await api.user();
    const client = trpcClient(api.app, user.apiKey);
    const created = await client.account.apiKeys.create.mutate({ name: "from trpc", scopes: ["links:read"], expires_at: "2031-01-01T00:00:00Z" });
    expect(created).toMatchObject({ name: "from trpc", scopes: ["links:read"], expires_at: "2031-01-01T00:00:00.000Z", last_used_at: null });
    expect(created.prefix).toBe(created.api_key.slice(0, 8));
    const list = await client.account.apiKeys.list.query({});
    expect(list.data).toEqual([
      {
        id: created.id,
        name: created.name,
        prefix: created.prefix,
        scopes: created.scopes,
        expires_at: created.expires_at,
        last_used_at: null,
        created_at: created.created_at,
        created_by: { id: user.id, name: "Test User", email: user.email },
      },
    ]);

    const scoped = trpcClient(api.app, created.api_key);
    expect((await scoped.links.list.query({})).meta.total).toBe(0);
    const refused = await scoped.account.get.query().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ code: "FORBIDDEN", httpStatus: 403 });
    expect((refused as TRPCClientError<never>).message).toBe("This API key does not have the account scope.");

    const invalid = await client.account.apiKeys.create.mutate({ name: "", scopes: [] }).catch((error: unknown) => error);
    expect((invalid as TRPCClientError<never>).data).toMatchObject({ code: "BAD_REQUEST" });

    expect(await client.account.apiKeys.delete.mutate({ id: created.id })).toEqual({ id: created.id, object: "api_key", deleted: true });
    const gone = await scoped.links.list.query({}).catch((error: unknown) => error);
    expect((gone as TRPCClientError<never>).data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
    const again = await client.account.apiKeys.delete.mutate({ id: created.id }).catch((error: unknown) => error);
    expect((again as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND" });
  });
});
