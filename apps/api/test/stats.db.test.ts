import { recordClicks } from "@shortener/core";
import { testClick as click } from "@shortener/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({}, { failedTryLimit: { max: 3, windowMs: 60_000 } });
});
afterAll(async () => {
  await api?.close();
});

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

type Owner = Awaited<ReturnType<typeof createOwner>>;

async function newLink(owner: Owner, form: Record<string, string> = {}): Promise<{ id: number; short_url: string }> {
  const res = await api.call(owner.user, "POST", "/api/v1/links", { url: "https://dest.example/secret-path", domain_id: String(owner.domain.id), ...form });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A request to the public page as a browser (or, with `accept`, a JSON client) would send it. */
async function page(path: string, options: { method?: "GET" | "POST"; accept?: string; key?: string; cookie?: string; form?: Record<string, string>; ip?: string } = {}) {
  const headers: Record<string, string> = { accept: options.accept ?? "text/html,application/xhtml+xml,*/*;q=0.8" };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.cookie) headers.cookie = options.cookie;
  let payload: string | undefined;
  if (options.form) {
    payload = new URLSearchParams(options.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  const res = await api.app.inject({ method: options.method ?? "GET", url: path, headers, ...(payload !== undefined ? { payload } : {}), ...(options.ip ? { remoteAddress: options.ip } : {}) });
  return { status: res.statusCode, headers: res.headers, body: res.body, json: () => res.json() };
}

describe("GET /api/v1/stats/{link_id} (CONTRACT §8)", () => {
  it("answers a list envelope of {value,count}: the last 30 days by default, every day included, one page", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    await recordClicks(api.database.db, [
      click(link.id, `${today()}T00:00:00Z`, { country: "US" }),
      click(link.id, `${daysAgo(3)}T12:00:00Z`, { country: "US" }),
      click(link.id, `${daysAgo(3)}T13:00:00Z`, { country: "FR" }),
      click(link.id, `${daysAgo(30)}T13:00:00Z`, { country: "FR" }),
    ]);
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(30);
    expect(res.body.data[0]).toEqual({ value: daysAgo(29), count: 0, unique: 0, bots: 0 });
    expect(res.body.data[26]).toEqual({ value: daysAgo(3), count: 2, unique: 0, bots: 0 });
    expect(res.body.data[29]).toEqual({ value: today(), count: 1, unique: 0, bots: 0 });
    expect(res.body.meta).toMatchObject({ current_page: 1, from: 1, to: 30, last_page: 1, per_page: 30, total: 30 });
    expect(res.body.meta.path).toBe(`http://localhost:80/api/v1/stats/${link.id}`);
    expect(res.body.links.first).toBe(`http://localhost:80/api/v1/stats/${link.id}?name=clicks&page=1`);
    expect(res.body.links).toMatchObject({ prev: null, next: null });
    expect(res.body.status).toBe(200);

    const countries = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=country&from=${daysAgo(40)}&to=${today()}`);
    expect(countries.body.data).toEqual([
      { value: "FR", count: 2 },
      { value: "US", count: 2 },
    ]);
    const hours = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks_hour&from=${daysAgo(3)}&to=${daysAgo(3)}`);
    expect(hours.body.data).toHaveLength(24);
    expect(hours.body.data[12]).toEqual({ value: `${daysAgo(3)}T12:00Z`, count: 1, bots: 0 });
  });

  it("pages when per_page is given, with links that keep the filters", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks&per_page=10&page=2`);
    expect(res.body.data).toHaveLength(10);
    expect(res.body.data[0].value).toBe(daysAgo(19));
    expect(res.body.meta).toMatchObject({ current_page: 2, from: 11, to: 20, last_page: 3, per_page: 10, total: 30 });
    expect(res.body.links.next).toBe(`http://localhost:80/api/v1/stats/${link.id}?name=clicks&per_page=10&page=3`);
    const past = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=clicks&per_page=10&page=4`);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ from: null, to: null });
  });

  it("another user's link is the same 404 as a missing one; no key is a 401", async () => {
    const alice = await createOwner(api);
    const mallory = await createOwner(api);
    const link = await newLink(alice);
    const foreign = await api.call(mallory.user, "GET", `/api/v1/stats/${link.id}?name=clicks`);
    const absent = await api.call(mallory.user, "GET", `/api/v1/stats/2000000000?name=clicks`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(absent.body);
    expect(foreign.body).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    expect((await api.call(mallory.user, "GET", `/api/v1/stats/abc?name=clicks`)).status).toBe(404);
    expect((await api.call(undefined, "GET", `/api/v1/stats/${link.id}?name=clicks`)).status).toBe(401);
    expect((await api.call(alice.user, "POST", `/api/v1/stats/${link.id}`)).status).toBe(405);
  });

  it.each([
    ["a bad name", "name=os", { name: ["The name must be one of summary, clicks, clicks_hour, country, platform, browser, device, language, referrer, bots, variant."] }],
    ["no name", "", { name: ["The name must be one of summary, clicks, clicks_hour, country, platform, browser, device, language, referrer, bots, variant."] }],
    ["bad dates", "name=clicks&from=2026-13-01&to=tomorrow", { from: ["The from date must be a date in the format YYYY-MM-DD."], to: ["The to date must be a date in the format YYYY-MM-DD."] }],
    ["from after to", "name=clicks&from=2026-03-02&to=2026-03-01", { from: ["The from date must be a date before or equal to the to date."] }],
    ["clicks_hour over 31 days", "name=clicks_hour&from=2026-01-01&to=2026-02-01", { from: ["The range of clicks_hour may span at most 31 days."] }],
    ["clicks over 3660 days", "name=clicks&from=2016-01-01&to=2026-01-08", { from: ["The range of clicks may span at most 3660 days."] }],
    ["a year 0", "name=country&from=0000-01-01", { from: ["The from date must be a date in the format YYYY-MM-DD."] }],
    ["a per_page outside its list", "name=clicks&per_page=1000", { per_page: ["The per page must be one of 10, 25, 50, 100."] }],
  ])("%s is a 422 with every failing field", async (_label, query, message) => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message, code: "validation_failed", status: 422 });
  });

  it.each([["country"], ["referrer"], ["platform"], ["browser"], ["device"], ["language"]])("%s takes any range (CONTRACT §15)", async (name) => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    await recordClicks(api.database.db, [click(link.id, `${daysAgo(1)}T09:00:00Z`, { country: "DE" })]);
    for (const [from, to] of [
      ["2000-01-01", "2099-12-31"],
      ["0001-01-01", "9999-12-31"],
    ]) {
      const res = await api.call(owner.user, "GET", `/api/v1/stats/${link.id}?name=${name}&from=${from}&to=${to}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.reduce((n: number, r: { count: number }) => n + r.count, 0)).toBe(1);
    }
  });
});

