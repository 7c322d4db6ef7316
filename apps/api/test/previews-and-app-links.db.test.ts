import { count, eq } from "drizzle-orm";
import { domains, links, webhookEvents } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, trpcClient, trpcFailure, type TestApi } from "./helpers.ts";

/*
 * CONTRACT §25, second half, over the real API: a link's Open Graph fields and a domain's app-link files
 * (docs/link-features.md). The visitor side's answers are in apps/redirect/test/previews.db.test.ts.
 */

let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
});
afterAll(async () => {
  await api?.close();
});

type Form = Record<string, string | string[]>;
const base = (): Form => ({ url: "https://dest.example/landing", domain_id: String(owner.domain.id) });
const linkCount = async () => (await api.database.db.select({ n: count() }).from(links).where(eq(links.workspaceId, owner.user.workspaceId)))[0]?.n ?? 0;
const AASA = JSON.stringify({ applinks: { details: [{ appIDs: ["ABCDE12345.com.example.app"], components: [{ "/": "/*" }] }] } });
const ASSET_LINKS = JSON.stringify([
  { relation: ["delegate_permission/common.handle_all_urls"], target: { namespace: "android_app", package_name: "com.example.app", sha256_cert_fingerprints: ["14:6D:E9"] } },
]);

/** Each hostile value of a link's Open Graph fields, as a form sends it (a list as `field[]`), and the field the 422 must name. */
const BAD_LINK_FIELDS: Array<[string, string, string | string[]]> = [
  ["og_title over 255 characters", "og_title", "t".repeat(256)],
  ["og_title with a line feed", "og_title", "Sale\nnow"],
  ["og_title with a tab", "og_title", "Sale\tnow"],
  ["og_title with a NUL", "og_title", "Sale\u0000now"],
  ["og_title with a right-to-left override", "og_title", "\u202Egnp.exe"],
  ["og_title blank", "og_title", "   "],
  ["og_title as a list", "og_title", ["a", "b"]],
  ["og_description over 1000 characters", "og_description", "d".repeat(1001)],
  ["og_description with a bell", "og_description", "ding\u0007"],
  ["og_description with a NUL", "og_description", "a\u0000b"],
  ["og_description with an isolate", "og_description", "a\u2066b"],
  ["og_image javascript:", "og_image", "javascript:alert(1)"],
  ["og_image data:", "og_image", "data:image/png;base64,iVBORw0KGgo="],
  ["og_image ftp:", "og_image", "ftp://files.example/card.png"],
  ["og_image relative", "og_image", "/card.png"],
  ["og_image with a space", "og_image", "https://img.example/a card.png"],
  ["og_image with credentials", "og_image", "https://user:pass@img.example/card.png"],
  ["og_image over 2048 characters", "og_image", `https://img.example/${"x".repeat(2048)}.png`],
  ["og_image with a NUL", "og_image", "https://img.example/\u0000.png"],
];

/** Each hostile app-link file, and the field the 422 must name. */
const BAD_DOMAIN_FIELDS: Array<[string, string, string | string[]]> = [
  ["an AASA that is not JSON", "apple_app_site_association", "applinks: yes"],
  ["an AASA cut short", "apple_app_site_association", '{"applinks":'],
  ["an AASA that is an array", "apple_app_site_association", "[]"],
  ["an AASA that is null", "apple_app_site_association", "null"],
  ["an AASA that is a string", "apple_app_site_association", '"applinks"'],
  ["an AASA over 64 KiB", "apple_app_site_association", JSON.stringify({ pad: "x".repeat(65_536) })],
  ["an AASA over 64 KiB in UTF-8 bytes only (40,000 × é)", "apple_app_site_association", JSON.stringify({ pad: "é".repeat(40_000) })],
  ["an AASA with a NUL", "apple_app_site_association", '{"a":"\u0000"}'],
  ["an AASA with a byte-order mark", "apple_app_site_association", "\uFEFF{}"],
  ["an AASA as a list", "apple_app_site_association", ["{}", "{}"]],
  ["asset links that are an object", "asset_links", "{}"],
  ["asset links that are not JSON", "asset_links", "[{]"],
  ["asset links that are a number", "asset_links", "42"],
  ["asset links over 64 KiB", "asset_links", JSON.stringify(["x".repeat(70_000)])],
];

/** A form's value as JSON (tRPC): a list stays a list. */
const asJson = (value: string | string[]) => value;
const formOf = (field: string, value: string | string[]): Form => (Array.isArray(value) ? { [`${field}[]`]: value } : { [field]: value });

