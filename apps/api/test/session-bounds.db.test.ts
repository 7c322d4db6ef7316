import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiKeys, sessions } from "@shortener/db";
import type { TestUser } from "@shortener/core/testing";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * A dashboard session never has more than what opened it (CONTRACT §19 ✦, docs/adr/0033-session-bounds.md):
 * which keys open one, what a session opened by a limited key may not do, and when a session ends
 * (its key deleted, rotated or expired; the password changed elsewhere). Everything goes through HTTP,
 * as the dashboard and a script would. The clock is the app's injected `now`, moved by the tests.
 */
let api: TestApi;
let clock = Date.now();
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  api = await createTestApi({}, { now: () => new Date(clock) });
});
afterAll(async () => {
  await api?.close();
});

type Answer = { status: number; body: any; headers: Record<string, unknown> };
type Session = { cookie: string; csrf: string };
const UNAUTHENTICATED = { message: "Unauthenticated.", code: "unauthenticated", status: 401 };
const ALL_SCOPES = ["links:read", "links:write", "domains:read", "domains:write", "stats:read", "imports:write", "account"];

async function inject(method: InjectOptions["method"], url: string, options: { json?: unknown; csv?: string; session?: Session; bearer?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.session) Object.assign(headers, { cookie: options.session.cookie, "x-csrf-token": options.session.csrf });
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  if (options.csv !== undefined) headers["content-type"] = "text/csv";
  const payload = options.json !== undefined ? JSON.stringify(options.json) : options.csv;
  const res = await api.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  const isJson = String(res.headers["content-type"] ?? "").startsWith("application/json");
  return { status: res.statusCode, body: isJson ? res.json() : res.body, headers: res.headers };
}

/** A tRPC query (GET) or mutation (POST) with a session or a key. */
const query = (path: string, who: { session?: Session; bearer?: string }, input?: unknown) =>
  inject("GET", `/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, who);
const mutate = (path: string, who: { session?: Session; bearer?: string }, input: unknown = {}) => inject("POST", `/trpc/${path}`, { ...who, json: input });

async function signInWithKey(apiKey: string): Promise<{ res: Answer; session: Session }> {
  const res = await inject("POST", "/app/session", { json: { api_key: apiKey } });
  const cookie = String(res.headers["set-cookie"] ?? "").split(";", 1)[0] ?? "";
  return { res, session: { cookie, csrf: res.body?.data?.csrf_token as string } };
}

async function signInWithPassword(email: string, password: string): Promise<Session> {
  const res = await inject("POST", "/app/session", { json: { email, password } });
  expect(res.status).toBe(200);
  return { cookie: String(res.headers["set-cookie"]).split(";", 1)[0] ?? "", csrf: res.body.data.csrf_token as string };
}

/** A named key of `user`, made with their §9 key: its id and secret. */
async function namedKey(user: TestUser, scopes: string[], expiresAt?: Date): Promise<{ id: number; secret: string }> {
  const form: Record<string, string | string[]> = { name: `k${scopes.length}`, "scopes[]": scopes };
  if (expiresAt) form.expires_at = expiresAt.toISOString();
  const res = await api.call(user, "POST", "/api/v1/account/api-keys", form);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.data.id as number, secret: res.body.data.api_key as string };
}

const isSignedIn = async (session: Session) => (await query("auth.me", { session })).status;

describe("the one-time key sign-in takes only the account's own key or an account-scoped key", () => {
  it("every scope alone, an expired, a revoked, the §9 and an account-scoped key: only the last two and `account` alone sign in; the rest get the wrong key's 401", async () => {
    const user = await api.user();
    const tomorrow = new Date(clock + DAY);
    const cases: Array<[string, () => Promise<string>, number]> = [
      ...ALL_SCOPES.map((scope): [string, () => Promise<string>, number] => [`${scope} alone`, async () => (await namedKey(user, [scope], tomorrow)).secret, scope === "account" ? 200 : 401]),
      [
        "expired account key",
        async () => {
          const key = await namedKey(user, ALL_SCOPES, tomorrow);
          await api.database.db
            .update(apiKeys)
            .set({ expiresAt: new Date(clock - 1000) })
            .where(eq(apiKeys.id, key.id));
          return key.secret;
        },
        401,
      ],
      [
        "revoked account key",
        async () => {
          const key = await namedKey(user, ALL_SCOPES);
          expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${key.id}`)).status).toBe(200);
          return key.secret;
        },
        401,
      ],
      ["the account's own key (§9)", async () => user.apiKey, 200],
      ["account + links:read, expiring", async () => (await namedKey(user, ["account", "links:read"], tomorrow)).secret, 200],
      [
        "every scope but account",
        async () =>
          (
            await namedKey(
              user,
              ALL_SCOPES.filter((s) => s !== "account"),
            )
          ).secret,
        401,
      ],
      ["not a key at all", async () => "shk_000000000000000000000000000000000000000000", 401],
    ];
    const outcomes: Array<[string, number]> = [];
    for (const [name, keyOf, expected] of cases) {
      const { res } = await signInWithKey(await keyOf());
      outcomes.push([name, res.status]);
      if (expected === 401) {
        // The same answer as a wrong key: no oracle telling a scoped key from no key.
        expect(res.body, name).toEqual(UNAUTHENTICATED);
        expect(res.headers["set-cookie"], name).toBeUndefined();
      }
    }
    expect(outcomes).toEqual(cases.map(([name, , expected]) => [name, expected]));
  });

  it("a session has the scopes of its key: tRPC's scope check applies to it as to the key", async () => {
    const user = await api.user();
    const onlyAccount = (await signInWithKey((await namedKey(user, ["account"])).secret)).session;
    const withLinks = (await signInWithKey((await namedKey(user, ["account", "links:read"])).secret)).session;
    const viaMainKey = (await signInWithKey(user.apiKey)).session;
    const list = (session: Session) => query("links.list", { session }, {});
    const denied = await list(onlyAccount);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("This session does not have the links:read scope.");
    expect((await list(withLinks)).status).toBe(200);
    expect((await list(viaMainKey)).status).toBe(200);
    expect((await query("domains.list", { session: withLinks }, {})).status).toBe(403);
    expect((await query("domains.list", { session: viaMainKey }, {})).status).toBe(200);
    // auth.me tells the dashboard which scopes it holds, so its key form offers no more.
    const scopesOf = async (session: Session) => (await query("auth.me", { session })).body.result.data.scopes as string[];
    expect((await scopesOf(withLinks)).sort()).toEqual(["account", "links:read"]);
    expect((await scopesOf(viaMainKey)).length).toBe(7);
  });
});

