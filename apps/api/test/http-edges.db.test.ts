import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * The HTTP edges of CONTRACT §1, §2 and §15: long or malformed paths answered without echoing them,
 * 415 for body types the API does not take, and list links that never reflect an arbitrary Host.
 */
let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
beforeAll(async () => {
  api = await createTestApi({ publicUrl: "https://short.example" });
  owner = await createOwner(api);
});
afterAll(async () => {
  await api?.close();
});

const LONG = "9".repeat(250);
const auth = () => ({ authorization: `Bearer ${owner.user.apiKey}` });

describe("a path parameter over 200 characters, or a malformed path: no echo", () => {
  it.each([
    ["a link id", { method: "GET", url: `/api/v1/links/${LONG}` }, 414, "uri_too_long"],
    ["a link id, text", { method: "PATCH", url: `/api/v1/links/${"x".repeat(300)}<script>` }, 414, "uri_too_long"],
    ["an import id", { method: "GET", url: `/api/v1/imports/${LONG}/errors` }, 414, "uri_too_long"],
    ["a tRPC procedure", { method: "GET", url: `/trpc/${"links.get".repeat(30)}` }, 414, "uri_too_long"],
    ["the stats page, as JSON", { method: "GET", url: `/stats/${LONG}`, headers: { accept: "application/json" } }, 414, "uri_too_long"],
    ["a bad percent-encoding", { method: "GET", url: `/api/v1/links/%E0%A4%A${"q".repeat(20)}` }, 400, "bad_request"],
  ] as Array<[string, InjectOptions, number, string]>)("%s → %s in the envelope", async (_name, request, status, code) => {
    const res = await api.app.inject({ ...request, headers: { ...auth(), ...request.headers } });
    expect(res.statusCode).toBe(status);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.json()).toEqual({ message: expect.any(String), code, status });
    expect(res.body).not.toContain("999999999");
    expect(res.body).not.toContain("xxxxxxxxx");
    expect(res.body).not.toContain("qqqqqqqqq");
    expect(res.body).not.toContain("links.getlinks.get");
  });

  it("the stats page in a browser: a small page with the CSP, no echo", async () => {
    const res = await api.app.inject({ method: "GET", url: `/stats/${LONG}`, headers: { accept: "text/html" } });
    expect(res.statusCode).toBe(414);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(String(res.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
    expect(res.body).toContain("The request path is too long.");
    expect(res.body).not.toContain("999999999");
  });

  it("a parameter of 200 characters is still an ordinary 404", async () => {
    const res = await api.app.inject({ method: "GET", url: `/api/v1/links/${"9".repeat(200)}`, headers: auth() });
    expect(res.statusCode).toBe(404);
  });
});

describe("body types (CONTRACT §1: another content type is a 415)", () => {
  it.each([
    ["text/plain on POST", "POST", "/api/v1/spaces", "text/plain", "name=x"],
    ["text/plain; charset=utf-8 on PATCH", "PATCH", "/api/v1/links/1", "text/plain; charset=utf-8", "title=x"],
    ["text/plain on DELETE", "DELETE", "/api/v1/spaces/1", "text/plain", "x"],
    ["application/xml", "POST", "/api/v1/links", "application/xml", "<link/>"],
    ["text/html", "POST", "/api/v1/domains", "text/html", "<b>x</b>"],
    ["text/csv outside /imports", "POST", "/api/v1/links", "text/csv", "url\nhttps://a.example/"],
    ["multipart outside /imports", "POST", "/api/v1/spaces", "multipart/form-data; boundary=x", "--x--"],
  ])("%s → 415", async (_name, method, url, type, payload) => {
    const res = await api.app.inject({ method: method as InjectOptions["method"], url, headers: { ...auth(), "content-type": type }, payload });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: "unsupported_media_type", status: 415 });
  });

  // Multipart on tRPC: found by the fuzz test (a 500 through app.inject, tRPC's FormData input over a socket).
  it.each([
    ["text/plain", "text/plain", JSON.stringify({ name: "x" })],
    ["multipart", "multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nabc\r\n--x--\r\n'],
    ["multipart without a boundary", "multipart/form-data", "{}"],
    ["multipart in capitals", "Multipart/Mixed; boundary=x", "--x--"],
  ])("%s on a tRPC call → 415 too, and nothing stored", async (_name, type, payload) => {
    const before = (await api.call(owner.user, "GET", "/api/v1/spaces")).body.meta.total;
    const res = await api.app.inject({ method: "POST", url: "/trpc/spaces.create", headers: { ...auth(), "content-type": type }, payload });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ code: "unsupported_media_type", status: 415 });
    expect((await api.call(owner.user, "GET", "/api/v1/spaces")).body.meta.total).toBe(before);
  });

  // Found by the fuzz test: tRPC's adapter threw outside its error handling on a Host it cannot build a URL on.
  it.each([
    ["a query", "GET", "/trpc/spaces.list", undefined],
    ["a mutation", "POST", "/trpc/spaces.create", JSON.stringify({ name: "host-check" })],
    ["a batch", "POST", "/trpc/spaces.create,spaces.create?batch=1", JSON.stringify({ 0: { name: "host-check" }, 1: { name: "host-check2" } })],
  ])("a Host no URL can be built on, on %s → 400 in the envelope, nothing stored", async (_name, method, url, payload) => {
    for (const host of ["d<h{C", "a b", "[::1", "x:99999", "%zz", '"@K{NW2FX\\', "user@example.com", "u:p@example.com"]) {
      const before = (await api.call(owner.user, "GET", "/api/v1/spaces")).body.meta.total;
      const res = await api.app.inject({ method: method as InjectOptions["method"], url, headers: { ...auth(), host, "content-type": "application/json" }, ...(payload ? { payload } : {}) });
      expect(res.statusCode, host).toBe(400);
      expect(res.json(), host).toEqual({ message: "The Host header is not valid.", code: "bad_request", status: 400 });
      expect((await api.call(owner.user, "GET", "/api/v1/spaces")).body.meta.total, host).toBe(before);
    }
  });

  it("a body on GET is ignored, whatever its type", async () => {
    for (const type of ["text/plain", "application/xml", "application/json"]) {
      const res = await api.app.inject({ method: "GET", url: "/api/v1/spaces", headers: { ...auth(), "content-type": type }, payload: "{not json" });
      expect(res.statusCode, type).toBe(200);
    }
  });

  it("form and JSON bodies still work", async () => {
    expect((await api.call(owner.user, "POST", "/api/v1/spaces", { name: "formed" })).status).toBe(201);
    const json = await api.app.inject({
      method: "POST",
      url: "/api/v1/spaces",
      headers: { ...auth(), "content-type": "application/json; charset=utf-8" },
      payload: JSON.stringify({ name: "jsoned" }),
    });
    expect(json.statusCode).toBe(201);
  });
});

