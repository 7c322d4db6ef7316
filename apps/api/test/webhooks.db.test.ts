import { TRPCClientError } from "@trpc/client";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordClicks } from "@shortener/core";
import { testClick } from "@shortener/core/testing";
import { webhookEvents, webhooks } from "@shortener/db";
import type { FastifyInstance } from "fastify";
import { createApi, DEFAULT_API_CONFIG, type AppRouter } from "../src/index.ts";
import { createOwner, createTestApi, trpcClient, UNLIMITED, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §18 on the API: `/webhooks` CRUD and the deliveries log (REST and tRPC), the targets refused
 * at create, and the outbox rows a link change writes in its own transaction.
 */
let api: TestApi;
/** The same database behind an API started with WEBHOOK_ALLOW_PRIVATE=1. */
let open: Pick<TestApi, "user" | "call">;
let openApp: FastifyInstance | undefined;
beforeAll(async () => {
  api = await createTestApi();
  const app = await createApi({ database: api.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...UNLIMITED, webhookAllowPrivate: true } });
  openApp = app;
  open = {
    user: api.user,
    async call(user, method, url, form) {
      const headers: Record<string, string> = { authorization: `Bearer ${typeof user === "string" ? user : user?.apiKey}`, "content-type": "application/x-www-form-urlencoded" };
      const res = await app.inject({ method, url, headers, payload: new URLSearchParams(form as Record<string, string>).toString() });
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    },
  };
});
afterAll(async () => {
  await openApp?.close();
  await api?.close();
});

async function json(user: { apiKey: string }, method: "POST" | "PATCH" | "PUT", url: string, payload: unknown) {
  const res = await api.app.inject({ method, url, headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" }, payload: JSON.stringify(payload) });
  return { status: res.statusCode, body: res.json() };
}

async function outbox(workspaceId: number) {
  return api.database.db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, workspaceId)).orderBy(webhookEvents.id);
}

