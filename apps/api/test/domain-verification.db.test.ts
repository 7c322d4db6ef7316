import { TRPCClientError } from "@trpc/client";
import { startTestDns, type TestDns, type TestUser } from "@shortener/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApi, trpcClient, type TestApi } from "./helpers.ts";

/*
 * CONTRACT §14 through REST and tRPC: a real API, a real database, and a real DNS server on loopback
 * (DNS_SERVERS=127.0.0.1:<port>) that the verification lookups go to.
 */

let api: TestApi;
let dns: TestDns;
let admin: TestUser;
let adminHost: string;
beforeAll(async () => {
  dns = await startTestDns();
  api = await createTestApi({ dnsServers: [dns.server], dnsTimeoutMs: 1_000, reservedHosts: ["short.example", "*.internal.example"] });
  admin = await api.user("admin");
  adminHost = `admin-${uniq()}.example`;
  expect((await api.call(admin, "POST", "/api/v1/domains", { name: `${adminHost}:4100` })).status).toBe(201);
});
afterAll(async () => {
  await api?.close();
  await dns?.close();
});
const uniq = () => Math.random().toString(36).slice(2, 10);
const NOT_FOUND_RECORD = { message: { name: ["The verification record was not found."] }, code: "validation_failed", status: 422 };

describe("the domain object (CONTRACT §14)", () => {
  it("an admin's domain is verified with no record; a user's is unverified with the TXT record to publish", async () => {
    const own = await api.call(admin, "POST", "/api/v1/domains", { name: `a-${uniq()}.example` });
    expect(own.body.data).toMatchObject({ verified: true, verification: null });
    const user = await api.user();
    const name = `Claim-${uniq()}.Example:8080`;
    const claimed = await api.call(user, "POST", "/api/v1/domains", { name });
    expect(claimed.status).toBe(201);
    const host = name.toLowerCase().replace(/:8080$/, "");
    expect(claimed.body.data).toMatchObject({
      name: name.toLowerCase(),
      verified: false,
      verification: { type: "TXT", name: `_shortener-challenge.${host}`, value: expect.stringMatching(/^shortener-verify=[0-9A-Za-z]{32}$/) },
    });
    // The same object everywhere: get, list, and a link's domain (there without the app-link files, CONTRACT §25).
    expect((await api.call(user, "GET", `/api/v1/domains/${claimed.body.data.id}`)).body.data).toEqual(claimed.body.data);
    expect((await api.call(user, "GET", "/api/v1/domains")).body.data).toEqual([claimed.body.data]);
    const link = await api.call(user, "POST", "/api/v1/links", { url: "https://prepared.example/", domain_id: String(claimed.body.data.id) });
    expect(link.status).toBe(201);
    const { apple_app_site_association: _aasa, asset_links: _assetLinks, ...plain } = claimed.body.data;
    expect(link.body.data.domain).toEqual(plain);
  });

  it("with DOMAIN_VERIFICATION=off every domain is verified at once", async () => {
    const open = await createTestApi({ domainVerification: "off", dnsServers: [dns.server] });
    try {
      const res = await open.call(await open.user(), "POST", "/api/v1/domains", { name: `open-${uniq()}.example` });
      expect(res.body.data).toMatchObject({ verified: true, verification: null });
    } finally {
      await open.close();
    }
  });
});