describe("Open Graph fields: hostile input is a 422 naming the field, nothing stored", () => {
  it.each(BAD_LINK_FIELDS)("REST create: %s", async (_name, field, value) => {
    const before = await linkCount();
    const res = await api.call(owner.user, "POST", "/api/v1/links", { ...base(), ...formOf(field, value) });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message)).toEqual([field]);
    for (const m of res.body.message[field] as string[]) expect(m).toMatch(/^The .+\.$/);
    expect(await linkCount()).toBe(before);
  });

  it.each(BAD_LINK_FIELDS)("tRPC create: %s", async (_name, field, value) => {
    const before = await linkCount();
    const client = trpcClient(api.app, owner.user.apiKey);
    const error = await trpcFailure(client.links.create.mutate({ url: "https://dest.example/", domain_id: owner.domain.id, [field]: asJson(value) } as never));
    expect(error.data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed" });
    expect(Object.keys(error.data?.fieldErrors ?? {})).toEqual([field]);
    expect(await linkCount()).toBe(before);
  });

  it("an update or a bulk update with a bad field changes nothing (REST and tRPC)", async () => {
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { ...base(), og_title: "Kept", og_image: "https://img.example/kept.png" })).body.data;
    const client = trpcClient(api.app, owner.user.apiKey);
    for (const [, field, value] of BAD_LINK_FIELDS) {
      const rest = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { og_description: "also sent", ...formOf(field, value) });
      expect(rest.status).toBe(422);
      expect(Object.keys(rest.body.message)).toEqual([field]);
      const bulk = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: String(link.id), ...formOf(field, value) });
      expect(bulk.status).toBe(422);
      expect(Object.keys(bulk.body.message)).toEqual([field]);
      const error = await trpcFailure(client.links.update.mutate({ id: link.id, [field]: asJson(value) } as never));
      expect(Object.keys(error.data?.fieldErrors ?? {})).toEqual([field]);
    }
    const after = (await api.call(owner.user, "GET", `/api/v1/links/${link.id}`)).body.data;
    expect(after).toMatchObject({ og_title: "Kept", og_description: null, og_image: "https://img.example/kept.png", updated_at: link.updated_at });
  });
});

describe("Open Graph fields", () => {
  it("are set on create, returned, changed and cleared on update (an empty value clears), set in bulk; the audit log and webhooks carry them", async () => {
    await api.call(owner.user, "POST", "/api/v1/webhooks", { url: "https://hooks.example/og", "events[]": ["link.created", "link.updated"] });
    const created = await api.call(owner.user, "POST", "/api/v1/links", {
      ...base(),
      og_title: "Fall sale — 30 % off <everything>",
      og_description: "Two lines:\nshoes & bags.",
      og_image: "https://img.example/cards/fall.png",
    });
    expect(created.status).toBe(201);
    const link = created.body.data;
    expect(link).toMatchObject({ og_title: "Fall sale — 30 % off <everything>", og_description: "Two lines:\nshoes & bags.", og_image: "https://img.example/cards/fall.png" });
    const plain = (await api.call(owner.user, "POST", "/api/v1/links", base())).body.data;
    expect(plain).toMatchObject({ og_title: null, og_description: null, og_image: null });

    const changed = await api.call(owner.user, "PUT", `/api/v1/links/${link.id}`, { og_title: "Winter sale", og_description: "" });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ og_title: "Winter sale", og_description: null, og_image: "https://img.example/cards/fall.png" });

    const bulk = await api.call(owner.user, "PATCH", "/api/v1/links", { ids: `${link.id},${plain.id}`, og_image: "https://img.example/cards/winter.png" });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.map((l: { og_image: string }) => l.og_image)).toEqual(["https://img.example/cards/winter.png", "https://img.example/cards/winter.png"]);
    expect(bulk.body.data.map((l: { og_title: string | null }) => l.og_title)).toEqual(["Winter sale", null]);

    // tRPC: the same fields; null clears.
    const client = trpcClient(api.app, owner.user.apiKey);
    const viaTrpc = await client.links.update.mutate({ id: link.id, og_title: null, og_image: "https://img.example/x.png" });
    expect(viaTrpc).toMatchObject({ og_title: null, og_description: null, og_image: "https://img.example/x.png" });
    expect((await client.links.get.query({ id: link.id })).og_image).toBe("https://img.example/x.png");

    const audit = await api.call(owner.user, "GET", `/api/v1/audit?object_type=link&object_id=${link.id}`);
    const entries = audit.body.data as Array<{ action: string; changes: Record<string, unknown> }>;
    expect(entries.find((e) => e.action === "link.created")?.changes.og_title).toEqual({ after: "Fall sale — 30 % off <everything>" });
    expect(entries.map((e) => e.changes.og_description)).toContainEqual({ before: "Two lines:\nshoes & bags.", after: null });

    const events = await api.database.db.select().from(webhookEvents).where(eq(webhookEvents.workspaceId, owner.user.workspaceId)).orderBy(webhookEvents.id);
    const first = events.find((e) => e.type === "link.created" && (e.data as { id: number }).id === link.id);
    expect(first?.data).toMatchObject({ og_title: "Fall sale — 30 % off <everything>", og_description: "Two lines:\nshoes & bags.", og_image: "https://img.example/cards/fall.png" });
  });
});

