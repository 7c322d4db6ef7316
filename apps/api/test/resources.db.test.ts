import { eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});
const uniq = () => Math.random().toString(36).slice(2, 10);

describe("domains (CONTRACT §4)", () => {
  it("stores the name normalised and answers the §3 shape", async () => {
    const user = await api.user();
    const name = `Go-${uniq()}.Example`;
    const res = await api.call(user, "POST", "/api/v1/domains", { name: `https://${name}/`, index_page: "https://home.example/", not_found_page: "" });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      name: name.toLowerCase(),
      url: `https://${name.toLowerCase()}`,
      index_page: "https://home.example/",
      not_found_page: null,
      verified: false,
      verification: { type: "TXT", name: `_shortener-challenge.${name.toLowerCase()}`, value: expect.stringMatching(/^shortener-verify=[0-9A-Za-z]{32}$/) },
      apple_app_site_association: null,
      asset_links: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("localhost and IP domains (an admin's) get http URLs; IDN names are stored as punycode", async () => {
    const user = await api.user("admin");
    const port = 1000 + Math.floor(Math.random() * 60000);
    expect((await api.call(user, "POST", "/api/v1/domains", { name: `localhost:${port}` })).body.data.url).toBe(`http://localhost:${port}`);
    const idn = await api.call(user, "POST", "/api/v1/domains", { name: `bücher-${uniq()}.example` });
    expect(idn.body.data.name).toMatch(/^xn--/);
  });

  it.each([
    ["no name", {}, "name"],
    ["empty name", { name: "" }, "name"],
    ["a path in the name", { name: "example.com/path" }, "name"],
    ["a space", { name: "exa mple.com" }, "name"],
    ["a script", { name: "<script>.example" }, "name"],
    ["a bad port", { name: "example.com:99999" }, "name"],
    ["index page javascript:", { name: "ok-NAME.example", index_page: "javascript:alert(1)" }, "index_page"],
    ["not-found page relative", { name: "ok-NAME.example", not_found_page: "/404" }, "not_found_page"],
    ["index page on the domain itself (loop)", { name: "loop-NAME.example", index_page: "https://loop-NAME.example/" }, "index_page"],
  ])("refuses %s", async (_name, form, field) => {
    const user = await api.user();
    const id = uniq();
    const body = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, String(v).replaceAll("NAME", id)]));
    const res = await api.call(user, "POST", "/api/v1/domains", body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message)).toContain(field);
  });

  it("a verified name is unique across all users, and a user's own names are unique", async () => {
    const a = await api.user();
    const b = await api.call(await api.user("admin"), "POST", "/api/v1/domains", { name: `shared-${uniq()}.example` });
    expect(b.body.data.verified).toBe(true);
    const res = await api.call(a, "POST", "/api/v1/domains", { name: b.body.data.name.toUpperCase() });
    expect(res.status).toBe(422);
    expect(res.body.message).toEqual({ name: ["The name has already been taken."] });
    const own = await api.call(a, "POST", "/api/v1/domains", { name: `mine-${uniq()}.example` });
    expect((await api.call(a, "POST", "/api/v1/domains", { name: own.body.data.name })).body.message).toEqual({ name: ["The name has already been taken."] });
  });

  it("update accepts only the two pages; name is a 422; empty clears", async () => {
    const user = await api.user();
    const d = (await api.call(user, "POST", "/api/v1/domains", { name: `upd-${uniq()}.example`, index_page: "https://a.example/" })).body.data;
    expect((await api.call(user, "PUT", `/api/v1/domains/${d.id}`, { name: "other.example" })).body.message).toEqual({ name: ["The name cannot be changed."] });
    const res = await api.call(user, "PATCH", `/api/v1/domains/${d.id}`, { index_page: "", not_found_page: "https://nf.example/" });
    expect(res.body.data).toMatchObject({ index_page: null, not_found_page: "https://nf.example/", name: d.name });
  });

  it("deleting a domain deletes its links", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://x.example/", domain_id: String(owner.domain.id) })).body.data;
    const res = await api.call(owner.user, "DELETE", `/api/v1/domains/${owner.domain.id}`);
    expect(res.body).toEqual({ id: owner.domain.id, object: "domain", deleted: true, status: 200 });
    expect(await api.database.db.select().from(links).where(eq(links.id, link.id))).toEqual([]);
  });

  it("lists with search, sort and 422 on values outside their lists", async () => {
    const user = await api.user();
    const tag = uniq();
    for (const n of ["b", "a", "c"]) await api.call(user, "POST", "/api/v1/domains", { name: `${n}-${tag}.example` });
    const res = await api.call(user, "GET", `/api/v1/domains?search=${tag}&sort_by=name&sort=asc`);
    expect(res.body.data.map((d: { name: string }) => d.name)).toEqual([`a-${tag}.example`, `b-${tag}.example`, `c-${tag}.example`]);
    expect((await api.call(user, "GET", "/api/v1/domains?sort_by=url")).status).toBe(422);
    expect((await api.call(user, "GET", "/api/v1/domains?search_by=url")).status).toBe(422);
    expect((await api.call(user, "GET", "/api/v1/domains?per_page=7")).status).toBe(422);
  });
});