describe("list links never reflect an arbitrary Host", () => {
  const list = (headers: Record<string, string>) => api.app.inject({ method: "GET", url: "/api/v1/spaces?sort=asc&per_page=10", headers: { ...auth(), ...headers } });

  it.each([
    ["an unknown host", { host: "evil.example" }, "https://short.example"],
    ["an unknown host with a port", { host: "evil.example:8443" }, "https://short.example"],
    ["a Host with a path in it", { host: "evil.example/x?" }, "https://short.example"],
    ["X-Forwarded-Host from a client that is not a trusted proxy", { host: "short.example", "x-forwarded-host": "evil.example" }, "http://short.example"],
    ["the service's own host", { host: "short.example" }, "http://short.example"],
    ["the service's own host, upper case", { host: "SHORT.example" }, "http://SHORT.example"],
  ])("%s", async (_name, headers, base) => {
    const res = await list(headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.meta.path).toBe(`${base}/api/v1/spaces`);
    for (const link of [body.links.first, body.links.last]) expect(link.startsWith(`${base}/api/v1/spaces?`)).toBe(true);
    expect(res.body).not.toContain("evil.example");
  });

  it("a domain of the service is kept as the request named it; a port no domain names is not", async () => {
    // An admin's domain is verified at once (CONTRACT §14): it serves, so its host is the service's.
    const admin = await api.user("admin");
    const name = `${Math.random().toString(36).slice(2, 10)}.example`;
    expect((await api.call(admin, "POST", "/api/v1/domains", { name })).status).toBe(201);
    expect((await list({ host: name })).json().meta.path).toBe(`http://${name}/api/v1/spaces`);
    expect((await list({ host: `${name}:9999` })).json().meta.path).toBe("https://short.example/api/v1/spaces");
  });

  it("a domain still unverified is anyone's claim: its host is not reflected", async () => {
    expect(owner.domain.verified).toBe(false);
    expect((await list({ host: owner.domain.name as string })).json().meta.path).toBe("https://short.example/api/v1/spaces");
  });
});