describe("a session opened by an account-scoped but limited key cannot climb", () => {
  it("refuses every escalation (all-scope key, non-expiring key, deleting links, a webhook for link data, the password, the account key) and changes nothing", async () => {
    const owner = await createOwner(api);
    const user = owner.user;
    const keyExpiry = new Date(clock + 2 * DAY);
    const limited = await namedKey(user, ["account", "stats:read"], keyExpiry);
    const { res, session } = await signInWithKey(limited.secret);
    expect(res.status).toBe(200);
    const link = (await api.call(user, "POST", "/api/v1/links", { url: "https://example.org/kept", domain_id: String(owner.domain.id) })).body.data as { id: number };
    const ownersHook = (await api.call(user, "POST", "/api/v1/webhooks", { url: "https://hooks.example.net/owner", "events[]": ["link.created"] })).body.data as { id: number };
    const keysBefore = (await api.call(user, "GET", "/api/v1/account/api-keys")).body.meta.total as number;

    const within = new Date(clock + DAY).toISOString();
    const beyond = new Date(clock + 3 * DAY).toISOString();
    const attempts: Array<[string, () => Promise<Answer>, number, string | null]> = [
      ["mint a key with every scope", () => mutate("account.apiKeys.create", { session }, { name: "all", scopes: ALL_SCOPES, expires_at: within }), 400, "scopes"],
      ["mint a key with links:write", () => mutate("account.apiKeys.create", { session }, { name: "w", scopes: ["links:write"], expires_at: within }), 400, "scopes"],
      ["mint a key that never expires", () => mutate("account.apiKeys.create", { session }, { name: "forever", scopes: ["stats:read"] }), 400, "expires_at"],
      ["mint a key that outlives this one", () => mutate("account.apiKeys.create", { session }, { name: "later", scopes: ["stats:read"], expires_at: beyond }), 400, "expires_at"],
      ["delete a link without links:write", () => mutate("links.delete", { session }, { id: link.id }), 403, null],
      ["bulk-delete links without links:write", () => mutate("links.bulkDelete", { session }, { ids: [link.id] }), 403, null],
      ["a webhook sending links elsewhere", () => mutate("webhooks.create", { session }, { url: "https://attacker.example.net/hook", events: ["link.created", "link.updated"] }), 400, "events"],
      ["a webhook for import jobs", () => mutate("webhooks.create", { session }, { url: "https://attacker.example.net/hook", events: ["import.completed"] }), 400, "events"],
      ["point the owner's webhook elsewhere", () => mutate("webhooks.update", { session }, { id: ownersHook.id, url: "https://attacker.example.net/hook" }), 400, "events"],
      ["set the dashboard password", () => mutate("auth.setPassword", { session }, { password: "attacker's password" }), 403, null],
      ["rotate the account's own key", () => mutate("account.rotateKey", { session }), 403, null],
      ["upload an import without imports:write", () => inject("POST", `/api/v1/imports?domain_id=${owner.domain.id}`, { session, csv: "url\nhttps://example.org/imported\n" }), 403, null],
    ];
    const outcomes: Array<[string, number, string | null]> = [];
    for (const [name, attempt] of attempts) {
      const answer = await attempt();
      const fields = answer.body?.error?.data?.fieldErrors as Record<string, string[]> | null | undefined;
      outcomes.push([name, answer.status, answer.status === 400 ? (Object.keys(fields ?? {})[0] ?? "no field") : null]);
    }
    expect(outcomes).toEqual(attempts.map(([name, , status, field]) => [name, status, field]));

    // Nothing happened: the link, the keys, the webhooks, no password; the owner's key still signs in.
    expect((await api.call(user, "GET", `/api/v1/links/${link.id}`)).status).toBe(200);
    expect((await api.call(user, "GET", "/api/v1/account/api-keys")).body.meta.total).toBe(keysBefore);
    const hooks = (await api.call(user, "GET", "/api/v1/webhooks")).body.data as Array<{ id: number; url: string }>;
    expect(hooks.map((h) => [h.id, h.url])).toEqual([[ownersHook.id, "https://hooks.example.net/owner"]]);
    expect((await query("auth.me", { session })).body.result.data.has_password).toBe(false);
    expect((await signInWithKey(user.apiKey)).res.status).toBe(200);
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(200);
    expect((await api.call(user, "GET", "/api/v1/imports")).body.data).toEqual([]);

    // What lies within its bounds it may do: a stats:read key that expires by its own time, a clicks webhook.
    const minted = await mutate("account.apiKeys.create", { session }, { name: "ok", scopes: ["stats:read"], expires_at: within });
    expect(minted.status).toBe(200);
    expect(minted.body.result.data).toMatchObject({ scopes: ["stats:read"], expires_at: within });
    expect((await mutate("webhooks.create", { session }, { url: "https://hooks.example.net/clicks", events: ["link.clicked"] })).status).toBe(200);
  });

  it("a bearer key is held to the same bounds when it makes keys or sets the password", async () => {
    const user = await api.user();
    const limited = await namedKey(user, ["account", "links:read"], new Date(clock + DAY));
    const all = await api.call(limited.secret, "POST", "/api/v1/account/api-keys", { name: "all", "scopes[]": ALL_SCOPES, expires_at: new Date(clock + DAY / 2).toISOString() });
    expect(all.status).toBe(422);
    expect(Object.keys(all.body.message)).toEqual(["scopes"]);
    const forever = await api.call(limited.secret, "POST", "/api/v1/account/api-keys", { name: "forever", "scopes[]": ["links:read"] });
    expect(forever.status).toBe(422);
    expect(Object.keys(forever.body.message)).toEqual(["expires_at"]);
    expect((await mutate("auth.setPassword", { bearer: limited.secret }, { password: "a long enough password" })).status).toBe(403);
  });
});

