import { sql } from "drizzle-orm";
import { API_KEY_SCOPES, issueApiKey, sha256 } from "@shortener/core";
import { startTestDns, type TestDns, type TestUser } from "@shortener/core/testing";
import { apiKeys, queryRows, workspaceMembers, workspaces } from "@shortener/db";
import { clientGroup } from "@shortener/web-guard";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../src/app.ts";
import { createTestApi, trpcClient, trpcFailure, type TestApi } from "./helpers.ts";

/*
 * CONTRACT §24, the audit log through the API: one change through every write route under /api/v1 (read
 * from the app's registered routes, so a new write route without a case here fails this file), each
 * found through GET /api/v1/audit with its actor's key and client group; secrets in no entry anywhere;
 * failed changes write nothing; the filters, their 422s, the CSV, and who may read the log.
 */

let api: TestApi;
let dns: TestDns;
let admin: TestUser;
let adminKeyId: number;
/** The client group of app.inject's requests (127.0.0.1). */
const GROUP = clientGroup("127.0.0.1");
const uniq = () => Math.random().toString(36).slice(2, 10);
/** Clear secrets this file sends: none may appear in any entry. */
const SECRETS = { linkPassword: "link-pass-1234", privacyPassword: "stats-pass-5678", accountPassword: "account-pass-90ab" };
const issued: string[] = [];

beforeAll(async () => {
  dns = await startTestDns();
  api = await createTestApi({ dnsServers: [dns.server], dnsTimeoutMs: 1_000 });
  admin = await api.user("admin");
  adminKeyId = await keyIdOf(admin.apiKey);
  issued.push(admin.apiKey);
});
afterAll(async () => {
  await api?.close();
  await dns?.close();
});

async function keyIdOf(key: string): Promise<number> {
  const [row] = await api.database.db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256(key)));
  if (!row) throw new Error("no such key");
  return row.id;
}

type Caller = { apiKey: string };
const call = (who: Caller | string, method: string, url: string, form?: Record<string, string | string[]>) => api.call(typeof who === "string" ? who : who.apiKey, method as "GET", url, form);

