import { eq } from "drizzle-orm";
import { openTestDb } from "@shortener/core/testing";
import { clicks, pixels as pixelsTable, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/**
 * Every HTML page of the visitor side carries a CSP with `frame-ancestors 'none'` (CONTRACT §15), and a
 * pixel link sends bots straight to its destination, uncounted (§7 step 7, §15).
 */
let database: Database;
let visitor: Visitor;
let site: Site;
let homeless: Site;
beforeAll(async () => {
  database = await openTestDb();
  visitor = await startVisitor(database);
  site = await createSite(database);
  homeless = await createSite(database);
});
afterAll(async () => {
  await visitor?.close();
  await database?.close();
});

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

type PageCase = [name: string, status: number, request: () => Promise<{ path: string; host: string; method?: string; headers?: Record<string, string>; body?: string }>];
const pages: PageCase[] = [
  ["unknown host (404)", 404, async () => ({ path: "/x", host: "nobody.example" })],
  ["a domain's root without an index page (404)", 404, async () => ({ path: "/", host: homeless.host })],
  ["unknown alias (404)", 404, async () => ({ path: "/no-such-alias", host: homeless.host })],
  ["a disabled link (404)", 404, async () => ({ path: `/${(await site.link({ disabled: 1 })).alias}`, host: site.host })],
  ["an expired link (410)", 410, async () => ({ path: `/${(await site.link({ expiration_clicks: 1 })).alias}`, host: site.host })],
  ["the password form (200)", 200, async () => ({ path: `/${(await site.link({ password: "pw" })).alias}`, host: site.host })],
  [
    "a wrong password (401)",
    401,
    async () => ({ path: `/${(await site.link({ password: "pw" })).alias}`, host: site.host, method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "password=no" }),
  ],
  ["another method (405)", 405, async () => ({ path: `/${(await site.link()).alias}`, host: site.host, method: "DELETE" })],
  [
    "the pixel page (200)",
    200,
    async () => {
      const [pixel] = await database.db.insert(pixelsTable).values({ workspaceId: site.user.workspaceId, name: "fb", type: "facebook", value: "42" }).returning();
      return { path: `/${(await site.link({ pixel_ids: [pixel?.id ?? 0] })).alias}`, host: site.host };
    },
  ],
];

describe("HTML pages may not be framed", () => {
  it.each(pages)("%s", async (_name, status, make) => {
    const request = await make();
    if (status === 410) await visitor.visit(request.path, { host: request.host });
    const res = await visitor.visit(request.path, {
      host: request.host,
      ...(request.method ? { method: request.method } : {}),
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body ? { body: request.body } : {}),
    });
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(String(res.headers["content-security-policy"])).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
    expect(String(res.headers["content-security-policy"])).toMatch(/default-src 'none'/);
  });

  it("the 429 page too", async () => {
    const link = await site.link({ password: "pw" });
    const post = () =>
      visitor.visit(`/${link.alias}`, { host: site.host, method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "192.0.2.99" }, body: "password=no" });
    for (let i = 0; i < 3; i++) await post();
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(String(limited.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
  });
});

describe("HEAD and bots on a pixel link", () => {
  it("a browser's HEAD is redirected like a bot's GET, not shown the page, and not counted; its GET still gets the page", async () => {
    const [pixel] = await database.db.insert(pixelsTable).values({ workspaceId: site.user.workspaceId, name: "fb", type: "facebook", value: "7" }).returning();
    const link = await site.link({ url: "https://pixel-head.example/?a=1", pixel_ids: [pixel?.id ?? 0] });
    for (let i = 0; i < 3; i++) {
      const head = await visitor.visit(`/${link.alias}?b=2`, { host: site.host, method: "HEAD" });
      expect(head.status).toBe(302);
      expect(head.headers.location).toBe("https://pixel-head.example/?a=1&b=2");
      expect(head.headers["cache-control"]).toBe("private, no-store");
      expect(head.headers["content-security-policy"]).toBeUndefined();
    }
    await visitor.app.flushClicks();
    const counted = async () => (await database.db.select().from(clicks).where(eq(clicks.linkId, link.id))).reduce((n, r) => n + r.count, 0);
    expect(await counted()).toBe(0);
    const browser = await visitor.visit(`/${link.alias}`, { host: site.host });
    expect(browser.status).toBe(200);
    expect(browser.body).toContain("connect.facebook.net");
    await visitor.app.flushClicks();
    expect(await counted()).toBe(1);
  });

  it.each([
    ["Googlebot", { "user-agent": GOOGLEBOT }],
    ["a request without a User-Agent", { "user-agent": "" }],
    ["curl", { "user-agent": "curl/8.5.0" }],
  ])("%s is redirected straight to the destination and not counted", async (_name, headers) => {
    const [pixel] = await database.db.insert(pixelsTable).values({ workspaceId: site.user.workspaceId, name: "ga", type: "google-analytics", value: "G-1" }).returning();
    const link = await site.link({ url: "https://pixel-dest.example/", pixel_ids: [pixel?.id ?? 0] });
    const res = await visitor.visit(`/${link.alias}`, { host: site.host, headers });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://pixel-dest.example/");
    expect(res.body).toBe("");
    const browser = await visitor.visit(`/${link.alias}`, { host: site.host });
    expect(browser.status).toBe(200);
    expect(browser.body).toContain("googletagmanager.com");
    await visitor.app.flushClicks();
    const rows = await database.db.select().from(clicks).where(eq(clicks.linkId, link.id));
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(1);
  });
});