describe("a session ends with what opened it", () => {
  it("deleting the key ends its sessions at once (and they leave the list); deleting its row cascades", async () => {
    const user = await api.user();
    const key = await namedKey(user, ["account", "links:read"]);
    const a = (await signInWithKey(key.secret)).session;
    const b = (await signInWithKey(key.secret)).session;
    const other = (await signInWithKey(user.apiKey)).session;
    expect(await isSignedIn(a)).toBe(200);
    expect((await query("auth.sessions", { session: other })).body.result.data).toHaveLength(3);
    expect((await api.call(user, "DELETE", `/api/v1/account/api-keys/${key.id}`)).status).toBe(200);
    expect(await isSignedIn(a)).toBe(401);
    expect((await query("auth.me", { session: b })).body).toMatchObject({ error: { data: { httpStatus: 401 } } });
    expect(await isSignedIn(other)).toBe(200);
    expect((await query("auth.sessions", { session: other })).body.result.data).toHaveLength(1);

    const second = await namedKey(user, ["account"]);
    const c = (await signInWithKey(second.secret)).session;
    await api.database.db.delete(apiKeys).where(eq(apiKeys.id, second.id));
    expect(await api.database.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.apiKeyId, second.id))).toEqual([]);
    expect(await isSignedIn(c)).toBe(401);
  });

  it("a session ends no later than its key: the clock past the key's expiry, or the key's expiry moved before now, and it is refused", async () => {
    const user = await api.user();
    const keyExpiry = new Date(clock + 60 * 60 * 1000);
    const key = await namedKey(user, ["account"], keyExpiry);
    const { res, session } = await signInWithKey(key.secret);
    expect(res.status).toBe(200);
    // The cookie may say 30 days; the session's own end is the key's.
    const listed = (await query("auth.sessions", { session })).body.result.data as Array<{ expires_at: string }>;
    expect(listed.map((s) => s.expires_at)).toEqual([keyExpiry.toISOString()]);

    const main = (await signInWithKey(user.apiKey)).session;
    const start = clock;
    try {
      clock = keyExpiry.getTime() + 1000;
      expect(await isSignedIn(session)).toBe(401);
      expect(await isSignedIn(main)).toBe(200);
    } finally {
      clock = start;
    }

    const later = await namedKey(user, ["account"], new Date(clock + 10 * DAY));
    const again = (await signInWithKey(later.secret)).session;
    expect(await isSignedIn(again)).toBe(200);
    await api.database.db
      .update(apiKeys)
      .set({ expiresAt: new Date(clock - 1000) })
      .where(eq(apiKeys.id, later.id));
    expect(await isSignedIn(again)).toBe(401);
  });

  it("rotating a key with itself ends the sessions it opened; the successor keeps its bounds", async () => {
    const user = await api.user();
    const key = await namedKey(user, ["account", "links:read"]);
    const session = (await signInWithKey(key.secret)).session;
    const rotated = await api.call(key.secret, "POST", "/api/v1/account/api-key");
    expect(rotated.status).toBe(201);
    expect(await isSignedIn(session)).toBe(401);
    const successor = (await signInWithKey(rotated.body.data.api_key as string)).session;
    expect((await query("domains.list", { session: successor }, {})).status).toBe(403);
  });

  it("setting or changing the password ends the user's other sessions and keeps the one asking", async () => {
    const user = await api.user();
    const setter = (await signInWithKey(user.apiKey)).session;
    const bystander = (await signInWithKey(user.apiKey)).session;
    expect((await mutate("auth.setPassword", { session: setter }, { password: "first good password" })).status).toBe(200);
    expect(await isSignedIn(bystander)).toBe(401);
    expect(await isSignedIn(setter)).toBe(200);

    const laptop = await signInWithPassword(user.email, "first good password");
    const phone = await signInWithPassword(user.email, "first good password");
    const changed = await mutate("auth.setPassword", { session: laptop }, { current_password: "first good password", password: "second good password" });
    expect(changed.status).toBe(200);
    expect([await isSignedIn(laptop), await isSignedIn(phone), await isSignedIn(setter)]).toEqual([200, 401, 401]);

    // With a bearer key there is no session to keep: every one ends.
    const viaKey = await mutate("auth.setPassword", { bearer: user.apiKey }, { current_password: "second good password", password: "third good password" });
    expect(viaKey.status).toBe(200);
    expect(await isSignedIn(laptop)).toBe(401);
  });
});