describe("app links: hostile input is a 422 naming the field, nothing stored", () => {
  const stored = async (id: number) => (await api.database.db.select({ a: domains.appleAppSiteAssociation, b: domains.assetLinks }).from(domains).where(eq(domains.id, id)))[0];

  it.each(BAD_DOMAIN_FIELDS)("REST create, REST update and tRPC update: %s", async (_name, field, value) => {
    const name = `app${Math.random().toString(36).slice(2, 9)}.example`;
    const created = await api.call(owner.user, "POST", "/api/v1/domains", { name, ...formOf(field, value) });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.message)).toEqual([field]);
    for (const m of created.body.message[field] as string[]) expect(m).toMatch(/^The .+\.$/);
    const names = await api.call(owner.user, "GET", `/api/v1/domains?search=${name}`);
    expect(names.body.data).toEqual([]);

    const domain = (await api.call(owner.user, "POST", "/api/v1/domains", { name, apple_app_site_association: AASA, asset_links: ASSET_LINKS })).body.data;
    const updated = await api.call(owner.user, "PATCH", `/api/v1/domains/${domain.id}`, formOf(field, value));
    expect(updated.status).toBe(422);
    expect(Object.keys(updated.body.message)).toEqual([field]);
    const client = trpcClient(api.app, owner.user.apiKey);
    const error = await trpcFailure(client.domains.update.mutate({ id: domain.id, [field]: asJson(value) } as never));
    expect(error.data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed" });
    expect(Object.keys(error.data?.fieldErrors ?? {})).toEqual([field]);
    expect(await stored(domain.id)).toEqual({ a: AASA, b: ASSET_LINKS });
  });
});

describe("app links", () => {
  it("are set on create and update, returned by the domain endpoints (not in a link's domain), cleared by an empty value; 64 KiB exactly is taken", async () => {
    const name = `apps${Math.random().toString(36).slice(2, 9)}.example`;
    const created = await api.call(owner.user, "POST", "/api/v1/domains", { name, apple_app_site_association: AASA });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ apple_app_site_association: AASA, asset_links: null });
    const id = created.body.data.id as number;

    // JSON bodies take the same text; it is kept byte for byte (spaces, key order).
    const spaced = '[ {"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "web", "site": "https://x.example"}} ]';
    const json = await api.app.inject({
      method: "PATCH",
      url: `/api/v1/domains/${id}`,
      headers: { authorization: `Bearer ${owner.user.apiKey}`, "content-type": "application/json" },
      payload: JSON.stringify({ asset_links: spaced }),
    });
    expect(json.statusCode).toBe(200);
    expect(json.json().data).toMatchObject({ apple_app_site_association: AASA, asset_links: spaced });

    const limit = JSON.stringify({ pad: "x".repeat(65_536 - 10) });
    expect(Buffer.byteLength(limit)).toBe(65_536);
    const big = await api.call(owner.user, "PUT", `/api/v1/domains/${id}`, { apple_app_site_association: limit });
    expect(big.status).toBe(200);

    const shown = await api.call(owner.user, "GET", `/api/v1/domains/${id}`);
    expect(shown.body.data).toMatchObject({ apple_app_site_association: limit, asset_links: spaced });
    const listed = await api.call(owner.user, "GET", `/api/v1/domains?search=${name}`);
    expect(listed.body.data[0]).toMatchObject({ apple_app_site_association: limit, asset_links: spaced });
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(id) })).body.data;
    expect(link.domain).not.toHaveProperty("apple_app_site_association");
    expect(link.domain).not.toHaveProperty("asset_links");

    const client = trpcClient(api.app, owner.user.apiKey);
    expect((await client.domains.get.query({ id })).asset_links).toBe(spaced);
    const cleared = await api.call(owner.user, "PATCH", `/api/v1/domains/${id}`, { apple_app_site_association: "" });
    expect(cleared.body.data).toMatchObject({ apple_app_site_association: null, asset_links: spaced });
    expect(await client.domains.update.mutate({ id, asset_links: null })).toMatchObject({ apple_app_site_association: null, asset_links: null });

    // The audit log records each file's size and digest, not its text.
    const audit = await api.call(owner.user, "GET", `/api/v1/audit?object_type=domain&object_id=${id}`);
    const changes = (audit.body.data as Array<{ changes: Record<string, { before?: unknown; after?: unknown }> }>).map((e) => e.changes.apple_app_site_association).filter(Boolean);
    expect(changes).toContainEqual({ after: expect.stringMatching(/^\d+ bytes, sha256 [0-9a-f]{16}$/) });
    expect(JSON.stringify(audit.body.data)).not.toContain("applinks");
  });
});
