import { API_KEY_SCOPES, type Scope } from "@shortener/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../src/app.ts";
import { appRouter } from "../src/trpc/router.ts";
import { createTestApi, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §17, the scope matrix: every REST operation under /api/v1 (read from the app's registered
 * routes, so a new route is covered without touching this file) and every tRPC procedure (read from the
 * router), called once with a key that has every scope but the one the operation declares (403
 * forbidden) and once with a key that has only that scope (never 401 or 403; 2xx for the reads that
 * need no id). The keys belong to an admin, so admin-only operations are judged by their scope alone.
 */
type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { scope?: Scope } } };
const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures).map(([name, p]) => ({
  name,
  type: p._def.type,
  scope: p._def.meta?.scope,
}));

let api: TestApi;
/** scope → [a key with only it, a key with every other scope]. */
const keys = new Map<Scope, { only: string; allBut: string }>();
/** The query a read without an id needs to answer 200 (the account-wide statistics need a `name`). */
const READ_QUERY: Record<string, string> = { "/api/v1/stats": "?name=summary" };
/** An id no row has: a route with an id answers 404 with the right scope, never 401/403. */
const MISSING_ID = "2147483000";

beforeAll(async () => {
  api = await createTestApi();
  const admin = await api.user("admin");
  for (const scope of API_KEY_SCOPES) {
    const create = async (scopes: Scope[], name: string) => {
      const res = await api.call(admin, "POST", "/api/v1/account/api-keys", { name, "scopes[]": scopes });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.api_key as string;
    };
    keys.set(scope, {
      only: await create([scope], `only ${scope}`),
      allBut: await create(
        API_KEY_SCOPES.filter((s) => s !== scope),
        `all but ${scope}`,
      ),
    });
  }
});
afterAll(async () => {
  await api?.close();
});

function keysOf(scope: Scope) {
  const pair = keys.get(scope);
  if (!pair) throw new Error(`no keys for ${scope}`);
  return pair;
}

/** The successor of a rotated key with only `scope`. */
function adopt(scope: Scope, key: unknown) {
  expect(key).toMatch(/^shk_/);
  keys.set(scope, { ...keysOf(scope), only: key as string });
}

const restRoutes = () => registeredRoutes(api.app).filter((route) => route.url.startsWith("/api/v1/") && route.scope !== "public");

describe("REST: every operation under /api/v1 × its scope", () => {
  it("every route declares a known scope (the public ones are the OpenAPI document and pages outside the API)", () => {
    const routes = registeredRoutes(api.app);
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes.filter((r) => r.url.startsWith("/api/v1/") || r.url.startsWith("/stats/") || r.url.startsWith("/api/docs"))) {
      expect([...API_KEY_SCOPES, "public"], `${route.method} ${route.url}`).toContain(route.scope);
    }
    const publicRoutes = routes.filter((r) => r.url.startsWith("/api/v1/") && r.scope === "public").map((r) => `${r.method} ${r.url}`);
    expect(publicRoutes).toEqual(["GET /api/v1/openapi.json"]);
  });

  it("a key without the route's scope: 403 forbidden in the error envelope; with exactly that scope: never 401/403, and 2xx for reads without an id", async () => {
    const routes = restRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const seen = new Set<Scope>();
    for (const route of routes) {
      const scope = route.scope as Scope;
      seen.add(scope);
      const url = route.url.replace(/:[A-Za-z_]+/g, MISSING_ID) + (route.method === "GET" ? (READ_QUERY[route.url] ?? "") : "");
      const { only, allBut } = keysOf(scope);
      const refused = await api.call(allBut, route.method as "GET", url, route.method === "GET" ? undefined : {});
      expect(refused.status, `${route.method} ${route.url} without ${scope}`).toBe(403);
      expect(refused.body).toEqual({ message: `This API key does not have the ${scope} scope.`, code: "forbidden", status: 403 });
      if (route.method === "GET") {
        // Fastify's HEAD twin of a GET runs the same handler: it is guarded by the same scope.
        const head = await api.app.inject({ method: "HEAD", url, headers: { authorization: `Bearer ${allBut}` } });
        expect(head.statusCode, `HEAD ${route.url} without ${scope}`).toBe(403);
      }
      const allowed = await api.call(only, route.method as "GET", url, route.method === "GET" ? undefined : {});
      expect([401, 403], `${route.method} ${route.url} with only ${scope}: ${allowed.status} ${JSON.stringify(allowed.body)}`).not.toContain(allowed.status);
      // A backup is of an embedded database in a data folder: this app has none (in memory, or Postgres), so 409.
      if (route.method === "GET" && !route.url.includes(":")) expect(allowed.status, `${route.method} ${route.url} with only ${scope}`).toBe(route.url === "/api/v1/admin/backup" ? 409 : 200);
      // A rotation revokes the key it was called with: its successor (same name and scopes) takes its place.
      if (route.url === "/api/v1/account/api-key") adopt(scope, allowed.body.data.api_key);
    }
    // Every scope guards something.
    expect([...seen].sort()).toEqual([...API_KEY_SCOPES].sort());
  });

  it("the scopes are the documented ones: reads take :read, writes :write, account and users take account", () => {
    const scopeOf = (method: string, url: string) => restRoutes().find((r) => r.method === method && r.url === `/api/v1${url}`)?.scope;
    expect(scopeOf("GET", "/links")).toBe("links:read");
    expect(scopeOf("POST", "/links")).toBe("links:write");
    expect(scopeOf("DELETE", "/links")).toBe("links:write");
    expect(scopeOf("GET", "/links/export")).toBe("links:read");
    expect(scopeOf("GET", "/links/:id/qr")).toBe("links:read");
    expect(scopeOf("GET", "/domains/:id")).toBe("domains:read");
    expect(scopeOf("POST", "/domains/:id/verify")).toBe("domains:write");
    expect(scopeOf("PATCH", "/spaces/:id")).toBe("links:write");
    expect(scopeOf("GET", "/pixels")).toBe("links:read");
    expect(scopeOf("GET", "/stats/:id")).toBe("stats:read");
    expect(scopeOf("GET", "/stats")).toBe("stats:read");
    expect(scopeOf("GET", "/domains/:id/visits")).toBe("stats:read");
    expect(scopeOf("POST", "/imports")).toBe("imports:write");
    expect(scopeOf("GET", "/imports/:id")).toBe("imports:write");
    expect(scopeOf("POST", "/webhooks")).toBe("account");
    expect(scopeOf("GET", "/account")).toBe("account");
    expect(scopeOf("POST", "/account/api-keys")).toBe("account");
    expect(scopeOf("DELETE", "/users/:id")).toBe("account");
  });

  it("admin-only routes stay admin-only: a user's key with the account scope gets 403 from the role check", async () => {
    const user = await api.user();
    const created = await api.call(user, "POST", "/api/v1/account/api-keys", { name: "account only", scopes: "account" });
    expect(created.status).toBe(201);
    const res = await api.call(created.body.data.api_key, "GET", "/api/v1/users");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden", message: "This action is reserved for administrators." });
  });
});

