import { API_KEY_SCOPES, hasRole, issueApiKey, roleRefusal, WORKSPACE_ROLES, type Scope, type WorkspaceRole } from "@shortener/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registeredRoutes } from "../src/app.ts";
import type { RouteRole } from "../src/http/auth.ts";
import { appRouter } from "../src/trpc/router.ts";
import { createTestApi, type TestApi } from "./helpers.ts";
import { createTeam, type Team } from "./teams.ts";

/**
 * CONTRACT §24, the role matrix (the pattern of scope-matrix.db.test.ts): EVERY REST operation under
 * /api/v1 (read from the app's registered routes) and EVERY tRPC procedure (read from the router) is
 * called as a viewer, an editor, an admin and an owner of one workspace A, each with a full-scope key
 * acting there, and as the owner of another workspace B with A's ids. A role below the declared one:
 * 403 `forbidden` naming the role; at or above it: never 401 or 403; B's owner: 404 on every id of A.
 * The table of statuses is printed (issue #30's first "must show").
 */
type Procedure = { _def: { type: "query" | "mutation" | "subscription"; meta?: { scope?: Scope; role?: RouteRole } } };
const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures).map(([name, p]) => ({
  name,
  type: p._def.type,
  scope: p._def.meta?.scope,
  role: p._def.meta?.role,
}));

const CALLERS = ["other", ...WORKSPACE_ROLES] as const;
type Caller = (typeof CALLERS)[number];
/** An id no row has: the role rows' changes hit nothing (the role is judged before the body or the id). */
const MISSING_ID = "2147483000";
const INSTANCE_ADMIN_ONLY = "This action is reserved for administrators.";
/** The query a statistics read needs (its `name`). */
const READ_QUERY: Record<string, string> = { "/api/v1/stats": "?name=summary", "/api/v1/stats/:id": "?name=clicks", "/api/v1/domains/:id/visits": "?name=summary" };

let api: TestApi;
let team: Team;
/** The caller → its key (rotations replace it). */
const keys = new Map<Caller, string>();
/** Workspace A's objects, one of each kind: what the other workspace's owner aims at. */
let objects: Record<string, number>;

beforeAll(async () => {
  api = await createTestApi({ domainVerification: "off", webhookAllowPrivate: true });
  team = await createTeam(api, "Workspace A");
  for (const role of WORKSPACE_ROLES) keys.set(role, team[role].key);
  keys.set("other", (await api.user()).apiKey);
  const owner = team.owner.key;
  const make = async (path: string, form: Record<string, string | string[]>, key = owner) => {
    const res = await api.call(key, "POST", path, form);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
    return res.body.data.id as number;
  };
  const domain = await make("/api/v1/domains", { name: `a${Math.random().toString(36).slice(2, 8)}.example` });
  objects = {
    workspace: team.id,
    domain,
    link: await make("/api/v1/links", { url: "https://example.com/a", domain_id: String(domain) }),
    space: await make("/api/v1/spaces", { name: "A space" }),
    pixel: await make("/api/v1/pixels", { name: "A pixel", type: "facebook", value: "123" }),
    webhook: await make("/api/v1/webhooks", { url: "http://127.0.0.1:9/hook", "events[]": ["link.created"] }),
    apiKey: await make("/api/v1/account/api-keys", { name: "A key", "scopes[]": ["links:read"] }),
    invitation: await make(`/api/v1/workspaces/${team.id}/invitations`, { role: "viewer" }),
    member: team.viewer.id,
  };
});
afterAll(async () => {
  await api?.close();
});

function keyOf(caller: Caller): string {
  const key = keys.get(caller);
  if (!key) throw new Error(`no key for ${caller}`);
  return key;
}

/** A route's URL with A's ids (`real`) or ids nothing has. */
function urlOf(url: string, real: boolean): string {
  if (!real) return url.replace(/:[A-Za-z_]+/g, MISSING_ID);
  const kind = (segment: string) =>
    ({ links: "link", domains: "domain", spaces: "space", pixels: "pixel", webhooks: "webhook", "api-keys": "apiKey", workspaces: "workspace", stats: "link", imports: "import" })[segment];
  return url.replace(/\/([a-z-]+)\/:([A-Za-z_]+)/g, (_whole, segment: string, param: string) => {
    const id = param === "user_id" ? objects.member : param === "invitation_id" ? objects.invitation : objects[kind(segment) ?? ""];
    return `/${segment}/${id ?? MISSING_ID}`;
  });
}