describe("/api/v1/webhooks", () => {
  it("creates (secret shown once), shows, lists, updates and deletes, form or JSON", async () => {
    const user = await api.user();
    const created = await api.call(user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/a", "events[]": ["link.clicked", "link.created", "link.created"] });
    expect(created.status).toBe(201);
    const { id, secret, created_at, updated_at, ...rest } = created.body.data;
    expect(rest).toEqual({ url: "https://hooks.example/a", events: ["link.created", "link.clicked"], disabled: 0, failing_since: null });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(created_at).toBe(updated_at);

    const shown = await api.call(user, "GET", `/api/v1/webhooks/${id}`);
    expect(shown.body).toEqual({ data: { id, ...rest, created_at, updated_at }, status: 200 });

    const second = await json(user, "POST", "/api/v1/webhooks", { url: "http://hooks.example:8080/b?x=1", events: "import.completed,link.deleted", disabled: 1 });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ url: "http://hooks.example:8080/b?x=1", events: ["link.deleted", "import.completed"], disabled: 1 });
    expect(second.body.data.secret).not.toBe(secret);

    const list = await api.call(user, "GET", "/api/v1/webhooks?sort=asc");
    expect(list.body.data.map((w: { id: number }) => w.id)).toEqual([id, second.body.data.id]);
    expect(list.body.meta).toMatchObject({ total: 2, per_page: 10, current_page: 1 });
    expect(list.body.data.every((w: object) => !("secret" in w))).toBe(true);

    const patched = await json(user, "PATCH", `/api/v1/webhooks/${id}`, { events: ["link.updated"] });
    expect(patched.body.data).toMatchObject({ id, url: "https://hooks.example/a", events: ["link.updated"], disabled: 0 });
    const put = await api.call(user, "PUT", `/api/v1/webhooks/${id}`, { url: "https://hooks.example/new", disabled: "1" });
    expect(put.body.data).toMatchObject({ url: "https://hooks.example/new", events: ["link.updated"], disabled: 1 });

    expect((await api.call(user, "GET", `/api/v1/webhooks/${id}/deliveries`)).body).toMatchObject({ data: [], meta: { total: 0 }, status: 200 });
    expect((await api.call(user, "DELETE", `/api/v1/webhooks/${id}`)).body).toEqual({ id, object: "webhook", deleted: true, status: 200 });
    expect((await api.call(user, "GET", `/api/v1/webhooks/${id}`)).status).toBe(404);
    expect((await api.call(user, "POST", `/api/v1/webhooks/${id}`)).status).toBe(405);
  });

  it("clears the failure streak when the URL changes or the webhook is enabled again", async () => {
    const user = await api.user();
    const { id } = (await api.call(user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/s", events: "link.created" })).body.data;
    await api.database.db
      .update(webhooks)
      .set({ failingSince: new Date("2026-01-01T00:00:00Z"), disabled: true })
      .where(eq(webhooks.id, id));
    expect((await api.call(user, "PATCH", `/api/v1/webhooks/${id}`, { events: "link.deleted" })).body.data).toMatchObject({ failing_since: "2026-01-01T00:00:00.000Z", disabled: 1 });
    expect((await api.call(user, "PATCH", `/api/v1/webhooks/${id}`, { disabled: "0" })).body.data).toMatchObject({ failing_since: null, disabled: 0 });
    await api.database.db
      .update(webhooks)
      .set({ failingSince: new Date("2026-01-01T00:00:00Z") })
      .where(eq(webhooks.id, id));
    expect((await api.call(user, "PATCH", `/api/v1/webhooks/${id}`, { url: "https://hooks.example/t" })).body.data).toMatchObject({ failing_since: null });
  });

  it("answers 404 for someone else's webhook, whatever the method", async () => {
    const owner = await api.user();
    const stranger = await api.user();
    const { id } = (await api.call(owner, "POST", "/api/v1/webhooks", { url: "https://hooks.example/mine", events: "link.created" })).body.data;
    for (const [method, url] of [
      ["GET", `/api/v1/webhooks/${id}`],
      ["PATCH", `/api/v1/webhooks/${id}`],
      ["PUT", `/api/v1/webhooks/${id}`],
      ["DELETE", `/api/v1/webhooks/${id}`],
      ["GET", `/api/v1/webhooks/${id}/deliveries`],
      ["GET", "/api/v1/webhooks/0"],
      ["GET", "/api/v1/webhooks/abc/deliveries"],
    ] as const) {
      const res = await api.call(stranger, method, url, method === "GET" || method === "DELETE" ? undefined : { disabled: "1" });
      expect([method, url, res.status, res.body]).toEqual([method, url, 404, { message: "Resource not found.", code: "not_found", status: 404 }]);
    }
    expect((await api.call(stranger, "GET", "/api/v1/webhooks")).body.meta.total).toBe(0);
    expect((await api.call(owner, "GET", `/api/v1/webhooks/${id}`)).body.data.disabled).toBe(0);
  });

  it.each([
    [
      "no fields",
      {},
      { url: ["The url field is required."], events: ["The events must be a non-empty list of link.created, link.updated, link.deleted, link.clicked, import.completed, link.broken."] },
    ],
    ["a scheme other than http(s)", { url: "javascript:alert(1)", events: "link.created" }, { url: ["The url must start with http:// or https://."] }],
    ["credentials in the URL", { url: "https://me:pw@hooks.example/", events: "link.created" }, { url: ["The url must not contain a user name or password."] }],
    [
      "an unknown event",
      { url: "https://hooks.example/", "events[]": ["link.created", "link.exploded"] },
      { "events.1": ['The event "link.exploded" is not one of link.created, link.updated, link.deleted, link.clicked, import.completed, link.broken.'] },
    ],
    [
      "an empty event list",
      { url: "https://hooks.example/", events: "" },
      { events: ["The events must be a non-empty list of link.created, link.updated, link.deleted, link.clicked, import.completed, link.broken."] },
    ],
    ["disabled out of range", { url: "https://hooks.example/", events: "link.created", disabled: "2" }, { disabled: ["The disabled must be one of 0, 1."] }],
    ["a NUL byte", { url: "https://hooks.example/\u0000", events: "link.created" }, { url: ["The url field must not contain a NUL character (U+0000)."] }],
  ])("422 for %s, every failing field at once", async (_name, form, message) => {
    const user = await api.user();
    const res = await api.call(user, "POST", "/api/v1/webhooks", form as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message, code: "validation_failed", status: 422 });
  });

  it("422 on update for an emptied url or events, and for unknown events", async () => {
    const user = await api.user();
    const { id } = (await api.call(user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/u", events: "link.created" })).body.data;
    const res = await json(user, "PATCH", `/api/v1/webhooks/${id}`, { url: null, events: [], disabled: 3 });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message).sort()).toEqual(["disabled", "events", "url"]);
    expect((await api.call(user, "GET", `/api/v1/webhooks/${id}`)).body.data).toMatchObject({ url: "https://hooks.example/u", events: ["link.created"], disabled: 0 });
  });

  it("422 at create for private, loopback and link-local targets, unless WEBHOOK_ALLOW_PRIVATE", async () => {
    const user = await api.user();
    const trusting = await open.user();
    const targets: Array<[string, string]> = [
      ["http://127.0.0.1:9/", "127.0.0.1 is a loopback address"],
      ["http://10.1.2.3/", "10.1.2.3 is a private address"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"],
      ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1 is an IPv4-mapped address"],
      ["http://localhost:8080/", "localhost is a loopback name"],
      ["http://hooks.localhost/", "hooks.localhost is a loopback name"],
      ["http://0.0.0.0/", "0.0.0.0 is an unspecified address"],
      ["http://[::1]/", "::1 is a loopback address"],
      ["http://100.64.0.1/", "100.64.0.1 is a shared (CGNAT) address"],
      ["http://192.168.1.1/", "192.168.1.1 is a private address"],
      ["http://172.31.255.255/", "172.31.255.255 is a private address"],
      ["http://[fd12:3456::1]/", "fd12:3456::1 is a unique local address"],
      ["http://[fe80::1]/", "fe80::1 is a link-local address"],
      ["http://2130706433/", "127.0.0.1 is a loopback address"],
      ["http://0x7f.1/", "127.0.0.1 is a loopback address"],
    ];
    for (const [url, reason] of targets) {
      const res = await api.call(user, "POST", "/api/v1/webhooks", { url, events: "link.created" });
      expect([url, res.status]).toEqual([url, 422]);
      expect(res.body.message.url[0]).toContain(reason);
      expect((await open.call(trusting, "POST", "/api/v1/webhooks", { url, events: "link.created" })).status).toBe(201);
    }
    expect((await api.call(user, "GET", "/api/v1/webhooks")).body.meta.total).toBe(0);
    for (const url of ["https://8.8.8.8/", "https://[2606:4700:4700::1111]/", "https://hooks.example/"]) {
      expect([url, (await api.call(user, "POST", "/api/v1/webhooks", { url, events: "link.created" })).status]).toEqual([url, 201]);
    }
    const { id } = (await api.call(user, "GET", "/api/v1/webhooks")).body.data[0];
    expect((await api.call(user, "PATCH", `/api/v1/webhooks/${id}`, { url: "http://127.0.0.1/" })).status).toBe(422);
  });

  it("limits a user to 25 webhooks", async () => {
    const user = await api.user();
    for (let i = 0; i < 25; i++) expect((await api.call(user, "POST", "/api/v1/webhooks", { url: `https://hooks.example/${i}`, events: "link.created" })).status).toBe(201);
    const res = await api.call(user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/26", events: "link.created" });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ url: ["You can have at most 25 webhooks: delete one first."] });
  });
});

describe("events in the outbox, written with the change", () => {
  it("link.created, link.updated and link.deleted carry the link as REST answers it to a key without domains:read (no verification token)", async () => {
    const owner = await createOwner(api);
    await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/", "events[]": ["link.created", "link.updated", "link.deleted"] });
    // The owner's domain is unverified: its record (with the token) is what a payload must not carry.
    expect(owner.domain.verification).not.toBeNull();
    const named = await api.call(owner.user, "POST", "/api/v1/account/api-keys", { name: "links", "scopes[]": ["links:read", "links:write"] });
    const key = named.body.data.api_key as string;
    const created = (await api.call(key, "POST", "/api/v1/links", { url: "https://example.com/x", domain_id: String(owner.domain.id), alias: "ev1", "pixel_ids[]": [String(owner.pixel.id)] })).body
      .data;
    const plain = (await api.call(key, "POST", "/api/v1/links", { url: "https://example.com/y", domain_id: String(owner.domain.id) })).body.data;
    const updated = (await api.call(key, "PATCH", `/api/v1/links/${created.id}`, { title: "Changed" })).body.data;
    const shown = (await api.call(key, "GET", `/api/v1/links/${plain.id}`)).body.data;
    await api.call(key, "DELETE", `/api/v1/links/${plain.id}`);
    const rows = await outbox(owner.user.workspaceId);
    expect(rows.map((r) => [r.type, r.data])).toEqual([
      ["link.created", created],
      ["link.created", plain],
      ["link.updated", updated],
      ["link.deleted", shown],
    ]);
    for (const row of rows) expect((row.data as { domain: { verification: unknown } }).domain.verification).toBeNull();
  });

  it("writes nothing for a change that fails, for a user without webhooks, or for events nobody subscribed to", async () => {
    const owner = await createOwner(api);
    const bystander = await createOwner(api);
    await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/", events: "link.deleted" });
    await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/off", events: "link.created", disabled: "1" });
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/a", domain_id: String(owner.domain.id), alias: "taken" })).body.data;
    expect((await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/b", domain_id: String(owner.domain.id), alias: "taken" })).status).toBe(422);
    expect((await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { url: "nope" })).status).toBe(422);
    expect((await api.call(bystander.user, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(404);
    await api.call(bystander.user, "POST", "/api/v1/links", { url: "https://example.com/c", domain_id: String(bystander.domain.id) });
    expect(await outbox(owner.user.workspaceId)).toEqual([]);
    expect(await outbox(bystander.user.workspaceId)).toEqual([]);
  });

  it("link.clicked: one event per link per written batch, with the clicks added up", async () => {
    const owner = await createOwner(api);
    await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/", events: "link.clicked" });
    const a = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/a", domain_id: String(owner.domain.id) })).body.data;
    const b = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/b", domain_id: String(owner.domain.id) })).body.data;
    const other = await createOwner(api);
    const c = (await api.call(other.user, "POST", "/api/v1/links", { url: "https://example.com/c", domain_id: String(other.domain.id) })).body.data;
    const click = (linkId: number, at: string, count: number) => testClick(linkId, at, { count });
    await recordClicks(api.database.db, [
      click(a.id, "2026-11-22T10:00:05.000Z", 3),
      click(b.id, "2026-11-22T10:00:01.000Z", 1),
      click(a.id, "2026-11-22T10:00:00.000Z", 2),
      click(c.id, "2026-11-22T10:00:00.000Z", 9),
    ]);
    await recordClicks(api.database.db, [{ ...click(a.id, "2026-11-22T10:00:09.000Z", 1), counted: true }]);
    const rows = await outbox(owner.user.workspaceId);
    expect(rows.map((r) => r.data)).toEqual([
      { link_id: a.id, clicks: 5, from: "2026-11-22T10:00:00.000Z", to: "2026-11-22T10:00:05.000Z" },
      { link_id: b.id, clicks: 1, from: "2026-11-22T10:00:01.000Z", to: "2026-11-22T10:00:01.000Z" },
      { link_id: a.id, clicks: 1, from: "2026-11-22T10:00:09.000Z", to: "2026-11-22T10:00:09.000Z" },
    ]);
    expect(rows.every((r) => r.type === "link.clicked")).toBe(true);
    expect(await outbox(other.user.workspaceId)).toEqual([]);
  });
});

describe("webhooks on tRPC", () => {
  it("create, get, list, update, deliveries and delete answer REST's objects", async () => {
    const user = await api.user();
    const client = trpcClient(api.app, user.apiKey);
    const created = await client.webhooks.create.mutate({ url: "https://hooks.example/t", events: ["link.created"] });
    expect(created.secret).toMatch(/^whsec_/);
    const { secret: _secret, ...withoutSecret } = created;
    expect(await client.webhooks.get.query({ id: created.id })).toEqual(withoutSecret);
    expect((await api.call(user, "GET", `/api/v1/webhooks/${created.id}`)).body.data).toEqual(withoutSecret);
    expect((await client.webhooks.list.query({})).data).toEqual([withoutSecret]);
    const updated = await client.webhooks.update.mutate({ id: created.id, events: ["link.clicked", "import.completed"], disabled: 1 });
    expect(updated).toMatchObject({ events: ["link.clicked", "import.completed"], disabled: 1 });
    expect(await client.webhooks.deliveries.query({ id: created.id })).toEqual({ data: [], meta: { current_page: 1, from: null, last_page: 1, per_page: 10, to: null, total: 0 } });
    const stranger = trpcClient(api.app, (await api.user()).apiKey);
    const missing = await stranger.webhooks.deliveries.query({ id: created.id }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(TRPCClientError);
    expect((missing as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404, slug: "not_found" });
    for (const [input, fields] of [
      [{ url: "http://10.0.0.1/", events: ["link.created" as const] }, ["url"]],
      [{ url: "ftp://hooks.example/", events: [] }, ["events", "url"]],
    ] as const) {
      const invalid = (await client.webhooks.create.mutate(input as never).catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
      expect(invalid.data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed" });
      expect(Object.keys(invalid.data?.fieldErrors ?? {}).sort()).toEqual(fields);
    }
    expect(await client.webhooks.delete.mutate({ id: created.id })).toEqual({ id: created.id, object: "webhook", deleted: true });
  });
});