describe("who may claim what: a non-admin gets a 422 on name for", () => {
  it.each([
    ["an IPv4 address", "127.0.0.1", "The name must not be an IP address."],
    ["the service's own address under another name (#12)", "127.0.0.1:4100", "The name must not be an IP address."],
    ["a private IPv4 address with a port", "10.0.0.8:8080", "The name must not be an IP address."],
    ["a public IPv4 address", "93.184.216.34", "The name must not be an IP address."],
    ["an IPv6 literal", "[::1]", null],
    ["an IPv6 literal with a port", "[::1]:4100", null],
    ["a bare IPv6 address", "::1", null],
    ["an IPv4-mapped IPv6 address", "[::ffff:127.0.0.1]", null],
    ["IPv4 in hex", "0x7f.0.0.1", null],
    ["IPv4 as one number", "2130706433", null],
    ["IPv4 shortened", "127.1", null],
    ["localhost", "localhost", "The name must not be localhost."],
    ["localhost with a port", "localhost:3000", "The name must not be localhost."],
    ["LOCALHOST in capitals, as a URL", "http://LOCALHOST:3000/", "The name must not be localhost."],
    ["a subdomain of localhost", "app.localhost", "The name must not be localhost."],
    ["a deeper subdomain of localhost with a port", "a.b.localhost:8080", "The name must not be localhost."],
    ["a name in RESERVED_HOSTS", "short.example", "The name is reserved."],
    ["a name in RESERVED_HOSTS, in capitals, with a port", "SHORT.example:8443", "The name is reserved."],
    ["a subdomain under a *. entry of RESERVED_HOSTS", "api.internal.example", "The name is reserved."],
    ["a deeper subdomain under a *. entry", "a.b.internal.example:81", "The name is reserved."],
    ["an admin domain's host without its port", "ADMIN", "The name is reserved."],
    ["an admin domain's host under another port", "ADMIN:8080", "The name is reserved."],
    ["an admin domain's very name", "ADMIN:4100", "The name has already been taken."],
  ])("%s (%s)", async (_case, raw, message) => {
    const user = await api.user();
    const name = raw.replace("ADMIN", adminHost);
    const res = await api.call(user, "POST", "/api/v1/domains", { name });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message)).toEqual(["name"]);
    if (message) expect(res.body.message.name).toEqual([message]);
    expect((await api.call(user, "GET", "/api/v1/domains")).body.data).toEqual([]);
  });

  it.each([
    ["a name that merely contains localhost", "localhost.example"],
    ["a name that ends in localhost without a dot", "mylocalhost.example"],
    ["the apex of a *. entry", "internal.example"],
    ["a name that ends like a reserved one", "notshort.example"],
    ["a reserved name under another suffix", "short.example.org"],
    ["a subdomain of an admin domain's host", `www.ADMIN`],
  ])("but may claim %s (%s), unverified", async (_case, raw) => {
    const user = await api.user();
    const name = raw.replace("ADMIN", adminHost);
    const res = await api.call(user, "POST", "/api/v1/domains", { name });
    expect(res.status).toBe(201);
    expect(res.body.data.verified).toBe(false);
  });

  it("an admin may claim any of them, verified at once", async () => {
    for (const name of ["127.0.0.1:4101", "localhost:4102", `sub-${uniq()}.internal.example`, "short.example:9443"]) {
      const res = await api.call(admin, "POST", "/api/v1/domains", { name });
      expect(res.status, name).toBe(201);
      expect(res.body.data.verified).toBe(true);
    }
  });

  it("tRPC gives the same refusal as a BAD_REQUEST with the field", async () => {
    const user = await api.user();
    const error = await trpcClient(api.app, user.apiKey)
      .domains.create.mutate({ name: "127.0.0.1:4100" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({ code: "BAD_REQUEST", slug: "validation_failed", fieldErrors: { name: ["The name must not be an IP address."] } });
  });
});

