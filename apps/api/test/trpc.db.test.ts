import type { TRPCClientError } from "@trpc/client";
import { recordClicks } from "@shortener/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../src/index.ts";
import { createOwner, createTestApi, trpcClient, trpcFailure as failure, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});
const uniq = () => Math.random().toString(36).slice(2, 10);

/** REST's `meta` without `path`: what tRPC lists answer. */
function restMeta(meta: Record<string, unknown>) {
  const { path: _path, ...rest } = meta;
  return rest;
}

describe("tRPC answers REST's objects (CONTRACT §11)", () => {
  it("links: create, get, list, update and delete, each equal to REST's data", async () => {
    const owner = await createOwner(api);
    const client = trpcClient(api.app, owner.user.apiKey);
    const created = await client.links.create.mutate({
      url: "https://example.com/a?b=1",
      domain_id: owner.domain.id,
      alias: `t-${uniq()}`,
      title: "From tRPC",
      space_id: owner.space.id,
      pixel_ids: [owner.pixel.id],
      country: [{ key: "us", value: "https://us.example/" }],
      target_type: 1,
    });
    expect(created).toMatchObject({ title: "From tRPC", country_target: [{ key: "US", value: "https://us.example/" }], space: { id: owner.space.id }, pixels: [{ id: owner.pixel.id }] });
    expect(created).toEqual((await api.call(owner.user, "GET", `/api/v1/links/${created.id}`)).body.data);
    expect(await client.links.get.query({ id: created.id })).toEqual(created);

    const list = await client.links.list.query({ search: "From tRPC", per_page: 10 });
    const rest = await api.call(owner.user, "GET", "/api/v1/links?search=From%20tRPC&per_page=10");
    expect(list).toEqual({ data: rest.body.data, meta: restMeta(rest.body.meta) });
    expect(list.meta).toEqual({ current_page: 1, from: 1, last_page: 1, per_page: 10, to: 1, total: 1 });

    const updated = await client.links.update.mutate({ id: created.id, title: "Renamed", space_id: null });
    expect(updated).toMatchObject({ id: created.id, title: "Renamed", space: null, alias: created.alias });
    expect(updated).toEqual((await api.call(owner.user, "GET", `/api/v1/links/${created.id}`)).body.data);

    expect(await client.links.delete.mutate({ id: created.id })).toEqual({ id: created.id, object: "link", deleted: true });
    expect((await api.call(owner.user, "GET", `/api/v1/links/${created.id}`)).status).toBe(404);
  });

  it("stats.get answers REST's stats rows; another user's link is NOT_FOUND", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://s.example/", domain_id: String(owner.domain.id) })).body.data;
    const now = new Date();
    await recordClicks(api.database.db, [
      { linkId: link.id, at: now, country: "DE", platform: "iOS", browser: null, device: "mobile", language: "de", referrer: null, counted: false, rotation: null },
      { linkId: link.id, at: now, country: "DE", platform: null, browser: null, device: "desktop", language: null, referrer: null, counted: false, rotation: null },
    ]);
    const client = trpcClient(api.app, owner.user.apiKey);
    const country = await client.stats.get.query({ link_id: link.id, name: "country" });
    const rest = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=country`);
    expect(country.data).toEqual([{ value: "DE", count: 2 }]);
    expect(country.data).toEqual(rest.body.data);
    const stranger = trpcClient(api.app, (await api.user()).apiKey);
    expect((await failure(stranger.stats.get.query({ link_id: link.id, name: "country" }))).data?.code).toBe("NOT_FOUND");
    expect((await failure(client.stats.get.query({ link_id: link.id, name: "nope" as never }))).data?.code).toBe("BAD_REQUEST");
  });

  it("imports.list and imports.get answer REST's job objects; another user's job is NOT_FOUND", async () => {
    const owner = await createOwner(api);
    const posted = await api.app.inject({
      method: "POST",
      url: `/api/v1/imports?domain_id=${owner.domain.id}`,
      headers: { authorization: `Bearer ${owner.user.apiKey}`, "content-type": "text/csv" },
      payload: "url,alias\nhttps://a.example/,imp-a\n",
    });
    expect(posted.statusCode).toBe(202);
    const id = posted.json().data.id as number;
    const client = trpcClient(api.app, owner.user.apiKey);
    const job = await client.imports.get.query({ id });
    expect(job).toEqual((await api.call(owner.user, "GET", `/api/v1/imports/${id}`)).body.data);
    const list = await client.imports.list.query({});
    expect(list.data.map((j) => j.id)).toEqual([id]);
    const stranger = trpcClient(api.app, (await api.user()).apiKey);
    expect((await failure(stranger.imports.get.query({ id }))).data?.code).toBe("NOT_FOUND");
  });

  it("domains, spaces and pixels: create, get, list, update and delete", async () => {
    const user = await api.user();
    const client = trpcClient(api.app, user.apiKey);

    const domain = await client.domains.create.mutate({ name: `https://Trpc-${uniq()}.Example/` });
    expect(domain.name).toMatch(/^trpc-[a-z0-9]+\.example$/);
    expect(await client.domains.get.query({ id: domain.id })).toEqual((await api.call(user, "GET", `/api/v1/domains/${domain.id}`)).body.data);
    expect((await client.domains.update.mutate({ id: domain.id, index_page: "https://home.example/" })).index_page).toBe("https://home.example/");
    expect((await client.domains.list.query({ sort_by: "name", sort: "asc" })).data.map((d) => d.id)).toEqual([domain.id]);
    expect(await client.domains.delete.mutate({ id: domain.id })).toEqual({ id: domain.id, object: "domain", deleted: true });

    const space = await client.spaces.create.mutate({ name: `s-${uniq()}`, color: 3 });
    expect(space).toEqual((await api.call(user, "GET", `/api/v1/spaces/${space.id}`)).body.data);
    expect((await client.spaces.update.mutate({ id: space.id, color: 5 })).color).toBe(5);
    expect((await client.spaces.list.query({})).meta.total).toBe(1);
    expect(await client.spaces.delete.mutate({ id: space.id })).toEqual({ id: space.id, object: "space", deleted: true });

    const pixel = await client.pixels.create.mutate({ name: "Ads", type: "google-ads", value: "AW-123" });
    expect(pixel).toEqual((await api.call(user, "GET", `/api/v1/pixels/${pixel.id}`)).body.data);
    expect((await client.pixels.update.mutate({ id: pixel.id, value: "AW-456" })).value).toBe("AW-456");
    expect((await client.pixels.list.query({ search: "Ads" })).data).toHaveLength(1);
    expect(await client.pixels.delete.mutate({ id: pixel.id })).toEqual({ id: pixel.id, object: "pixel", deleted: true });
  });

  it("a batch of calls answers each call (httpBatchLink)", async () => {
    const owner = await createOwner(api);
    const client = trpcClient(api.app, owner.user.apiKey, { batch: true });
    const [domains, spaces, missing] = await Promise.allSettled([client.domains.list.query({}), client.spaces.get.query({ id: owner.space.id }), client.pixels.get.query({ id: 2_000_000_000 })]);
    expect(domains.status === "fulfilled" && domains.value.data.map((d) => d.id)).toEqual([owner.domain.id]);
    expect(spaces.status === "fulfilled" && spaces.value).toEqual(owner.space);
    expect(missing.status === "rejected" && (missing.reason as TRPCClientError<AppRouter>).data?.code).toBe("NOT_FOUND");
  });

  it("account.get is REST's account; account.rotateKey revokes the key it was called with", async () => {
    const user = await api.user();
    const client = trpcClient(api.app, user.apiKey);
    expect(await client.account.get.query()).toEqual((await api.call(user, "GET", "/api/v1/account")).body.data);
    const { api_key } = await client.account.rotateKey.mutate();
    expect(api_key).toMatch(/^shk_/);
    const old = await failure(client.account.get.query());
    expect(old.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401, slug: "unauthenticated" });
    expect((await trpcClient(api.app, api_key).account.get.query()).id).toBe(user.id);
  });

  it("users: admins create, list and delete; anyone else gets FORBIDDEN", async () => {
    const admin = trpcClient(api.app, (await api.user("admin")).apiKey);
    const created = await admin.users.create.mutate({ email: `T-${uniq()}@Example.test`, name: "Via tRPC" });
    expect(created).toMatchObject({ name: "Via tRPC", role: "user", api_key: expect.stringMatching(/^shk_/) });
    expect((await admin.users.list.query({ search: created.email })).data).toEqual([{ id: created.id, name: "Via tRPC", email: created.email, role: "user", created_at: created.created_at }]);
    const user = trpcClient(api.app, created.api_key);
    const forbidden = await failure(user.users.list.query({}));
    expect(forbidden.data).toMatchObject({ code: "FORBIDDEN", httpStatus: 403, slug: "forbidden" });
    expect(await admin.users.delete.mutate({ id: created.id })).toEqual({ id: created.id, object: "user", deleted: true });
    expect((await failure(user.account.get.query())).data?.code).toBe("UNAUTHORIZED");
  });
});

