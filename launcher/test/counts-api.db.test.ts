import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiData, startTestServer, type TestServer } from "./helpers.ts";

/**
 * CONTRACT §21 end to end: real visits through the visitor side of the all-in-one server, then the
 * API's figures — a link's summary and series, the account's, and a domain's orphan visits. The
 * rollups are the visitor side's own (no row is written by this test).
 */
const ADMIN_KEY = `shk_${"C".repeat(40)}`;
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: "100000" });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** A visit as a browser or a bot sends it: to the server's port, for the domain's host. */
function visit(host: string, path: string, userAgent: string, method = "GET"): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, method, headers: { host, "user-agent": userAgent } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

const api = (path: string) => apiData(server.base, ADMIN_KEY, "GET", path);

/** The API's answer once `isDone` holds: the visitor side writes its buffered visits within a second or so. */
async function eventually<T>(read: () => Promise<T>, isDone: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (isDone(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("visits through the redirect → the API's figures (CONTRACT §21)", () => {
  it("people, unique visitors and bots of a link and of the account; a domain's orphan visits", async () => {
    const [domain] = (await api("/api/v1/domains")) as Array<{ id: number; name: string }>;
    if (!domain) throw new Error("no bootstrap domain");
    const link = (await apiData(server.base, ADMIN_KEY, "POST", "/api/v1/links", { url: "https://example.org/counted", domain_id: String(domain.id), alias: "counted" })) as {
      id: number;
      short_url: string;
    };
    const began = new Date();

    for (let i = 0; i < 3; i++) expect(await visit(domain.name, "/counted", CHROME)).toBe(302);
    for (let i = 0; i < 2; i++) expect(await visit(domain.name, "/counted", FIREFOX)).toBe(302);
    for (let i = 0; i < 4; i++) expect(await visit(domain.name, "/counted", GOOGLEBOT)).toBe(302);
    expect(await visit(domain.name, "/counted", CHROME, "HEAD")).toBe(302);
    expect(await visit(domain.name, "/wp-login", CHROME)).toBe(404);
    expect(await visit(domain.name, "/wp-login", FIREFOX)).toBe(404);
    expect(await visit(domain.name, "/", CHROME)).toBe(404);
    expect(await visit(domain.name, "/nope", GOOGLEBOT)).toBe(404);

    const today = new Date().toISOString().slice(0, 10);
    const summary = await eventually(
      () => api(`/api/v1/stats/${link.id}?name=summary`),
      (s: { clicks: number; bots: number; first_click_at: string; last_click_at: string }) => s.clicks === 5 && s.bots === 5,
    );
    expect(summary).toMatchObject({ clicks: 5, unique_visitors: 2, bots: 5 });
    expect(Date.parse(summary.first_click_at)).toBeGreaterThanOrEqual(began.getTime() - 1000);
    expect(Date.parse(summary.last_click_at)).toBeGreaterThanOrEqual(Date.parse(summary.first_click_at));
    expect(Date.parse(summary.last_click_at)).toBeLessThanOrEqual(Date.now());

    const daily = (await api(`/api/v1/stats/${link.id}?name=clicks`)) as Array<{ value: string }>;
    expect(daily.at(-1)).toEqual({ value: today, count: 5, unique: 2, bots: 5 });
    expect(daily).toHaveLength(30);
    const bots = (await api(`/api/v1/stats/${link.id}?name=bots`)) as Array<{ value: string; count: number }>;
    expect(bots.reduce((n, r) => n + r.count, 0)).toBe(5);
    expect(bots[0]?.count).toBe(4);
    // The visits were sent between `began` and now: in the hour of one of them (a run may cross the hour).
    const visitHours = new Set([began.toISOString().slice(0, 13), new Date().toISOString().slice(0, 13)]);
    const hours = (await api(`/api/v1/stats/${link.id}?name=clicks_hour&from=${today}&to=${today}`)) as Array<{ value: string; count: number; bots: number }>;
    expect(hours.reduce((n, r) => n + r.count, 0)).toBe(5);
    expect(hours.reduce((n, r) => n + r.bots, 0)).toBe(5);
    expect(hours.filter((r) => visitHours.has(r.value.slice(0, 13))).reduce((n, r) => n + r.count, 0)).toBe(5);

    const account = await api(`/api/v1/stats?name=summary`);
    expect(account).toMatchObject({ clicks: 5, unique_visitors: 2, bots: 5 });
    expect(account.first_click_at).toBe(summary.first_click_at);
    expect(account.last_click_at).toBe(summary.last_click_at);
    expect(await api(`/api/v1/stats?name=links`)).toEqual([{ value: link.short_url, id: link.id, count: 5 }]);
    expect(((await api(`/api/v1/stats?name=clicks`)) as unknown[]).at(-1)).toEqual({ value: today, count: 5, unique: 2, bots: 5 });

    const orphans = await eventually(
      () => api(`/api/v1/domains/${domain.id}/visits?name=summary`),
      (s: { not_found: number; index: number; bots: number }) => s.not_found === 2 && s.index === 1 && s.bots === 1,
    );
    expect(orphans).toEqual({ index: 1, not_found: 2, disabled: 0, expired: 0, bots: 1 });
    expect(await api(`/api/v1/domains/${domain.id}/visits?name=alias`)).toEqual([{ value: "wp-login", count: 2 }]);
    expect(((await api(`/api/v1/domains/${domain.id}/visits?name=clicks`)) as unknown[]).at(-1)).toEqual({ value: today, count: 3, bots: 1 });
  }, 60_000);
});