describe("POST /api/v1/domains/{id}/verify", () => {
  async function claimed(user: TestUser) {
    const res = await api.call(user, "POST", "/api/v1/domains", { name: `v-${uniq()}.example` });
    expect(res.status).toBe(201);
    return res.body.data as { id: number; name: string; verification: { name: string; value: string } };
  }

  it("422 until the record is published, then 200 with the domain verified; again: 200, no lookup", async () => {
    const user = await api.user();
    const domain = await claimed(user);
    const missing = await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`);
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual(NOT_FOUND_RECORD);
    dns.setTxt(domain.verification.name, ["shortener-verify=wrong"]);
    expect((await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`)).body).toEqual(NOT_FOUND_RECORD);
    dns.setTxt(domain.verification.name, ["google-site-verification=x", domain.verification.value]);
    const ok = await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe(200);
    expect(ok.body.data).toMatchObject({ id: domain.id, name: domain.name, verified: true, verification: null });
    expect((await api.call(user, "GET", `/api/v1/domains/${domain.id}`)).body.data.verified).toBe(true);
    const asked = dns.asked.length;
    expect((await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`)).status).toBe(200);
    expect(dns.asked.length).toBe(asked);
  });

  it("a DNS failure or timeout is the same 422, never a 500, and within the lookup's time limit", async () => {
    const user = await api.user();
    const domain = await claimed(user);
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    for (const mode of ["servfail", "silent"] as const) {
      dns.setMode(mode);
      const started = Date.now();
      try {
        const res = await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`);
        expect(res.body, mode).toEqual(NOT_FOUND_RECORD);
      } finally {
        dns.setMode("answer");
      }
      expect(Date.now() - started).toBeLessThan(2_500);
    }
  });

  it("another user's domain, an unknown id or a malformed id: 404, with no lookup", async () => {
    const [owner, stranger] = [await api.user(), await api.user()];
    const domain = await claimed(owner);
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    const asked = dns.asked.length;
    for (const path of [`/api/v1/domains/${domain.id}/verify`, "/api/v1/domains/999999999/verify", "/api/v1/domains/abc/verify"]) {
      const res = await api.call(stranger, "POST", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    }
    expect(dns.asked.length).toBe(asked);
    expect((await api.call(owner, "GET", `/api/v1/domains/${domain.id}`)).body.data.verified).toBe(false);
    expect((await api.call(owner, "GET", `/api/v1/domains/${domain.id}/verify`)).status).toBe(405);
    expect((await api.call(undefined, "POST", `/api/v1/domains/${domain.id}/verify`)).status).toBe(401);
  });

  it("tRPC domains.verify: the same answers", async () => {
    const [owner, stranger] = [await api.user(), await api.user()];
    const client = trpcClient(api.app, owner.apiKey);
    const domain = await client.domains.create.mutate({ name: `t-${uniq()}.example` });
    expect(domain.verified).toBe(false);
    if (!domain.verification) throw new Error("a record expected");
    const missing = await client.domains.verify.mutate({ id: domain.id }).catch((e: unknown) => e);
    expect((missing as TRPCClientError<never>).data).toMatchObject({ code: "BAD_REQUEST", fieldErrors: { name: ["The verification record was not found."] } });
    const foreign = await trpcClient(api.app, stranger.apiKey)
      .domains.verify.mutate({ id: domain.id })
      .catch((e: unknown) => e);
    expect((foreign as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND" });
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    const verified = await client.domains.verify.mutate({ id: domain.id });
    expect(verified).toEqual((await api.call(owner, "GET", `/api/v1/domains/${domain.id}`)).body.data);
    expect(verified).toMatchObject({ verified: true, verification: null });
  });
});

describe("an unverified domain blocks no one else's links (the loop rule, CONTRACT §4)", () => {
  it("example.com claimed by one user: another user's link to it is accepted until the claim is proven", async () => {
    const [squatter, other] = [await api.user(), await api.user()];
    const host = `example-${uniq()}.com`;
    const claim = await api.call(squatter, "POST", "/api/v1/domains", { name: host });
    expect(claim.body.data.verified).toBe(false);
    const home = (await api.call(other, "POST", "/api/v1/domains", { name: `home-${uniq()}.example` })).body.data;
    const link = await api.call(other, "POST", "/api/v1/links", { url: `https://${host}/page`, domain_id: String(home.id) });
    expect(link.status).toBe(201);
    const trpcLink = await trpcClient(api.app, other.apiKey).links.create.mutate({ url: `https://${host}/trpc`, domain_id: home.id });
    expect(trpcLink.url).toBe(`https://${host}/trpc`);

    dns.setTxt(claim.body.data.verification.name, [claim.body.data.verification.value]);
    expect((await api.call(squatter, "POST", `/api/v1/domains/${claim.body.data.id}/verify`)).status).toBe(200);
    const refused = await api.call(other, "POST", "/api/v1/links", { url: `https://${host}/page`, domain_id: String(home.id) });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toEqual({ url: ["The URL must not point to a domain served by this service."] });
  });
});