describe("account.rotateKey from a session (the dashboard)", () => {
  it("a password session rotates the account's own key: the new one is shown once, the old one and its sessions stop, this session goes on", async () => {
    const user = await api.user();
    const opened = (await signInWithKey(user.apiKey)).session;
    expect((await mutate("auth.setPassword", { session: opened }, { password: "a good password" })).status).toBe(200);
    const session = await signInWithPassword(user.email, "a good password");
    const rotated = await mutate("account.rotateKey", { session });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result.data.api_key as string;
    expect(fresh).toMatch(/^shk_[A-Za-z0-9]{40}$/);
    expect((await api.call(user, "GET", "/api/v1/account")).body).toEqual(UNAUTHENTICATED);
    expect((await api.call(fresh, "GET", "/api/v1/account")).status).toBe(200);
    expect(await isSignedIn(session)).toBe(200);
  });

  it("a session opened by the account's own key rotates it and moves to the new key; the old key's other sessions end", async () => {
    const user = await api.user();
    const asking = (await signInWithKey(user.apiKey)).session;
    const other = (await signInWithKey(user.apiKey)).session;
    const rotated = await mutate("account.rotateKey", { session: asking });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result.data.api_key as string;
    expect([await isSignedIn(asking), await isSignedIn(other)]).toEqual([200, 401]);
    expect((await api.call(user, "GET", "/api/v1/account")).status).toBe(401);
    expect((await api.call(fresh, "GET", "/api/v1/links")).status).toBe(200);
    // Still bound to a key that lives: rotating again from it works, and the session survives that too.
    expect((await mutate("account.rotateKey", { session: asking })).status).toBe(200);
    expect(await isSignedIn(asking)).toBe(200);
  });
});