describe("the public stats page /stats/{link_id}", () => {
  it("shows at most the top 100 values of a series, the rest added up as Other, in JSON and HTML (CONTRACT §15)", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    // 5,000 visits, each from a referrer of its own (the flood made the JSON a megabyte).
    const visits = Array.from({ length: 5_000 }, (_, i) => click(link.id, `${daysAgo(1)}T09:00:00Z`, { referrer: `flood-${String(i).padStart(4, "0")}.example` }));
    await recordClicks(api.database.db, visits);
    const res = await page(`/stats/${link.id}`, { accept: "application/json" });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeLessThan(50_000);
    const referrers = res.json().data.series.referrer as Array<{ value: string; count: number }>;
    expect(referrers).toHaveLength(101);
    expect(referrers[0]).toEqual({ value: "flood-0000.example", count: 1 });
    expect(referrers[99]).toEqual({ value: "flood-0099.example", count: 1 });
    expect(referrers[100]).toEqual({ value: "Other", count: 4_900 });
    expect(res.json().data.total).toBe(5_000);

    const html = await page(`/stats/${link.id}`);
    expect(html.status).toBe(200);
    expect(html.body.length).toBeLessThan(200_000);
    expect(html.body).toContain("5,000 values");
    expect(html.body).toContain("And 4,900 more values with 4,900 clicks.");
    expect(html.body).toContain("Other (4,992)");
  });

  it("takes any range: the value series and the total; clicks per day up to 3,660 days", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner);
    await recordClicks(api.database.db, [click(link.id, `${daysAgo(1)}T09:00:00Z`, { country: "DE" })]);
    const century = await page(`/stats/${link.id}?from=2000-01-01&to=2099-12-31`, { accept: "application/json" });
    expect(century.status).toBe(200);
    expect(century.json().data).toMatchObject({ total: 1, series: { clicks: null, clicks_hour: null, country: [{ value: "DE", count: 1 }] } });
    const html = await page(`/stats/${link.id}?from=2000-01-01&to=2099-12-31`);
    expect(html.status).toBe(200);
    expect(html.body).toContain("Clicks per day are drawn for ranges of 366 days or less");
    const decade = await page(`/stats/${link.id}?from=2016-01-01&to=2025-12-31`, { accept: "application/json" });
    expect(decade.json().data.series.clicks).toHaveLength(3653);
  });

  it("privacy 0: anyone gets the HTML page with SVG charts under a strict CSP, or every series as JSON", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner, { title: `<script>alert("t")</script> & co` });
    await recordClicks(api.database.db, [
      click(link.id, `${daysAgo(1)}T09:00:00Z`, { country: "DE", referrer: `"><img src=x onerror=alert(1)>`, language: "de", browser: "Firefox", platform: "Linux", device: "desktop" }),
      click(link.id, `${daysAgo(2)}T10:00:00Z`, { country: "DE", browser: "Chrome" }),
      click(link.id, `${daysAgo(2)}T11:00:00Z`, { country: "JP" }),
    ]);
    const res = await page(`/stats/${link.id}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
    expect(res.headers["cache-control"]).toBe("private, no-store");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    const nonce = /nonce-([A-Za-z0-9+/=]+)/.exec(csp)?.[1];
    expect(res.body).toContain(`<style nonce="${nonce}">`);
    // Nothing runs and nothing user-controlled comes through unescaped.
    expect(res.body).not.toMatch(/<script/i);
    expect(res.body).not.toContain("<img");
    expect(res.body).not.toMatch(/\sstyle="/);
    expect(res.body).toContain("&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt; &amp; co");
    expect(res.body).toContain("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    // The destination is never shown; the short URL is.
    expect(res.body).not.toContain("dest.example");
    expect(res.body).toContain(link.short_url);
    // Charts: a column for each day with clicks, labelled bars for each dimension, and text values.
    expect(res.body.match(/<rect class="bar[^"]*"/g)).toHaveLength(2);
    expect(res.body).toContain('role="img" aria-labelledby="chart-clicks-title chart-clicks-desc"');
    expect(res.body).toContain("<title>Germany: 2 clicks (67%)</title>");
    expect(res.body).toContain(">Japan</text>");
    expect(res.body).toContain(">German</text>");
    expect(res.body).toMatch(/<p class="k">Clicks<\/p><p class="v">3<\/p>/);
    expect(res.body).toMatch(/<p class="k">Unique visitors<\/p><p class="v">0<\/p>/);
    expect(res.body).toMatch(/<p class="k">Bots<\/p><p class="v">0<\/p>/);

    const head = await api.app.inject({ method: "HEAD", url: `/stats/${link.id}` });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe("");
    expect((await api.app.inject({ method: "DELETE", url: `/stats/${link.id}` })).statusCode).toBe(405);

    const data = await page(`/stats/${link.id}`, { accept: "application/json" });
    expect(data.status).toBe(200);
    const body = data.json();
    expect(body.status).toBe(200);
    expect(body.data).toMatchObject({
      link: { id: link.id, short_url: link.short_url, title: `<script>alert("t")</script> & co` },
      from: daysAgo(29),
      to: today(),
      total: 3,
      unique_visitors: 0,
      bots: 0,
    });
    expect(Object.keys(body.data.series).sort()).toEqual(["bots", "browser", "clicks", "clicks_hour", "country", "device", "language", "platform", "referrer"]);
    expect(body.data.series.country).toEqual([
      { value: "DE", count: 2 },
      { value: "JP", count: 1 },
    ]);
    expect(body.data.series.clicks).toHaveLength(30);
    expect(body.data.series.clicks_hour).toHaveLength(720);
    expect(body.data.hour_of_day[10]).toBe(1);
    expect(JSON.stringify(body)).not.toContain("dest.example");

    const ranged = await page(`/stats/${link.id}?from=${daysAgo(89)}&to=${today()}`, { accept: "application/json" });
    expect(ranged.json().data.series.clicks).toHaveLength(90);
    expect(ranged.json().data.series.clicks_hour).toBeNull();
    const bad = await page(`/stats/${link.id}?from=${today()}&to=${daysAgo(1)}`);
    expect(bad.status).toBe(422);
    expect(bad.body).toContain("The from date must be a date before or equal to the to date.");
    const badJson = await page(`/stats/${link.id}?from=nope`, { accept: "application/json" });
    expect(badJson.status).toBe(422);
    expect(badJson.json().message).toEqual({ from: ["The from date must be a date in the format YYYY-MM-DD."] });
  });

  it("privacy 1: only the owner's key; anyone else gets the same 404 as a missing link", async () => {
    const owner = await createOwner(api);
    const other = await createOwner(api);
    const link = await newLink(owner, { privacy: "1" });
    for (const accept of [undefined, "application/json"]) {
      const anonymous = await page(`/stats/${link.id}`, accept ? { accept } : {});
      const missing = await page(`/stats/2000000000`, accept ? { accept } : {});
      const stranger = await page(`/stats/${link.id}`, { key: other.user.apiKey, ...(accept ? { accept } : {}) });
      const badKey = await page(`/stats/${link.id}`, { key: "shk_not-a-key", ip: "10.1.1.1", ...(accept ? { accept } : {}) });
      for (const res of [anonymous, stranger, badKey]) {
        expect(res.status).toBe(404);
        expect(res.body.replace(/nonce-?[=":A-Za-z0-9+/]+/g, "")).toBe(missing.body.replace(/nonce-?[=":A-Za-z0-9+/]+/g, ""));
      }
    }
    expect((await page(`/stats/${link.id}`, { accept: "application/json" })).json()).toEqual({ message: "Resource not found.", code: "not_found", status: 404 });
    const mine = await page(`/stats/${link.id}`, { key: owner.user.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body).toContain('id="chart-clicks"');
    // A POST changes nothing for a page one cannot see.
    expect((await page(`/stats/${link.id}`, { method: "POST", form: { password: "x" } })).status).toBe(404);
  });

  it("privacy 1: the owner's key is checked through the API's key cache, and a rotated key stops opening the page at once", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner, { privacy: "1" });
    const oldKey = owner.user.apiKey;
    expect((await page(`/stats/${link.id}`, { key: oldKey })).status).toBe(200);
    expect((await page(`/stats/${link.id}`, { key: oldKey })).status).toBe(200);
    const rotated = await api.call(owner.user, "POST", "/api/v1/account/api-key");
    expect(rotated.status).toBe(201);
    const newKey = rotated.body.data.api_key as string;
    expect((await page(`/stats/${link.id}`, { key: oldKey, ip: "10.1.1.2" })).status).toBe(404);
    expect((await page(`/stats/${link.id}`, { key: newKey })).status).toBe(200);
  });

  it("privacy 2: a password form, a signed cookie once right, 401 when wrong, 429 past the limit; a new password voids old cookies", async () => {
    const owner = await createOwner(api);
    const link = await newLink(owner, { privacy: "2", privacy_password: "open sesame" });
    const form = await page(`/stats/${link.id}`);
    expect(form.status).toBe(200);
    expect(form.body).toContain('<form method="post"');
    expect(form.body).not.toContain('id="chart-clicks"');
    expect((await page(`/stats/${link.id}`, { accept: "application/json" })).json()).toMatchObject({ code: "password_required", status: 401 });

    const wrong = await page(`/stats/${link.id}`, { method: "POST", form: { password: "guess" }, ip: "10.0.0.1" });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain("That password is not right.");
    expect(wrong.headers["set-cookie"]).toBeUndefined();

    const right = await page(`/stats/${link.id}?from=${daysAgo(6)}&to=${today()}`, { method: "POST", form: { password: "open sesame" }, ip: "10.0.0.1" });
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe(`/stats/${link.id}?from=${daysAgo(6)}&to=${today()}`);
    const setCookie = String(right.headers["set-cookie"]);
    expect(setCookie).toMatch(new RegExp(`^stats_pass_${link.id}=\\d{10}\\.[A-Za-z0-9_-]{43}; Path=/stats/${link.id}; Max-Age=86400; HttpOnly; SameSite=Lax$`));
    const cookie = setCookie.split(";")[0] ?? "";
    const seen = await page(`/stats/${link.id}`, { cookie });
    expect(seen.status).toBe(200);
    expect(seen.body).toContain('id="chart-clicks"');
    expect((await page(`/stats/${link.id}`, { cookie: `stats_pass_${link.id}=forged` })).body).toContain('<form method="post"');
    // JSON clients post the password and get the statistics (and the cookie) at once.
    const json = await page(`/stats/${link.id}`, { method: "POST", accept: "application/json", form: { password: "open sesame" }, ip: "10.0.0.9" });
    expect(json.status).toBe(200);
    expect(json.json().data.total).toBe(0);

    // The owner's key needs no password.
    expect((await page(`/stats/${link.id}`, { key: owner.user.apiKey })).body).toContain('id="chart-clicks"');

    // Three wrong tries from one address: the fourth try is refused even with the right password.
    for (let i = 0; i < 3; i++) expect((await page(`/stats/${link.id}`, { method: "POST", form: { password: `no${i}` }, ip: "10.0.0.2" })).status).toBe(401);
    const limited = await page(`/stats/${link.id}`, { method: "POST", form: { password: "open sesame" }, ip: "10.0.0.2" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const limitedJson = await page(`/stats/${link.id}`, { method: "POST", accept: "application/json", form: { password: "open sesame" }, ip: "10.0.0.2" });
    expect(limitedJson.json()).toEqual({ message: "Too Many Attempts.", code: "rate_limited", status: 429 });
    // Another address, or the same address for another link, is not limited.
    expect((await page(`/stats/${link.id}`, { method: "POST", form: { password: "open sesame" }, ip: "10.0.0.3" })).status).toBe(303);

    // A new privacy password voids the cookies given for the old one.
    const changed = await api.call(owner.user, "PATCH", `/api/v1/links/${link.id}`, { privacy_password: "new secret" });
    expect(changed.status).toBe(200);
    expect((await page(`/stats/${link.id}`, { cookie })).body).toContain('<form method="post"');
  });
});
