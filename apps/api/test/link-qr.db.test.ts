import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/** CONTRACT §17: `GET /api/v1/links/{id}/qr` and tRPC `links.qr`. The decode table is in launcher/test/qr-decode.browser.test.ts. */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api?.close();
});

async function owner() {
  const o = await createOwner(api);
  const link = (await api.call(o.user, "POST", "/api/v1/links", { url: "https://example.org/qr", domain_id: String(o.domain.id) })).body.data;
  return { ...o, link };
}

describe("GET /api/v1/links/{id}/qr", () => {
  it("the owner gets an SVG (512 px by default) or a PNG; private caching with an ETag", async () => {
    const { user, link } = await owner();
    const svg = await api.app.inject({ method: "GET", url: `/api/v1/links/${link.id}/qr`, headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers["content-type"]).toBe("image/svg+xml; charset=utf-8");
    expect(svg.headers["cache-control"]).toBe("private, no-cache");
    expect(svg.headers["x-ratelimit-limit"]).toBeDefined();
    expect(svg.body).toMatch(/^<svg [^>]*width="512" height="512"/);

    const png = await api.app.inject({ method: "GET", url: `/api/v1/links/${link.id}/qr?format=png&size=128&margin=4&ecc=Q`, headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(png.statusCode).toBe(200);
    expect(png.headers["content-type"]).toBe("image/png");
    expect([png.rawPayload.readUInt32BE(16), png.rawPayload.readUInt32BE(20)]).toEqual([128, 128]);

    const etag = String(png.headers.etag);
    const again = await api.app.inject({
      method: "GET",
      url: `/api/v1/links/${link.id}/qr?format=png&size=128&margin=4&ecc=Q`,
      headers: { authorization: `Bearer ${user.apiKey}`, "if-none-match": etag },
    });
    expect(again.statusCode).toBe(304);
  });

  it("someone else's link, an unknown id or a bad id is a 404; no key is a 401", async () => {
    const { link } = await owner();
    const stranger = await api.user();
    for (const url of [`/api/v1/links/${link.id}/qr`, "/api/v1/links/999999999/qr", "/api/v1/links/abc/qr", "/api/v1/links/0/qr"]) {
      const res = await api.call(stranger, "GET", url);
      expect(res.status, url).toBe(404);
      expect(res.body).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    }
    expect((await api.call(undefined, "GET", `/api/v1/links/${link.id}/qr`)).status).toBe(401);
    expect((await api.call(stranger, "POST", `/api/v1/links/${link.id}/qr`)).status).toBe(405);
  });

  it("bad options are a 422 in the envelope, every failing one at once", async () => {
    const { user, link } = await owner();
    const res = await api.call(user, "GET", `/api/v1/links/${link.id}/qr?format=gif&size=10000&margin=x&ecc=Z`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message).sort()).toEqual(["ecc", "format", "margin", "size"]);
    const cases = ["size=63", "size=2049", "size=1.5", "size=%00", "margin=17", "margin=-1", "ecc=l%00", "format=SVG2", "size=64&size=65"];
    for (const query of cases) {
      const one = await api.call(user, "GET", `/api/v1/links/${link.id}/qr?${query}`);
      expect(one.status, query).toBe(422);
      expect(one.body.code, query).toBe("validation_failed");
    }
    // A code too big for the size asked: the smallest size that works.
    const long = (await api.call(user, "POST", "/api/v1/links", { url: "https://example.org/qr", domain_id: String(link.domain.id), alias: "a".repeat(255) })).body.data;
    const tooSmall = await api.call(user, "GET", `/api/v1/links/${long.id}/qr?size=64&ecc=H`);
    expect(tooSmall.status).toBe(422);
    expect(tooSmall.body.message.size[0]).toMatch(/^The size must be at least \d+ pixels/);
  });
});

describe("tRPC links.qr", () => {
  it("answers the SVG as text and the PNG in base64, with the short_url it encodes", async () => {
    const { user, link } = await owner();
    const client = trpcClient(api.app, user.apiKey);
    const svg = await client.links.qr.query({ id: link.id });
    expect(svg).toMatchObject({ short_url: link.short_url, format: "svg", content_type: "image/svg+xml" });
    expect(svg.data).toMatch(/^<svg /);
    const png = await client.links.qr.query({ id: link.id, format: "png", size: 256, ecc: "H", margin: 0 });
    expect(png.format).toBe("png");
    const bytes = Buffer.from(png.data, "base64");
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    expect(bytes.readUInt32BE(16)).toBe(256);
    // The same bytes as REST's.
    const rest = await api.app.inject({ method: "GET", url: `/api/v1/links/${link.id}/qr?format=png&size=256&ecc=H&margin=0`, headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(rest.rawPayload.equals(bytes)).toBe(true);
  });

  it("bad options are BAD_REQUEST with REST's field errors; a foreign link is NOT_FOUND", async () => {
    const { user, link } = await owner();
    const client = trpcClient(api.app, user.apiKey);
    const error = await client.links.qr
      .query({ id: link.id, size: 10, ecc: "X" as never })
      .catch((e: unknown) => e as { data?: { code: string; slug: string; fieldErrors: Record<string, string[]> } });
    expect(error).toMatchObject({ data: { code: "BAD_REQUEST", slug: "validation_failed" } });
    expect(Object.keys((error as { data: { fieldErrors: object } }).data.fieldErrors).sort()).toEqual(["ecc", "size"]);
    const stranger = trpcClient(api.app, (await api.user()).apiKey);
    await expect(stranger.links.qr.query({ id: link.id })).rejects.toMatchObject({ data: { code: "NOT_FOUND" } });
  });
});
