import type { FastifyInstance } from "fastify";
import { CHANGES_CHANNEL } from "@shortener/core";
import { insertTestDomain, startTestDns, type TestDns, type TestUser } from "@shortener/core/testing";
import { sql } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, DEFAULT_API_CONFIG, type ApiConfig } from "../src/index.ts";
import { createTestApi, testFailedTries, UNLIMITED, type TestApi } from "./helpers.ts";

/*
 * `GET /tls/ask?domain=H` (CONTRACT §22, docs/tls.md) on a real API and database: who may ask, what a bad
 * name gets, which names are served (verified through the loopback DNS server, ADR 0018), how a change
 * reaches the cache (in this process and by NOTIFY), and the limit on lookups. The clock is the test's:
 * the limit's bucket refills only when `tick()` moves it a second on.
 */

const LOOKUPS_PER_SECOND = 5;
let api: TestApi;
let dns: TestDns;
let admin: TestUser;
let clockMs = Date.parse("2026-11-26T12:00:00Z");
const tick = () => (clockMs += 1_000);
const uniq = () => Math.random().toString(36).slice(2, 10);

beforeAll(async () => {
  dns = await startTestDns();
  api = await createTestApi({ dnsServers: [dns.server], dnsTimeoutMs: 1_000, publicUrl: "https://short.example", tlsAskLookupsPerSecond: LOOKUPS_PER_SECOND }, { now: () => new Date(clockMs) });
  admin = await api.user("admin");
});
afterAll(async () => {
  await api?.close();
  await dns?.close();
});

type Answer = { status: number; body: any; headers: Record<string, unknown> };

async function ask(app: FastifyInstance, query: string, options: { from?: string; headers?: Record<string, string>; method?: "GET" | "POST" | "HEAD" } = {}): Promise<Answer> {
  const res = await app.inject({ method: options.method ?? "GET", url: `/tls/ask${query}`, remoteAddress: options.from ?? "127.0.0.1", headers: options.headers ?? {} });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
}
const askFor = (name: string, options?: Parameters<typeof ask>[2]) => ask(api.app, `?domain=${encodeURIComponent(name)}`, options);