describe("tRPC: every procedure × its scope", () => {
  function trpcRequest(key: string, name: string, type: string) {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    return type === "mutation"
      ? api.app.inject({ method: "POST", url: `/trpc/${name}`, headers, payload: "{}" })
      : api.app.inject({ method: "GET", url: `/trpc/${name}?input=${encodeURIComponent("{}")}`, headers: { authorization: headers.authorization } });
  }

  it("every procedure declares a known scope in its meta", () => {
    expect(procedures.length).toBeGreaterThan(40);
    for (const p of procedures) expect(API_KEY_SCOPES, p.name).toContain(p.scope);
    expect(procedures.map((p) => p.name)).toEqual(expect.arrayContaining(["account.apiKeys.list", "account.apiKeys.create", "account.apiKeys.delete"]));
    expect(procedures.filter((p) => ["stats.get", "stats.summary", "stats.account", "domains.visits"].includes(p.name)).map((p) => p.scope)).toEqual([
      "stats:read",
      "stats:read",
      "stats:read",
      "stats:read",
    ]);
  });

  it("a key without the procedure's scope: 403 FORBIDDEN; with exactly that scope: never 401/403", async () => {
    for (const p of procedures) {
      const scope = p.scope as Scope;
      const { only, allBut } = keysOf(scope);
      const refused = await trpcRequest(allBut, p.name, p.type);
      expect(refused.statusCode, `${p.name} without ${scope}: ${refused.body}`).toBe(403);
      expect(refused.json().error).toMatchObject({ message: `This API key does not have the ${scope} scope.`, data: { code: "FORBIDDEN", httpStatus: 403, path: p.name } });
      const allowed = await trpcRequest(only, p.name, p.type);
      expect([401, 403], `${p.name} with only ${scope}: ${allowed.body}`).not.toContain(allowed.statusCode);
      if (p.name === "account.rotateKey") adopt(scope, allowed.json().result.data.api_key);
    }
  });

  it("a read with its scope answers 200 (links.list with links:read, account.get with account)", async () => {
    const list = await trpcRequest(keysOf("links:read").only, "links.list", "query");
    expect(list.statusCode).toBe(200);
    expect(list.json().result.data).toMatchObject({ data: [], meta: { total: 0 } });
    const account = await trpcRequest(keysOf("account").only, "account.get", "query");
    expect(account.statusCode).toBe(200);
    expect(account.json().result.data).toMatchObject({ role: "admin" });
  });
});