async function created(who: Caller, url: string, form: Record<string, string | string[]>): Promise<{ id: number } & Record<string, unknown>> {
  const res = await call(who, "POST", url, form);
  expect(res.status, `POST ${url}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body.data;
}

/** A verified domain of the admin's (an admin's domain is verified at once), and a link on it. */
const domainOf = async () => created(admin, "/api/v1/domains", { name: `${uniq()}.example` });
const linkOf = async (domainId: number, form: Record<string, string> = {}) => created(admin, "/api/v1/links", { url: `https://${uniq()}.example/`, domain_id: String(domainId), ...form });

async function audit(who: Caller | string, query: string) {
  const res = await call(who, "GET", `/api/v1/audit${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Array<Record<string, any>>; meta: { total: number } };
}

/** What a change through one route must leave in the log: the entries of `action` on the object, made with `key`. */
type Expected = { action: string; objectType: string; objectId: number; count?: number; caller?: Caller; keyId?: number };

/** One case per write route: it makes one change through the route and says which entry it must leave. */
const CASES: Record<string, () => Promise<Expected | Expected[]>> = {
  "POST /api/v1/links": async () => {
    const domain = await domainOf();
    const link = await created(admin, "/api/v1/links", { url: "https://created.example/", domain_id: String(domain.id), password: SECRETS.linkPassword });
    return { action: "link.created", objectType: "link", objectId: link.id };
  },
  "PATCH /api/v1/links": async () => {
    const domain = await domainOf();
    const [a, b] = [await linkOf(domain.id), await linkOf(domain.id)];
    const res = await call(admin, "PATCH", "/api/v1/links", { "ids[]": [String(a?.id), String(b?.id)], title: "Bulk", privacy: "2", privacy_password: SECRETS.privacyPassword });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // One entry per link changed.
    return [a, b].map((link) => ({ action: "link.bulk_updated", objectType: "link", objectId: link?.id ?? 0 }));
  },
  "DELETE /api/v1/links": async () => {
    const domain = await domainOf();
    const [a, b] = [await linkOf(domain.id), await linkOf(domain.id)];
    expect((await call(admin, "DELETE", `/api/v1/links?ids=${a?.id},${b?.id}`)).status).toBe(200);
    return [a, b].map((link) => ({ action: "link.bulk_deleted", objectType: "link", objectId: link?.id ?? 0 }));
  },
  "PUT /api/v1/links/:id": async () => {
    const link = await linkOf((await domainOf()).id);
    expect((await call(admin, "PUT", `/api/v1/links/${link.id}`, { title: "Put", password: SECRETS.linkPassword })).status).toBe(200);
    return { action: "link.updated", objectType: "link", objectId: link.id };
  },
  "PATCH /api/v1/links/:id": async () => {
    const link = await linkOf((await domainOf()).id);
    expect((await call(admin, "PATCH", `/api/v1/links/${link.id}`, { title: "Patched" })).status).toBe(200);
    return { action: "link.updated", objectType: "link", objectId: link.id };
  },
  "DELETE /api/v1/links/:id": async () => {
    const link = await linkOf((await domainOf()).id);
    expect((await call(admin, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    return { action: "link.deleted", objectType: "link", objectId: link.id };
  },
  "POST /api/v1/domains": async () => ({ action: "domain.created", objectType: "domain", objectId: (await domainOf()).id }),
  "PUT /api/v1/domains/:id": async () => {
    const domain = await domainOf();
    expect((await call(admin, "PUT", `/api/v1/domains/${domain.id}`, { index_page: "https://index.example/" })).status).toBe(200);
    return { action: "domain.updated", objectType: "domain", objectId: domain.id };
  },
  "PATCH /api/v1/domains/:id": async () => {
    const domain = await domainOf();
    expect((await call(admin, "PATCH", `/api/v1/domains/${domain.id}`, { not_found_page: "https://nf.example/" })).status).toBe(200);
    return { action: "domain.updated", objectType: "domain", objectId: domain.id };
  },
  "DELETE /api/v1/domains/:id": async () => {
    const domain = await domainOf();
    expect((await call(admin, "DELETE", `/api/v1/domains/${domain.id}`)).status).toBe(200);
    return { action: "domain.deleted", objectType: "domain", objectId: domain.id };
  },
  "POST /api/v1/domains/:id/verify": async () => {
    // A user's domain starts unverified; its TXT record is then published on the test DNS server.
    const user = await api.user();
    issued.push(user.apiKey);
    const domain = (await created(user, "/api/v1/domains", { name: `${uniq()}.example` })) as { id: number; verification: { name: string; value: string } };
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    const res = await call(user, "POST", `/api/v1/domains/${domain.id}/verify`);
    expect(res.body.data?.verified, JSON.stringify(res.body)).toBe(true);
    return { action: "domain.verified", objectType: "domain", objectId: domain.id, caller: user, keyId: await keyIdOf(user.apiKey) };
  },
  "POST /api/v1/spaces": async () => ({ action: "space.created", objectType: "space", objectId: (await created(admin, "/api/v1/spaces", { name: uniq() })).id }),
  "PUT /api/v1/spaces/:id": async () => {
    const space = await created(admin, "/api/v1/spaces", { name: uniq() });
    expect((await call(admin, "PUT", `/api/v1/spaces/${space.id}`, { color: "4" })).status).toBe(200);
    return { action: "space.updated", objectType: "space", objectId: space.id };
  },
  "PATCH /api/v1/spaces/:id": async () => {
    const space = await created(admin, "/api/v1/spaces", { name: uniq() });
    expect((await call(admin, "PATCH", `/api/v1/spaces/${space.id}`, { name: uniq() })).status).toBe(200);
    return { action: "space.updated", objectType: "space", objectId: space.id };
  },
  "DELETE /api/v1/spaces/:id": async () => {
    const space = await created(admin, "/api/v1/spaces", { name: uniq() });
    expect((await call(admin, "DELETE", `/api/v1/spaces/${space.id}`)).status).toBe(200);
    return { action: "space.deleted", objectType: "space", objectId: space.id };
  },
  "POST /api/v1/pixels": async () => ({ action: "pixel.created", objectType: "pixel", objectId: (await created(admin, "/api/v1/pixels", { name: "p", type: "facebook", value: "123" })).id }),
  "PUT /api/v1/pixels/:id": async () => {
    const pixel = await created(admin, "/api/v1/pixels", { name: "p", type: "facebook", value: "123" });
    expect((await call(admin, "PUT", `/api/v1/pixels/${pixel.id}`, { value: "456" })).status).toBe(200);
    return { action: "pixel.updated", objectType: "pixel", objectId: pixel.id };
  },
  "PATCH /api/v1/pixels/:id": async () => {
    const pixel = await created(admin, "/api/v1/pixels", { name: "p", type: "facebook", value: "123" });
    expect((await call(admin, "PATCH", `/api/v1/pixels/${pixel.id}`, { name: "q" })).status).toBe(200);
    return { action: "pixel.updated", objectType: "pixel", objectId: pixel.id };
  },
  "DELETE /api/v1/pixels/:id": async () => {
    const pixel = await created(admin, "/api/v1/pixels", { name: "p", type: "facebook", value: "123" });
    expect((await call(admin, "DELETE", `/api/v1/pixels/${pixel.id}`)).status).toBe(200);
    return { action: "pixel.deleted", objectType: "pixel", objectId: pixel.id };
  },
  "POST /api/v1/webhooks": async () => {
    const hook = await created(admin, "/api/v1/webhooks", { url: "https://hooks.example/in", "events[]": ["link.created"] });
    issued.push(String(hook.secret));
    return { action: "webhook.created", objectType: "webhook", objectId: hook.id };
  },
  "PUT /api/v1/webhooks/:id": async () => {
    const hook = await created(admin, "/api/v1/webhooks", { url: "https://hooks.example/in", "events[]": ["link.created"] });
    issued.push(String(hook.secret));
    expect((await call(admin, "PUT", `/api/v1/webhooks/${hook.id}`, { disabled: "1" })).status).toBe(200);
    return { action: "webhook.updated", objectType: "webhook", objectId: hook.id };
  },
  "PATCH /api/v1/webhooks/:id": async () => {
    const hook = await created(admin, "/api/v1/webhooks", { url: "https://hooks.example/in", "events[]": ["link.created"] });
    issued.push(String(hook.secret));
    expect((await call(admin, "PATCH", `/api/v1/webhooks/${hook.id}`, { url: "https://hooks.example/other" })).status).toBe(200);
    return { action: "webhook.updated", objectType: "webhook", objectId: hook.id };
  },
  "DELETE /api/v1/webhooks/:id": async () => {
    const hook = await created(admin, "/api/v1/webhooks", { url: "https://hooks.example/in", "events[]": ["link.created"] });
    issued.push(String(hook.secret));
    expect((await call(admin, "DELETE", `/api/v1/webhooks/${hook.id}`)).status).toBe(200);
    return { action: "webhook.deleted", objectType: "webhook", objectId: hook.id };
  },
  "POST /api/v1/account/api-key": async () => {
    // Rotated with a named key of its own (the admin's key stays): the entry names that key, as actor and object.
    const named = await created(admin, "/api/v1/account/api-keys", { name: "to rotate", "scopes[]": [...API_KEY_SCOPES] });
    issued.push(String(named.api_key));
    const res = await call(String(named.api_key), "POST", "/api/v1/account/api-key");
    expect(res.status).toBe(201);
    issued.push(res.body.data.api_key);
    return { action: "api_key.rotated", objectType: "api_key", objectId: named.id, keyId: named.id };
  },
  "POST /api/v1/account/api-keys": async () => {
    const named = await created(admin, "/api/v1/account/api-keys", { name: "made", "scopes[]": ["links:read"] });
    issued.push(String(named.api_key));
    return { action: "api_key.created", objectType: "api_key", objectId: named.id };
  },
  "DELETE /api/v1/account/api-keys/:id": async () => {
    const named = await created(admin, "/api/v1/account/api-keys", { name: "gone", "scopes[]": ["links:read"] });
    issued.push(String(named.api_key));
    expect((await call(admin, "DELETE", `/api/v1/account/api-keys/${named.id}`)).status).toBe(200);
    return { action: "api_key.deleted", objectType: "api_key", objectId: named.id };
  },
  "POST /api/v1/users": async () => {
    const user = await created(admin, "/api/v1/users", { email: `${uniq()}@example.test`, name: "New" });
    issued.push(String(user.api_key));
    return { action: "user.created", objectType: "user", objectId: user.id };
  },
  "DELETE /api/v1/users/:id": async () => {
    const user = await created(admin, "/api/v1/users", { email: `${uniq()}@example.test`, name: "Leaving" });
    issued.push(String(user.api_key));
    expect((await call(admin, "DELETE", `/api/v1/users/${user.id}`)).status).toBe(200);
    return { action: "user.deleted", objectType: "user", objectId: user.id };
  },
  "POST /api/v1/imports": async () => {
    const domain = await domainOf();
    const res = await api.app.inject({
      method: "POST",
      url: `/api/v1/imports?domain_id=${domain.id}`,
      headers: { authorization: `Bearer ${admin.apiKey}`, "content-type": "text/csv", accept: "application/json" },
      payload: `url,password\nhttps://imported.example/,${SECRETS.linkPassword}\n`,
    });
    expect(res.statusCode, res.body).toBe(202);
    return { action: "import.created", objectType: "import", objectId: res.json().data.id };
  },
};