describe("spaces (CONTRACT §9)", () => {
  it("CRUD with name 1–32 unique per user and color 1–6 (default 1)", async () => {
    const user = await api.user();
    const created = await api.call(user, "POST", "/api/v1/spaces", { name: "Marketing" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "Marketing", color: 1 });
    expect((await api.call(user, "POST", "/api/v1/spaces", { name: "Marketing" })).body.message).toEqual({ name: ["The name has already been taken."] });
    expect((await api.call(await api.user(), "POST", "/api/v1/spaces", { name: "Marketing" })).status).toBe(201);
    const updated = await api.call(user, "PATCH", `/api/v1/spaces/${created.body.data.id}`, { color: "6" });
    expect(updated.body.data).toMatchObject({ name: "Marketing", color: 6 });
    expect((await api.call(user, "GET", `/api/v1/spaces/${created.body.data.id}`)).body.data.color).toBe(6);
  });

  it.each([
    [{ name: "" }, "name"],
    [{ name: "x".repeat(33) }, "name"],
    [{ name: "ok", color: "0" }, "color"],
    [{ name: "ok", color: "7" }, "color"],
    [{ name: "ok", color: "red" }, "color"],
  ])("refuses %j", async (form, field) => {
    const res = await api.call(await api.user(), "POST", "/api/v1/spaces", form);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message)).toContain(field);
  });

  it("deleting a space leaves its links without a space", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://x.example/", domain_id: String(owner.domain.id), space_id: String(owner.space.id) })).body.data;
    expect(link.space.id).toBe(owner.space.id);
    expect((await api.call(owner.user, "DELETE", `/api/v1/spaces/${owner.space.id}`)).body.object).toBe("space");
    expect((await api.call(owner.user, "GET", `/api/v1/links/${link.id}`)).body.data.space).toBeNull();
  });
});

describe("pixels (CONTRACT §9)", () => {
  it("CRUD with a known type and a safe value", async () => {
    const user = await api.user();
    const created = await api.call(user, "POST", "/api/v1/pixels", { name: "GA", type: "google-analytics", value: "G-ABC_123" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: "GA", type: "google-analytics", value: "G-ABC_123" });
    const updated = await api.call(user, "PUT", `/api/v1/pixels/${created.body.data.id}`, { type: "x" });
    expect(updated.body.data).toMatchObject({ type: "x", value: "G-ABC_123" });
  });

  it.each([
    [{ type: "facebook", value: "1" }, "name"],
    [{ name: "p", value: "1" }, "type"],
    [{ name: "p", type: "myspace", value: "1" }, "type"],
    [{ name: "p", type: "facebook" }, "value"],
    [{ name: "p", type: "facebook", value: "1');alert(1)//" }, "value"],
    [{ name: "p", type: "facebook", value: "<script>" }, "value"],
    [{ name: "p", type: "facebook", value: "v".repeat(256) }, "value"],
  ])("refuses %j", async (form, field) => {
    const res = await api.call(await api.user(), "POST", "/api/v1/pixels", form);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message)).toContain(field);
  });

  it("deleting a pixel detaches it from its links", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://x.example/", domain_id: String(owner.domain.id), "pixel_ids[]": [String(owner.pixel.id)] })).body.data;
    expect(link.pixels).toHaveLength(1);
    expect((await api.call(owner.user, "DELETE", `/api/v1/pixels/${owner.pixel.id}`)).body).toEqual({ id: owner.pixel.id, object: "pixel", deleted: true, status: 200 });
    expect((await api.call(owner.user, "GET", `/api/v1/links/${link.id}`)).body.data.pixels).toEqual([]);
  });
});