async function createDomain(user: TestUser, name: string): Promise<{ id: number; name: string; verified: boolean; verification: { name: string; value: string } | null }> {
  const res = await api.call(user, "POST", "/api/v1/domains", { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A user's domain, proven through the test DNS server as its owner would. */
async function verifiedUserDomain(user: TestUser, name: string) {
  const domain = await createDomain(user, name);
  if (!domain.verification) throw new Error("a user's domain starts unverified");
  dns.setTxt(domain.verification.name, [domain.verification.value]);
  const res = await api.call(user, "POST", `/api/v1/domains/${domain.id}/verify`);
  expect(res.body.data).toMatchObject({ verified: true });
  return domain;
}

/**
 * A verified domain written straight to the table, announcing nothing: its answer, once cached, stays
 * until a change is announced (a domain created through the API announces itself, and on Postgres that
 * NOTIFY may arrive after the first answer and drop it again).
 */
async function silentVerifiedDomain(): Promise<{ id: number; name: string }> {
  const domain = await insertTestDomain(api.database.db, admin.workspaceId);
  await api.database.db.execute(sql`update domains set verified_at = now(), verification_token = null where id = ${domain.id}`);
  return domain;
}

const label = (n: number) => "a".repeat(n);

describe("bad questions are a 400, never a 5xx, and cost no lookup", () => {
  it.each([
    ["no query at all", "", "The domain parameter is required."],
    ["no domain parameter", "?name=example.com", "The domain parameter is required."],
    ["an empty domain", "?domain=", "The domain parameter is required."],
    ["a bracketed name (no such parameter)", "?domain[]=example.com", "The domain parameter is required."],
    ["a lone dot", "?domain=.", "The domain parameter is required."],
    ["several domain parameters", "?domain=a.example&domain=b.example", "Send one domain parameter."],
    ["254 characters", `?domain=${label(63)}.${label(63)}.${label(63)}.${label(62)}`, "The domain must be at most 253 characters long."],
    ["256 characters with a dot at the end", `?domain=${label(63)}.${label(63)}.${label(63)}.${label(63)}.`, "The domain must be at most 253 characters long."],
    ["10,000 characters", `?domain=${label(10_000)}`, "The domain must be at most 253 characters long."],
    ["a port", "?domain=example.com:443", "The domain must be a host name without a port."],
    ["an empty port", "?domain=example.com:", "The domain must be a host name without a port."],
    ["IPv4", "?domain=127.0.0.1", "The domain must be a host name, not an IP address."],
    ["IPv4 with a dot at the end", "?domain=192.0.2.1.", "The domain must be a host name, not an IP address."],
    ["IPv6", "?domain=%3A%3A1", "The domain must be a host name, not an IP address."],
    ["IPv6 in full", "?domain=2001%3Adb8%3A%3A1", "The domain must be a host name, not an IP address."],
    ["IPv6 in brackets", "?domain=%5B%3A%3A1%5D", "The domain must be a host name, not an IP address."],
    ["IPv6 in brackets with a port", "?domain=%5B%3A%3A1%5D%3A443", "The domain must be a host name, not an IP address."],
    ["IPv4 as WHATWG reads 1.2.3", "?domain=1.2.3", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a NUL", "?domain=exa%00mple.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a NUL at the end", "?domain=example.com%00", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["non-ASCII (an IDN not in its xn-- form)", "?domain=b%C3%BCcher.example", "The domain must be ASCII: an international name in its xn-- form."],
    ["an emoji", "?domain=%F0%9F%98%80.example", "The domain must be ASCII: an international name in its xn-- form."],
    ["a space inside", "?domain=exa%20mple.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a space before", "?domain=%20example.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a plus (a space in a query)", "?domain=exa+mple.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a URL", "?domain=https%3A%2F%2Fexample.com%2F", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a path", "?domain=example.com%2Fadmin", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["an underscore", "?domain=_acme.example.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["an empty label", "?domain=a..example", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a leading hyphen", "?domain=-a.example", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a label of 64", `?domain=${label(64)}.example`, "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a wildcard", "?domain=*.example.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
    ["a broken escape", "?domain=%ZZexample.com", "The domain must be a host name: labels of letters, digits and hyphens, separated by dots."],
  ])("%s → 400", async (_what, query, message) => {
    const res = await ask(api.app, query);
    expect(res).toMatchObject({ status: 400, body: { message, code: "bad_request", status: 400 } });
  });

  it("a name of exactly 253 characters (and one more for its trailing dot) is a question: unknown, 404", async () => {
    tick();
    const name = `${label(63)}.${label(63)}.${label(63)}.${label(61)}`;
    expect(name).toHaveLength(253);
    expect((await askFor(name)).status).toBe(404);
    expect((await askFor(`${name}.`)).status).toBe(404);
  });

  it("other methods are a 405 naming GET", async () => {
    const res = await ask(api.app, "?domain=example.com", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET");
  });
});

describe("which names get a certificate", () => {
  it("a verified domain: 200, in any case, with or without its trailing dot", async () => {
    tick();
    const domain = await createDomain(admin, `Admin-${uniq()}.Example`);
    for (const name of [domain.name, domain.name.toUpperCase(), `${domain.name}.`]) {
      expect(await askFor(name), name).toMatchObject({ status: 200, body: { domain: domain.name, status: 200 } });
    }
  });

  it("another user's domain, verified through DNS: 200 (it is served, whoever owns it); its unverified claim: 404", async () => {
    tick();
    const owner = await api.user();
    const served = await verifiedUserDomain(owner, `served-${uniq()}.example`);
    const claim = await createDomain(await api.user(), `claim-${uniq()}.example`);
    expect(claim.verified).toBe(false);
    expect((await askFor(served.name)).status).toBe(200);
    expect(await askFor(claim.name)).toMatchObject({ status: 404, body: { code: "not_found", status: 404 } });
  });

  it("an unverified domain that gets verified: 404, then 200 at once (the cached 404 is dropped)", async () => {
    tick();
    const owner = await api.user();
    const domain = await createDomain(owner, `later-${uniq()}.example`);
    expect((await askFor(domain.name)).status).toBe(404);
    expect((await askFor(domain.name)).status).toBe(404);
    if (!domain.verification) throw new Error("unverified expected");
    dns.setTxt(domain.verification.name, [domain.verification.value]);
    expect((await api.call(owner, "POST", `/api/v1/domains/${domain.id}/verify`)).status).toBe(200);
    expect((await askFor(domain.name)).status).toBe(200);
  });

  it("a verified domain with a port is not served on the proxy's port 443: 404 for its bare host", async () => {
    tick();
    const host = `ported-${uniq()}.example`;
    await createDomain(admin, `${host}:8443`);
    expect((await askFor(host)).status).toBe(404);
  });

  it("an international name: its xn-- form, as SNI carries it, is the stored name", async () => {
    tick();
    const domain = await createDomain(admin, `bücher-${uniq()}.example`);
    expect(domain.name).toMatch(/^xn--bcher-/);
    expect((await askFor(domain.name)).status).toBe(200);
  });

  it("the service's own host (PUBLIC_URL's): 200 with no domain of that name", async () => {
    for (const name of ["short.example", "SHORT.example", "short.example."]) expect((await askFor(name)).status, name).toBe(200);
  });

  it("an unknown name: 404", async () => {
    tick();
    expect(await askFor(`nobody-${uniq()}.example`)).toMatchObject({ status: 404, body: { message: "This service serves no verified domain of this name.", code: "not_found" } });
  });
});

describe("a deleted domain is refused soon after", () => {
  it("deleted through the API: 404 at the next question", async () => {
    tick();
    const domain = await createDomain(admin, `gone-${uniq()}.example`);
    expect((await askFor(domain.name)).status).toBe(200);
    expect((await api.call(admin, "DELETE", `/api/v1/domains/${domain.id}`)).status).toBe(200);
    expect((await askFor(domain.name)).status).toBe(404);
  });

  it("deleted by another process (only its NOTIFY arrives here): still cached until then, 404 within a second after", async () => {
    tick();
    const domain = await silentVerifiedDomain();
    expect((await askFor(domain.name)).status).toBe(200);
    await api.database.db.execute(sql`delete from domains where id = ${domain.id}`);
    // The answer is the cached one: no lookup saw the row go.
    expect((await askFor(domain.name)).status).toBe(200);
    await api.database.notify(CHANGES_CHANNEL, JSON.stringify({ kind: "domain", name: domain.name }));
    const started = Date.now();
    let status = (await askFor(domain.name)).status;
    while (status === 200 && Date.now() - started < 1_000) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await askFor(domain.name)).status;
    }
    expect(status).toBe(404);
  });
});

describe("cheap: answers from memory, and at most N lookups a second for names not in memory", () => {
  it(`past ${LOOKUPS_PER_SECOND} new names in one second: 429 with Retry-After; names in memory are still answered; the next second answers`, async () => {
    tick();
    const known = await silentVerifiedDomain();
    // One lookup: the verified name is now in memory.
    expect((await askFor(known.name)).status).toBe(200);
    tick();
    const names = Array.from({ length: LOOKUPS_PER_SECOND + 3 }, () => `flood-${uniq()}.example`);
    const answers = await Promise.all(names.map((name) => askFor(name)));
    const looked = names.filter((_, i) => answers[i]?.status === 404);
    const refused = names.filter((_, i) => answers[i]?.status === 429);
    expect([looked.length, refused.length]).toEqual([LOOKUPS_PER_SECOND, 3]);
    expect(answers.find((a) => a.status === 429)).toMatchObject({ body: { code: "rate_limited", status: 429 }, headers: { "retry-after": "1" } });
    // In memory, whatever the limit: the served name, the unknown names looked up, the service's own host.
    expect((await askFor(known.name)).status).toBe(200);
    for (const name of looked) expect((await askFor(name)).status).toBe(404);
    expect((await askFor("short.example")).status).toBe(200);
    expect((await askFor(refused[0] ?? "")).status).toBe(429);
    tick();
    expect((await askFor(refused[0] ?? "")).status).toBe(404);
  });

  it("many questions for one new name at once share one lookup", async () => {
    tick();
    const name = `same-${uniq()}.example`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => askFor(name)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([404]));
    // One token spent: the rest of the second's lookups are still there.
    const others = await Promise.all(Array.from({ length: LOOKUPS_PER_SECOND - 1 }, () => askFor(`other-${uniq()}.example`)));
    expect(others.map((a) => a.status)).toEqual(Array(LOOKUPS_PER_SECOND - 1).fill(404));
    expect((await askFor(`one-more-${uniq()}.example`)).status).toBe(429);
  });
});

describe("who may ask: loopback, and TRUST_PROXY's addresses", () => {
  /** A second API on the same database, with TRUST_PROXY as given. */
  async function withTrust(trustProxy: ApiConfig["trustProxy"], run: (app: FastifyInstance) => Promise<void>) {
    const failedTries = testFailedTries(api.database);
    const app = await createApi({ database: api.database, now: () => new Date(), config: { ...DEFAULT_API_CONFIG, ...UNLIMITED, trustProxy }, failedTries });
    try {
      await app.ready();
      await run(app);
    } finally {
      await app.close();
      await failedTries.close();
    }
  }

  it("without TRUST_PROXY: 403 to any other address, before the name is even read; loopback in every form is answered", async () => {
    tick();
    const domain = await createDomain(admin, `trust-${uniq()}.example`);
    for (const from of ["203.0.113.9", "192.0.2.2", "10.0.0.1", "2001:db8::1"]) {
      expect(await askFor(domain.name, { from }), from).toMatchObject({ status: 403, body: { code: "forbidden", status: 403 } });
      expect((await ask(api.app, "?domain=%00", { from })).status, from).toBe(403);
    }
    for (const from of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect((await askFor(domain.name, { from })).status, from).toBe(200);
    // X-Forwarded-For is not read from an untrusted peer: loopback sending it is still loopback.
    expect((await askFor(domain.name, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(200);
  });

  it("with TRUST_PROXY: its addresses are answered; a client forwarded by a trusted proxy is judged by its own address", async () => {
    tick();
    const domain = await createDomain(admin, `proxied-${uniq()}.example`);
    const query = `?domain=${domain.name}`;
    await withTrust(["loopback", "203.0.113.0/24"], async (app) => {
      expect((await ask(app, query, { from: "203.0.113.9" })).status).toBe(200);
      expect((await ask(app, query, { from: "198.51.100.7" })).status).toBe(403);
      expect((await ask(app, query)).status).toBe(200);
      // Through the proxy on loopback: a visitor on the internet asking via a custom domain is refused…
      expect((await ask(app, query, { headers: { "x-forwarded-for": "198.51.100.7" } })).status).toBe(403);
      // …and a proxy in the trusted range forwarding its own question is answered.
      expect((await ask(app, query, { headers: { "x-forwarded-for": "203.0.113.20" } })).status).toBe(200);
    });
    await withTrust(true, async (app) => {
      expect((await ask(app, query, { from: "198.51.100.7" })).status).toBe(200);
    });
  });
});