const writeRoutes = () =>
  registeredRoutes(api.app)
    .filter((route) => route.url.startsWith("/api/v1/") && route.method !== "GET")
    .map((route) => `${route.method} ${route.url}`);

describe("one change through every write route, found in GET /api/v1/audit", () => {
  it("every write route under /api/v1 has a case here (a new one without: this fails)", () => {
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThan(25);
    expect(routes.filter((route) => !CASES[route])).toEqual([]);
    expect(Object.keys(CASES).filter((route) => !routes.includes(route))).toEqual([]);
  });

  it("each leaves its entry: action, object, the key that made it, the client group; none other for that object", async () => {
    const rows: string[] = [];
    for (const route of writeRoutes()) {
      const expectations = [(await CASES[route]?.()) ?? []].flat();
      for (const want of expectations) {
        const caller = want.caller ?? admin;
        const found = await audit(caller, `?object_type=${want.objectType}&object_id=${want.objectId}&action=${want.action}`);
        expect(found.meta.total, `${route}: ${JSON.stringify(found.data)}`).toBe(want.count ?? 1);
        expect(found.data[0], route).toMatchObject({
          action: want.action,
          object_type: want.objectType,
          object_id: want.objectId,
          actor_key_id: want.keyId ?? adminKeyId,
          actor_session_id: null,
          client_group: GROUP,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        });
        rows.push(`${route.padEnd(36)} ${want.action.padEnd(18)} ${want.objectType} ${want.objectId}`);
      }
    }
    console.log(`audit entries of one change per write route (${writeRoutes().length} routes, ${rows.length} entries):\n${rows.join("\n")}`);
  });

  it("the password set through tRPC (auth.setPassword) is logged in the personal workspace, redacted", async () => {
    await trpcClient(api.app, admin.apiKey).auth.setPassword.mutate({ password: SECRETS.accountPassword });
    const found = await audit(admin, `?object_type=user&object_id=${admin.id}&action=user.password_set`);
    expect(found.data).toMatchObject([{ actor_user_id: admin.id, actor_key_id: adminKeyId, changes: { password: { before: null, after: "[redacted]" } } }]);
  });

  it("no secret in any entry: passwords, webhook secrets, API keys and their hashes (the whole table's text)", async () => {
    const [dump] = await queryRows<{ text: string }>(api.database.db, sql`select coalesce(string_agg(a::text, E'\\n'), '') as text from audit_log a`);
    const text = dump?.text ?? "";
    expect(text).toContain("[redacted]");
    for (const secret of [...Object.values(SECRETS), ...issued]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
    for (const key of issued.filter((k) => k.startsWith("shk_"))) expect(text).not.toContain(sha256(key));
    expect(text).not.toMatch(/scrypt\$|whsec_|shk_/);
  });
});

describe("failed changes write nothing", () => {
  it.each([
    ["POST /links with a javascript: URL (422)", "POST", "/api/v1/links", { url: "javascript:alert(1)", domain_id: "1" }],
    ["PATCH a link that does not exist (404)", "PATCH", "/api/v1/links/2147483000", { title: "x" }],
    ["a bulk delete with a foreign id (422, all or nothing)", "DELETE", "/api/v1/links?ids=2147483000", undefined],
    ["POST /spaces without a name (422)", "POST", "/api/v1/spaces", { color: "2" }],
    ["DELETE a webhook that does not exist (404)", "DELETE", "/api/v1/webhooks/2147483000", undefined],
    ["DELETE oneself as admin (403)", "DELETE", "/api/v1/users/:self", undefined],
  ])("%s", async (_name, method, url, form) => {
    const count = async () => (await queryRows<{ n: number }>(api.database.db, sql`select count(*)::int as n from audit_log`))[0]?.n;
    const before = await count();
    const res = await call(admin, method, url.replace(":self", String(admin.id)), form as Record<string, string> | undefined);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await count()).toBe(before);
  });
});