/** Prints a matrix: one row per operation, the role it needs, then each caller's status. */
function printTable(title: string, rows: Array<{ name: string; role: string; statuses: Record<Caller, number> }>): void {
  const width = Math.max(...rows.map((r) => r.name.length), 9);
  const head = `${"operation".padEnd(width)}  ${"needs".padEnd(14)}  ${CALLERS.map((c) => c.padStart(6)).join(" ")}`;
  const lines = rows.map((r) => `${r.name.padEnd(width)}  ${r.role.padEnd(14)}  ${CALLERS.map((c) => String(r.statuses[c]).padStart(6)).join(" ")}`);
  const calls = rows.length * CALLERS.length;
  console.log([`\n${title}: ${rows.length} operations × ${CALLERS.length} callers = ${calls} calls`, head, "-".repeat(head.length), ...lines].join("\n"));
}

/** What a caller with `role` is owed: refused (403) below the declared role, else anything but 401/403. */
function judge(label: string, caller: WorkspaceRole, declared: RouteRole, status: number, message: unknown, isTrpc = false): void {
  if (declared === "instance-admin") {
    // No member of A is an instance administrator: core refuses every one of them (on tRPC, an input
    // the procedure's parser refuses first is a 400: never through either way).
    if (isTrpc && status === 400) return;
    expect([label, status, message]).toEqual([label, 403, INSTANCE_ADMIN_ONLY]);
  } else if (hasRole(caller, declared)) {
    expect([401, 403], `${label}: ${status} ${JSON.stringify(message)}`).not.toContain(status);
  } else {
    expect([label, status, message]).toEqual([label, 403, roleRefusal(declared, caller)]);
  }
}

describe("REST: every operation × every role", () => {
  it("every operation under /api/v1 declares a role next to its scope", () => {
    const routes = registeredRoutes(api.app).filter((r) => r.url.startsWith("/api/v1/") && r.scope !== "public");
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) expect([...WORKSPACE_ROLES, "instance-admin"], `${route.method} ${route.url}`).toContain(route.role);
  });

  it("below the role: 403 naming it; at or above: never 401/403; another workspace's owner: 404 on A's ids", async () => {
    const routes = registeredRoutes(api.app).filter((r) => r.url.startsWith("/api/v1/") && r.scope !== "public");
    const rows: Array<{ name: string; role: string; statuses: Record<Caller, number> }> = [];
    for (const route of routes) {
      const declared = route.role as RouteRole;
      const statuses = {} as Record<Caller, number>;
      const query = route.method === "GET" ? (READ_QUERY[route.url] ?? "") : "";
      for (const caller of CALLERS) {
        // A's ids for the other workspace's owner and for reads; ids nothing has for the members' changes.
        const isReal = caller === "other" || route.method === "GET";
        const url = urlOf(route.url, isReal) + query;
        const res = await api.call(keyOf(caller), route.method as "GET", url, route.method === "GET" ? undefined : {});
        statuses[caller] = res.status;
        const label = `${route.method} ${route.url} as ${caller}`;
        if (caller === "other") {
          if (declared === "instance-admin") expect([label, res.status]).toEqual([label, 403]);
          else if (route.url.includes(":")) expect([label, res.status, res.body?.message]).toEqual([label, 404, "Resource not found."]);
          else expect([401, 403], `${label}: ${res.status}`).not.toContain(res.status);
        } else {
          judge(label, caller, declared, res.status, res.body?.message);
        }
        // A rotation revokes the key it was called with: its successor takes its place.
        if (route.url === "/api/v1/account/api-key" && res.status === 201) keys.set(caller, res.body.data.api_key);
      }
      rows.push({ name: `${route.method} ${route.url.slice("/api/v1".length)}`, role: declared, statuses });
    }
    printTable("REST role × route", rows);
    // Every role guards something, and the table spans them all.
    expect(new Set(rows.map((r) => r.role))).toEqual(new Set([...WORKSPACE_ROLES, "instance-admin"]));
  });

  it("the roles are the documented ones", () => {
    const roleOf = (method: string, url: string) => registeredRoutes(api.app).find((r) => r.method === method && r.url === `/api/v1${url}`)?.role;
    expect(roleOf("GET", "/links")).toBe("viewer");
    expect(roleOf("POST", "/links")).toBe("editor");
    expect(roleOf("PATCH", "/links")).toBe("editor");
    expect(roleOf("GET", "/links/export")).toBe("editor");
    expect(roleOf("POST", "/imports")).toBe("editor");
    expect(roleOf("PATCH", "/spaces/:id")).toBe("editor");
    expect(roleOf("GET", "/domains")).toBe("viewer");
    expect(roleOf("POST", "/domains")).toBe("admin");
    expect(roleOf("POST", "/domains/:id/verify")).toBe("admin");
    expect(roleOf("GET", "/webhooks")).toBe("admin");
    expect(roleOf("GET", "/account/api-keys")).toBe("admin");
    expect(roleOf("GET", "/stats/:id")).toBe("viewer");
    expect(roleOf("GET", "/workspaces/:id/members")).toBe("viewer");
    expect(roleOf("PATCH", "/workspaces/:id/members/:user_id")).toBe("admin");
    expect(roleOf("POST", "/workspaces/:id/invitations")).toBe("admin");
    expect(roleOf("PATCH", "/workspaces/:id")).toBe("admin");
    expect(roleOf("DELETE", "/workspaces/:id")).toBe("owner");
    expect(roleOf("GET", "/users")).toBe("instance-admin");
  });

  it("instance-admin routes keep their own check: an instance administrator who is only a viewer in A lists users", async () => {
    const admin = await api.user("admin");
    const invitation = await api.call(keyOf("owner"), "POST", `/api/v1/workspaces/${team.id}/invitations`, { role: "viewer" });
    expect((await api.call(admin, "POST", "/api/v1/invitations/accept", { token: invitation.body.data.token })).status).toBe(200);
    const key = await issueApiKey(api.database.db, admin.id, team.id);
    expect((await api.call(key, "GET", "/api/v1/users")).status).toBe(200);
    expect((await api.call(key, "POST", "/api/v1/spaces", { name: "no" })).status).toBe(403);
  });
});

