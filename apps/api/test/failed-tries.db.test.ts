import type { InjectOptions } from "fastify";
import { FAILED_TRY_LIMIT } from "@shortener/web-guard";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

/**
 * CONTRACT §15 on the API: unknown API keys, stats-page owner keys and privacy-2 stats passwords are
 * counted before they are checked, with the real limit (10 in 15 minutes), so a burst gets at most 10
 * answers that checked anything; OPTIONS preflights are not failed logins.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({}, { failedTryLimit: FAILED_TRY_LIMIT });
});
afterAll(async () => {
  await api?.close();
});

let n = 0;
/** A client address of its own for each test. */
const nextIp = () => `198.18.${Math.floor(++n / 250)}.${(n % 250) + 1}`;

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

async function burst(requests: InjectOptions[]): Promise<Record<number, number>> {
  const responses = await Promise.all(requests.map((r) => api.app.inject(r)));
  return tally(responses.map((r) => r.statusCode));
}

describe("200 concurrent failed tries from one client: at most 10 are checked", () => {
  it("unknown API keys on REST and tRPC: 10 × 401, 190 × 429; then a valid key from there gets its answer (CONTRACT §15 ✦)", async () => {
    const ip = nextIp();
    const { user } = await createOwner(api);
    const requests: InjectOptions[] = Array.from({ length: 200 }, (_, i) => ({
      method: "GET",
      url: i % 2 ? "/api/v1/links" : "/trpc/links.list",
      remoteAddress: ip,
      headers: { authorization: `Bearer shk_guess_${i}` },
    }));
    const counts = await burst(requests);
    console.log("API keys, one process: 200 wrong keys →", JSON.stringify(counts));
    expect(counts).toEqual({ 401: 10, 429: 190 });
    const valid = await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: { authorization: `Bearer ${user.apiKey}` } });
    expect(valid.statusCode).toBe(200);
    const unknown = await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: { authorization: "Bearer shk_guess" } });
    expect(unknown.statusCode).toBe(429);
    expect(Number(unknown.headers["retry-after"])).toBeGreaterThan(14 * 60);
  });

  it("privacy-2 stats passwords: 10 × 401, 190 × 429; then the right password is a 429 and sets no cookie", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id), privacy: "2", privacy_password: "right one" })).body.data;
    const ip = nextIp();
    const post = (password: string): InjectOptions => ({
      method: "POST",
      url: `/stats/${link.id}`,
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      payload: new URLSearchParams({ password }).toString(),
    });
    const counts = await burst(Array.from({ length: 200 }, () => post("wrong")));
    console.log("stats passwords, one process: 200 wrong passwords →", JSON.stringify(counts));
    expect(counts).toEqual({ 401: 10, 429: 190 });
    const right = await api.app.inject(post("right one"));
    expect(right.statusCode).toBe(429);
    expect(right.headers["set-cookie"]).toBeUndefined();
    expect(right.json()).toEqual({ message: "Too Many Attempts.", code: "rate_limited", status: 429 });
    // Another client may still try.
    expect((await api.app.inject({ ...post("right one"), remoteAddress: nextIp() })).statusCode).toBe(200);
  });

  it("owner keys on a privacy-1 stats page (they had no limit at all): 10 checked (404), 190 × 429; the owner's key still opens it", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id), privacy: "1" })).body.data;
    const ip = nextIp();
    const requests: InjectOptions[] = Array.from({ length: 200 }, (_, i) => ({
      method: "GET",
      url: `/stats/${link.id}`,
      remoteAddress: ip,
      headers: { authorization: `Bearer shk_guess_${i}`, accept: "application/json" },
    }));
    const counts = await burst(requests);
    console.log("stats owner keys, one process: 200 wrong keys →", JSON.stringify(counts));
    expect(counts).toEqual({ 404: 10, 429: 190 });
    const html = await api.app.inject({ method: "GET", url: `/stats/${link.id}`, remoteAddress: ip, headers: { authorization: "Bearer shk_guess" } });
    expect(html.statusCode).toBe(429);
    expect(html.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(html.body).toContain("Too many tries");
    const mine = await api.app.inject({ method: "GET", url: `/stats/${link.id}`, remoteAddress: ip, headers: { authorization: `Bearer ${owner.user.apiKey}` } });
    expect(mine.statusCode).toBe(200);
  });
});

describe("one budget for guessing keys", () => {
  it("wrong keys on the API and on stats pages count together, per client", async () => {
    const owner = await createOwner(api);
    const link = (await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/", domain_id: String(owner.domain.id), privacy: "1" })).body.data;
    const ip = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: { authorization: "Bearer shk_a" } })).statusCode);
      statuses.push((await api.app.inject({ method: "GET", url: `/stats/${link.id}`, remoteAddress: ip, headers: { authorization: "Bearer shk_b" } })).statusCode);
    }
    expect(statuses).toEqual([401, 404, 401, 404, 401, 404, 401, 404, 401, 404]);
    expect((await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip, headers: { authorization: "Bearer shk_a" } })).statusCode).toBe(429);
    expect((await api.app.inject({ method: "GET", url: `/stats/${link.id}`, remoteAddress: ip, headers: { authorization: "Bearer shk_b" } })).statusCode).toBe(429);
  });

  it("a request without a key is a failed try too, with the limit in its headers", async () => {
    const ip = nextIp();
    const first = await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip });
    expect(first.statusCode).toBe(401);
    expect([first.headers["x-ratelimit-limit"], first.headers["x-ratelimit-remaining"]]).toEqual(["10", "9"]);
  });
});

describe("OPTIONS preflights", () => {
  it.each([["/api/v1/links"], ["/api/v1/links/1"], ["/api/v1/no-such-thing"], ["/trpc/links.list"], ["/trpc"], ["/stats/1"]])(
    "OPTIONS %s: 204 with Allow, no key asked, not a failed try",
    async (url) => {
      const ip = nextIp();
      for (let i = 0; i < 30; i++) {
        const res = await api.app.inject({ method: "OPTIONS", url, remoteAddress: ip, headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" } });
        expect(res.statusCode).toBe(204);
        expect(res.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
        expect(res.headers["access-control-allow-origin"]).toBeUndefined();
        expect(res.body).toBe("");
      }
      const after = await api.app.inject({ method: "GET", url: "/api/v1/account", remoteAddress: ip });
      expect(after.statusCode).toBe(401);
      expect(after.headers["x-ratelimit-remaining"]).toBe("9");
    },
  );
});