describe("GET /api/v1/audit: filters, pages, CSV", () => {
  it("newest first; actor, object, action and from/to filter; the list envelope keeps the filters", async () => {
    const user = await api.user();
    const space = await created(user, "/api/v1/spaces", { name: uniq() });
    await call(user, "PATCH", `/api/v1/spaces/${space.id}`, { color: "5" });
    await call(user, "DELETE", `/api/v1/spaces/${space.id}`);
    const all = await audit(user, "");
    expect(all.data.map((e) => e.action)).toEqual(["space.deleted", "space.updated", "space.created"]);
    expect(all.data.map((e) => e.id)).toEqual([...all.data.map((e) => e.id)].sort((a, b) => b - a));
    expect((await audit(user, `?actor=${user.id}`)).meta.total).toBe(3);
    expect((await audit(user, `?actor=${admin.id}`)).meta.total).toBe(0);
    expect((await audit(user, "?action=space.updated")).data).toMatchObject([{ changes: { color: { before: 1, after: 5 } } }]);
    expect((await audit(user, `?object_type=space&object_id=${space.id}`)).meta.total).toBe(3);
    const today = new Date().toISOString().slice(0, 10);
    expect((await audit(user, `?from=${today}&to=${today}`)).meta.total).toBe(3);
    expect((await audit(user, "?to=2000-01-01")).meta.total).toBe(0);
    expect((await audit(user, `?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).meta.total).toBe(0);
    const paged = await call(user, "GET", "/api/v1/audit?per_page=10&action=space.created&page=1");
    expect(paged.body.links.first).toContain("action=space.created");
    // Another workspace's entries are not in this one's log.
    expect((await audit(admin, `?object_type=space&object_id=${space.id}`)).meta.total).toBe(0);
  });

  it.each([
    ["actor", "?actor=abc"],
    ["object_id", "?object_id=5"],
    ["object_type", "?object_type=Link!"],
    ["action", "?action=LINK"],
    ["from", "?from=yesterday"],
    ["to", "?to=2026-02-30"],
    ["from", "?from=2026-05-02&to=2026-05-01"],
    ["per_page", "?per_page=7"],
    ["page", "?page=0"],
  ])("a bad %s: 422 naming it (%s)", async (field, query) => {
    // The CSV has every matching entry: it takes the filters, and ignores page and per_page.
    for (const accept of field.startsWith("page") || field === "per_page" ? ["application/json"] : ["application/json", "text/csv"]) {
      const res = await api.app.inject({ method: "GET", url: `/api/v1/audit${query}`, headers: { authorization: `Bearer ${admin.apiKey}`, accept } });
      expect(res.statusCode, res.body).toBe(422);
      expect(Object.keys(res.json().message)).toContain(field);
    }
  });

  it("Accept: text/csv: every matching entry as CSV, the same as the list, newest first", async () => {
    const user = await api.user();
    for (let i = 0; i < 3; i++) await created(user, "/api/v1/spaces", { name: uniq() });
    const res = await api.app.inject({ method: "GET", url: "/api/v1/audit?action=space.created&per_page=10", headers: { authorization: `Bearer ${user.apiKey}`, accept: "text/csv" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="audit-\d{4}-\d\d-\d\d\.csv"$/);
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,created_at,action,object_type,object_id,actor_user_id,actor_key_id,actor_session_id,client_group,changes");
    const list = await audit(user, "?action=space.created");
    expect(lines.slice(1).map((line) => Number(line.split(",")[0]))).toEqual(list.data.map((e) => e.id));
    expect(lines[1]).toContain(`,space.created,space,${list.data[0]?.object_id},${user.id},`);
  });
});

describe("who may read the log (workspace admins and owners)", () => {
  it("a viewer's or editor's key: 403 on REST and FORBIDDEN on tRPC; an admin's and the owner's: 200", async () => {
    const owner = await api.user();
    const now = new Date();
    const [team] = await api.database.db.insert(workspaces).values({ name: "Team", createdAt: now, updatedAt: now }).returning({ id: workspaces.id });
    if (!team) throw new Error("no workspace");
    await api.database.db.insert(workspaceMembers).values({ workspaceId: team.id, userId: owner.id, role: "owner", createdAt: now });
    for (const role of ["viewer", "editor", "admin", "owner"] as const) {
      const member = role === "owner" ? owner : await api.user();
      if (role !== "owner") await api.database.db.insert(workspaceMembers).values({ workspaceId: team.id, userId: member.id, role, createdAt: now });
      const key = await issueApiKey(api.database.db, member.id, team.id);
      const rest = await call(key, "GET", "/api/v1/audit");
      const trpc = trpcClient(api.app, key).audit.list.query({});
      if (role === "viewer" || role === "editor") {
        expect(rest.status, role).toBe(403);
        // The route's declared role (CONTRACT §24's permission table) refuses before core's own check.
        expect(rest.body).toEqual({ message: `This needs the admin role in this workspace; you are ${role === "editor" ? "an editor" : "a viewer"}.`, code: "forbidden", status: 403 });
        expect((await trpcFailure(trpc)).data?.code).toBe("FORBIDDEN");
      } else {
        expect(rest.status, role).toBe(200);
        expect((await trpc).meta.total).toBe(rest.body.meta.total);
      }
    }
  });

  it("no route or procedure changes or deletes an entry: /audit answers GET only", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) expect((await call(admin, method, "/api/v1/audit")).status, method).toBe(405);
    expect(registeredRoutes(api.app).filter((r) => r.url.includes("audit"))).toEqual([{ method: "GET", url: "/api/v1/audit", scope: "account", role: "admin" }]);
  });
});

describe("must show: one link's create, update, bulk update and delete, as the API returns them", () => {
  it("prints the entries of one link", async () => {
    const domain = await domainOf();
    const link = await linkOf(domain.id, { title: "Launch", alias: `launch${uniq()}` });
    expect((await call(admin, "PATCH", `/api/v1/links/${link.id}`, { url: "https://example.com/launch-v2", password: SECRETS.linkPassword })).status).toBe(200);
    expect((await call(admin, "PATCH", "/api/v1/links", { "ids[]": [String(link.id)], disabled: "1", title: "Launch (paused)" })).status).toBe(200);
    expect((await call(admin, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
    const res = await call(admin, "GET", `/api/v1/audit?object_type=link&object_id=${link.id}`);
    expect(res.body.data.map((e: { action: string }) => e.action)).toEqual(["link.deleted", "link.bulk_updated", "link.updated", "link.created"]);
    expect(res.body.data[1].changes).toEqual({ title: { before: "Launch", after: "Launch (paused)" }, disabled: { before: 0, after: 1 } });
    expect(res.body.data[2].changes.password).toEqual({ before: null, after: "[redacted]" });
    console.log(`GET /api/v1/audit?object_type=link&object_id=${link.id}\n${JSON.stringify(res.body, null, 2)}`);
  });
});