describe("tRPC: every procedure × every role", () => {
  const id = (kind: string) => () => ({ id: objects[kind] });
  /** The input aimed at A's objects, for the other workspace's owner. */
  const AIMED: Record<string, () => unknown> = {
    "links.get": id("link"),
    "links.update": id("link"),
    "links.delete": id("link"),
    "links.qr": id("link"),
    "links.bulkDelete": () => ({ ids: [objects.link] }),
    "links.bulkUpdate": () => ({ ids: [objects.link], disabled: 1 }),
    "domains.get": id("domain"),
    "domains.update": id("domain"),
    "domains.delete": id("domain"),
    "domains.verify": id("domain"),
    "domains.visits": () => ({ id: objects.domain, name: "summary" }),
    "spaces.get": id("space"),
    "spaces.update": id("space"),
    "spaces.delete": id("space"),
    "pixels.get": id("pixel"),
    "pixels.update": id("pixel"),
    "pixels.delete": id("pixel"),
    "webhooks.get": id("webhook"),
    "webhooks.update": id("webhook"),
    "webhooks.delete": id("webhook"),
    "webhooks.deliveries": id("webhook"),
    "stats.get": () => ({ link_id: objects.link, name: "clicks" }),
    "stats.summary": () => ({ link_id: objects.link }),
    "account.apiKeys.delete": id("apiKey"),
    "workspaces.switch": id("workspace"),
    "workspaces.get": id("workspace"),
    "workspaces.update": () => ({ id: objects.workspace, name: "taken over" }),
    "workspaces.delete": id("workspace"),
    "workspaces.members.list": () => ({ workspace_id: objects.workspace }),
    "workspaces.members.update": () => ({ workspace_id: objects.workspace, user_id: objects.member, role: "owner" }),
    "workspaces.members.remove": () => ({ workspace_id: objects.workspace, user_id: objects.member }),
    "workspaces.members.leave": () => ({ workspace_id: objects.workspace }),
    "workspaces.invitations.list": () => ({ workspace_id: objects.workspace }),
    "workspaces.invitations.create": () => ({ workspace_id: objects.workspace, role: "viewer" }),
    "workspaces.invitations.revoke": () => ({ workspace_id: objects.workspace, id: objects.invitation }),
  };
  /** What the other workspace's owner gets for an input aimed at A: 404, but where noted. */
  const AIMED_STATUS: Record<string, number[]> = {
    // Bulk changes name the ids that are not the caller's: BAD_REQUEST (REST's 422) on `ids`, nothing changed.
    "links.bulkDelete": [400],
    "links.bulkUpdate": [400],
  };

  function trpcRequest(key: string, name: string, type: string, input: unknown) {
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    return type === "mutation"
      ? api.app.inject({ method: "POST", url: `/trpc/${name}`, headers, payload: JSON.stringify(input) })
      : api.app.inject({ method: "GET", url: `/trpc/${name}?input=${encodeURIComponent(JSON.stringify(input))}`, headers: { authorization: headers.authorization } });
  }

  it("every procedure declares a role next to its scope", () => {
    expect(procedures.length).toBeGreaterThan(50);
    for (const p of procedures) {
      expect(API_KEY_SCOPES, p.name).toContain(p.scope);
      expect([...WORKSPACE_ROLES, "instance-admin"], p.name).toContain(p.role);
    }
    for (const name of Object.keys(AIMED)) expect(procedures.map((p) => p.name)).toContain(name);
  });

  it("below the role: FORBIDDEN naming it; at or above: never 401/403; another workspace's owner: NOT_FOUND on A's ids", async () => {
    const rows: Array<{ name: string; role: string; statuses: Record<Caller, number> }> = [];
    for (const p of procedures) {
      const declared = p.role as RouteRole;
      const statuses = {} as Record<Caller, number>;
      for (const caller of CALLERS) {
        // Switching takes a real id from everyone: a bearer key is refused for what it is, not for its input.
        const aimed = caller === "other" || p.name === "workspaces.switch" ? AIMED[p.name] : undefined;
        const res = await trpcRequest(keyOf(caller), p.name, p.type, aimed ? aimed() : {});
        statuses[caller] = res.statusCode;
        const label = `${p.name} as ${caller}`;
        const error = res.statusCode >= 400 ? res.json().error : undefined;
        if (caller === "other") {
          // tRPC parses the input before the procedure runs, and core's administrator check: a 400 or a 403, never through.
          if (declared === "instance-admin") expect([400, 403], label).toContain(res.statusCode);
          else if (p.name === "workspaces.switch") expect([label, res.statusCode]).toEqual([label, 403]);
          else if (aimed) expect(AIMED_STATUS[p.name] ?? [404], `${label}: ${res.body}`).toContain(res.statusCode);
          else expect([401, 403], `${label}: ${res.body}`).not.toContain(res.statusCode);
        } else if (p.name === "workspaces.switch") {
          // A bearer key never switches (its own sentence): the role is checked first all the same.
          expect([label, res.statusCode]).toEqual([label, 403]);
        } else {
          judge(label, caller, declared, res.statusCode, error?.message, true);
          if (res.statusCode === 403) expect(error.data).toMatchObject({ code: "FORBIDDEN", slug: "forbidden", path: p.name });
        }
        if (p.name === "account.rotateKey" && res.statusCode === 200) keys.set(caller, res.json().result.data.api_key);
      }
      rows.push({ name: p.name, role: declared, statuses });
    }
    printTable("tRPC role × procedure", rows);
    expect(new Set(rows.map((r) => r.role))).toEqual(new Set([...WORKSPACE_ROLES, "instance-admin"]));
  });

  it("nothing of A changed hands: every object the other workspace's owner aimed at is still there, A and its members intact", async () => {
    const owner = keyOf("owner");
    for (const [path, objectId] of [
      ["links", objects.link],
      ["domains", objects.domain],
      ["spaces", objects.space],
      ["pixels", objects.pixel],
      ["webhooks", objects.webhook],
    ] as const) {
      expect([path, (await api.call(owner, "GET", `/api/v1/${path}/${objectId}`)).status]).toEqual([path, 200]);
    }
    const link = await api.call(owner, "GET", `/api/v1/links/${objects.link}`);
    expect(link.body.data.disabled).toBe(0);
    const workspace = await api.call(owner, "GET", `/api/v1/workspaces/${team.id}`);
    expect(workspace.body.data.name).toBe("Workspace A");
    const members = await api.call(owner, "GET", `/api/v1/workspaces/${team.id}/members`);
    expect(members.body.data.find((m: { id: number }) => m.id === objects.member)).toMatchObject({ role: "viewer" });
    const invitations = await api.call(owner, "GET", `/api/v1/workspaces/${team.id}/invitations`);
    expect(invitations.body.data.some((i: { id: number }) => i.id === objects.invitation)).toBe(true);
    const keysOfA = await api.call(owner, "GET", "/api/v1/account/api-keys");
    expect(keysOfA.body.data.map((k: { id: number }) => k.id)).toContain(objects.apiKey);
  });
});