describe("tRPC errors", () => {
  it("an invalid input is BAD_REQUEST with REST's 422 field errors, every field at once", async () => {
    const owner = await createOwner(api);
    const client = trpcClient(api.app, owner.user.apiKey);
    const input = {
      url: "javascript:alert(1)",
      domain_id: owner.domain.id,
      alias: "has space",
      country: [{ key: "XX", value: "https://x.example/" }],
      privacy: 7,
    };
    const error = await failure(client.links.create.mutate(input as never));
    const rest = await api.app.inject({
      method: "POST",
      url: "/api/v1/links",
      headers: { authorization: `Bearer ${owner.user.apiKey}`, "content-type": "application/json" },
      payload: JSON.stringify(input),
    });
    expect(rest.statusCode).toBe(422);
    expect(error.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400, slug: "validation_failed" });
    expect(error.data?.fieldErrors).toEqual(rest.json().message);
    expect(Object.keys(error.data?.fieldErrors ?? {}).sort()).toEqual(["alias", "country.0.key", "privacy", "url"]);
    expect(error.message).toBe(Object.values(error.data?.fieldErrors ?? {})[0]?.[0]);
  });

  it("a rule core checks against the database is BAD_REQUEST with the same field errors", async () => {
    const owner = await createOwner(api);
    const stranger = await createOwner(api);
    const client = trpcClient(api.app, owner.user.apiKey);
    const error = await failure(client.links.create.mutate({ url: "https://example.com/", domain_id: stranger.domain.id, space_id: stranger.space.id }));
    const rest = await api.call(owner.user, "POST", "/api/v1/links", { url: "https://example.com/", domain_id: String(stranger.domain.id), space_id: String(stranger.space.id) });
    expect(error.data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed" });
    expect(error.data?.fieldErrors).toEqual(rest.body.message);
    expect(Object.keys(error.data?.fieldErrors ?? {}).sort()).toEqual(["domain_id", "space_id"]);
  });

  it("an update keeps REST's field names (no `data.` prefix), and the domain cannot change", async () => {
    const owner = await createOwner(api);
    const client = trpcClient(api.app, owner.user.apiKey);
    const link = await client.links.create.mutate({ url: "https://example.com/", domain_id: owner.domain.id });
    // @ts-expect-error the update schema refuses every domain_id, and its type says so
    const error = await failure(client.links.update.mutate({ id: link.id, url: "ftp://x.example/", domain_id: 3 }));
    expect(error.data?.fieldErrors).toEqual({ url: [expect.any(String)], domain_id: ["The domain id cannot be changed."] });
  });

  it("someone else's resource, or none, is NOT_FOUND with REST's message", async () => {
    const owner = await createOwner(api);
    const other = trpcClient(api.app, (await api.user()).apiKey);
    const link = await trpcClient(api.app, owner.user.apiKey).links.create.mutate({ url: "https://example.com/", domain_id: owner.domain.id });
    for (const call of [
      () => other.links.get.query({ id: link.id }),
      () => other.links.update.mutate({ id: link.id, title: "mine" }),
      () => other.links.delete.mutate({ id: link.id }),
      () => other.domains.get.query({ id: owner.domain.id }),
      () => other.spaces.delete.mutate({ id: owner.space.id }),
      () => other.pixels.update.mutate({ id: owner.pixel.id, name: "x" }),
    ]) {
      const error = await failure(call());
      expect(error.message).toBe("Resource not found.");
      expect(error.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404, slug: "not_found", fieldErrors: null });
    }
  });

  it("an id that is not a positive integer is BAD_REQUEST on `id`", async () => {
    const client = trpcClient(api.app, (await api.user()).apiKey);
    for (const id of [0, -1, 1.5, 2 ** 31]) {
      expect((await failure(client.links.get.query({ id }))).data?.fieldErrors).toEqual({ id: [expect.any(String)] });
    }
  });

  it("no key, or an unknown one, is UNAUTHORIZED (401) for every call", async () => {
    for (const key of [undefined, "shk_0000000000000000000000000000000000000000"]) {
      const error = await failure(trpcClient(api.app, key).links.list.query({}));
      expect(error.message).toBe("Unauthenticated.");
      expect(error.data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401, slug: "unauthenticated" });
    }
  });

  it("unknown procedures, a GET of a mutation and broken JSON are tRPC errors, never a stack", async () => {
    const headers = { authorization: `Bearer ${(await api.user()).apiKey}` };
    const unknown = await api.app.inject({ method: "GET", url: "/trpc/links.nope", headers });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.data).toMatchObject({ code: "NOT_FOUND", slug: "not_found" });
    const wrongMethod = await api.app.inject({ method: "GET", url: "/trpc/links.create", headers });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.json().error.data).toMatchObject({ code: "METHOD_NOT_SUPPORTED", slug: "method_not_allowed" });
    const broken = await api.app.inject({ method: "POST", url: "/trpc/links.create", headers: { ...headers, "content-type": "application/json" }, payload: "{nope" });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.data).toMatchObject({ code: "BAD_REQUEST", slug: "bad_request", fieldErrors: null });
    for (const res of [unknown, wrongMethod, broken]) expect(res.body).not.toMatch(/stack|at .*\.ts:\d+/);
  });
});
