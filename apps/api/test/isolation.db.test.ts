import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

/**
 * CONTRACT §1: a user sees, changes and counts only their own things. Another user's id answers exactly
 * what an id that does not exist answers: the same status and the same body.
 */
describe("tenant isolation", () => {
  it("walks every endpoint with a second user's key", async () => {
    const alice = await createOwner(api);
    const mallory = await createOwner(api);
    const link = (await api.call(alice.user, "POST", "/api/v1/links", { url: "https://alice.example/", domain_id: String(alice.domain.id) })).body.data;
    const owned = { links: link.id, domains: alice.domain.id, spaces: alice.space.id, pixels: alice.pixel.id };
    const missing = 2_000_000_000;

    for (const [resource, id] of Object.entries(owned)) {
      for (const [method, form] of [
        ["GET", undefined],
        ["PUT", { title: "x", index_page: "https://m.example/", name: "m", color: "2" }],
        ["PATCH", { title: "x", index_page: "https://m.example/", name: "m", color: "2" }],
        ["DELETE", undefined],
      ] as const) {
        const foreign = await api.call(mallory.user, method, `/api/v1/${resource}/${id}`, form);
        const absent = await api.call(mallory.user, method, `/api/v1/${resource}/${missing}`, form);
        expect(foreign.status, `${method} ${resource}`).toBe(404);
        expect(foreign.body, `${method} ${resource}`).toEqual(absent.body);
      }
      const list = await api.call(mallory.user, "GET", `/api/v1/${resource}?per_page=100`);
      expect(list.body.data.map((r: { id: number }) => r.id)).not.toContain(id);
    }

    // Filters with another user's ids find nothing; references to them in a body are 422s.
    for (const filter of [`domain_id=${alice.domain.id}`, `space_id=${alice.space.id}`, `pixel_id=${alice.pixel.id}`]) {
      const res = await api.call(mallory.user, "GET", `/api/v1/links?${filter}`);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.total).toBe(0);
    }
    const stolen = await api.call(mallory.user, "POST", "/api/v1/links", {
      url: "https://m.example/",
      domain_id: String(alice.domain.id),
      space_id: String(alice.space.id),
      "pixel_ids[]": [String(alice.pixel.id)],
    });
    expect(stolen.status).toBe(422);
    expect(Object.keys(stolen.body.message).sort()).toEqual(["domain_id", "pixel_ids", "space_id"]);
    const ownLink = (await api.call(mallory.user, "POST", "/api/v1/links", { url: "https://m.example/", domain_id: String(mallory.domain.id) })).body.data;
    const moved = await api.call(mallory.user, "PATCH", `/api/v1/links/${ownLink.id}`, { space_id: String(alice.space.id), "pixel_ids[]": [String(alice.pixel.id)] });
    expect(moved.status).toBe(422);

    // Alice still has everything, untouched.
    expect((await api.call(alice.user, "GET", `/api/v1/links/${link.id}`)).body.data).toMatchObject({ title: null, url: "https://alice.example/" });
    expect((await api.call(alice.user, "GET", `/api/v1/domains/${alice.domain.id}`)).body.data.index_page).toBeNull();
    expect((await api.call(alice.user, "GET", `/api/v1/spaces/${alice.space.id}`)).status).toBe(200);
    expect((await api.call(alice.user, "GET", `/api/v1/pixels/${alice.pixel.id}`)).status).toBe(200);

    // Account and admin routes: a user sees only themself and cannot manage users.
    expect((await api.call(mallory.user, "GET", "/api/v1/account")).body.data.id).toBe(mallory.user.id);
    expect((await api.call(mallory.user, "GET", "/api/v1/users")).status).toBe(403);
    expect((await api.call(mallory.user, "DELETE", `/api/v1/users/${alice.user.id}`)).status).toBe(403);
  });
});
