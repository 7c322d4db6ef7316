import { eq } from "drizzle-orm";
import { createLink, updateDomain, updateLink } from "@shortener/core";
import { openTestDb, unique } from "@shortener/core/testing";
import { clicks, links, pixels as pixelsTable, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IPHONE, createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

let database: Database;
let visitor: Visitor;
let site: Site;
beforeAll(async () => {
  database = await openTestDb();
  visitor = await startVisitor(database);
  site = await createSite(database);
});
afterAll(async () => {
  await visitor?.close();
  await database?.close();
});

async function clicksOf(linkId: number) {
  await visitor.app.flushClicks();
  return database.db.select().from(clicks).where(eq(clicks.linkId, linkId));
}

/** How many clicks were recorded: a row stands for `count` identical ones. */
async function clickCount(linkId: number): Promise<number> {
  return (await clicksOf(linkId)).reduce((n, row) => n + row.count, 0);
}

describe("CONTRACT §7, step by step, over real HTTP", () => {
  it("1. a host that names no domain is a 404; hosts match case-insensitively, with their port", async () => {
    expect((await visitor.visit("/x", { host: "nobody.example" })).status).toBe(404);
    const link = await site.link();
    expect((await visitor.visit(`/${link.alias}`, { host: site.host.toUpperCase() })).status).toBe(302);
    expect((await visitor.visit(`/${link.alias}`, { host: `${site.host}:443` })).status).toBe(302);
    const ported = await createSite(database);
    await database.db.execute(`update domains set name = '${ported.host}:8080' where id = ${ported.domainId}` as never);
    const l2 = await ported.link();
    expect((await visitor.visit(`/${l2.alias}`, { host: `${ported.host}:8080` })).status).toBe(302);
    expect((await visitor.visit(`/${l2.alias}`, { host: ported.host })).status).toBe(404);
  });

  it("2. the root redirects to the index page, else a 404 page", async () => {
    const withIndex = await createSite(database, { index_page: "https://home.example/" });
    const res = await visitor.visit("/", { host: withIndex.host });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://home.example/");
    const plain = await visitor.visit("/", { host: site.host });
    expect(plain.status).toBe(404);
    expect(plain.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(plain.body).toContain("<!doctype html>");
  });

  it("3. an unknown alias goes to the not-found page, else a 404 page", async () => {
    const withPage = await createSite(database, { not_found_page: "https://nf.example/" });
    for (const path of ["/missing", "/a/b", "/%2e%2e", "/api", "/" + "x".repeat(300)]) {
      const res = await visitor.visit(path, { host: withPage.host });
      expect(res.status, path).toBe(302);
      expect(res.headers.location).toBe("https://nf.example/");
      expect((await visitor.visit(path, { host: site.host })).status, path).toBe(404);
    }
  });

  it("4. a disabled link is a 404 page, not counted", async () => {
    const link = await site.link({ disabled: 1 });
    const res = await visitor.visit(`/${link.alias}`, { host: site.host });
    expect(res.status).toBe(404);
    expect(res.body).not.toContain("dest.example");
    expect(await clickCount(link.id)).toBe(0);
  });

  it("5. an expired link goes to its expiration URL, else a 410 page; not counted", async () => {
    const dated = await site.link({ expiration_url: "https://over.example/" });
    await database.db
      .update(links)
      .set({ endsAt: new Date(Date.now() - 1000) })
      .where(eq(links.id, dated.id));
    const noUrl = await site.link();
    await database.db
      .update(links)
      .set({ endsAt: new Date(Date.now() - 1000) })
      .where(eq(links.id, noUrl.id));
    const r1 = await visitor.visit(`/${dated.alias}`, { host: site.host });
    expect([r1.status, r1.headers.location]).toEqual([302, "https://over.example/"]);
    const r2 = await visitor.visit(`/${noUrl.alias}`, { host: site.host });
    expect(r2.status).toBe(410);
    const used = await site.link({ expiration_clicks: 1 });
    expect((await visitor.visit(`/${used.alias}`, { host: site.host })).status).toBe(302);
    expect((await visitor.visit(`/${used.alias}`, { host: site.host })).status).toBe(410);
    expect(await clickCount(dated.id)).toBe(0);
    expect(await clickCount(used.id)).toBe(1);
  });

  it("6. a password form that reveals nothing, a signed cookie after the right password, 401 when wrong, 429 past the limit", async () => {
    const link = await site.link({ url: "https://secret-destination.example/", password: "open sesame" });
    const form = await visitor.visit(`/${link.alias}`, { host: site.host });
    expect(form.status).toBe(200);
    expect(form.body).toContain('name="password"');
    expect(form.body + JSON.stringify(form.headers)).not.toContain("secret-destination");

    const post = (password: string, ip: string, cookie?: string) =>
      visitor.visit(`/${link.alias}`, {
        host: site.host,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip, ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams({ password }).toString(),
      });
    const wrong = await post("nope", "203.0.113.1");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain("not right");
    expect(wrong.body + JSON.stringify(wrong.headers)).not.toContain("secret-destination");

    const right = await post("open sesame", "203.0.113.1");
    expect(right.status).toBe(302);
    expect(right.headers.location).toBe("https://secret-destination.example/");
    const cookie = String(right.headers["set-cookie"]).split(";")[0] as string;
    expect(String(right.headers["set-cookie"])).toMatch(new RegExp(`Path=/${link.alias}; .*HttpOnly; SameSite=Lax`));

    const again = await visitor.visit(`/${link.alias}`, { host: site.host, headers: { cookie } });
    expect([again.status, again.headers.location]).toEqual([302, "https://secret-destination.example/"]);
    const forged = await visitor.visit(`/${link.alias}`, { host: site.host, headers: { cookie: cookie.replace(/=.*/, "=forged") } });
    expect(forged.status).toBe(200);

    // A password change invalidates earlier cookies.
    await updateLink({ ctx: site.user.ctx, id: link.id, input: { password: "new password" } });
    await new Promise((r) => setTimeout(r, 200));
    expect((await visitor.visit(`/${link.alias}`, { host: site.host, headers: { cookie } })).status).toBe(200);

    // Tries are limited per client and link (3 in this test's configuration).
    for (let i = 0; i < 3; i++) expect((await post("bad", "203.0.113.9")).status).toBe(401);
    const limited = await post("new password", "203.0.113.9");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect((await post("new password", "203.0.113.10")).status).toBe(302);
  });

  it("7. pixels: a page that fires each pixel, escaped, with a strict CSP; skipped with Sec-GPC or DNT", async () => {
    const [fb] = await database.db.insert(pixelsTable).values({ workspaceId: site.user.workspaceId, name: "fb", type: "facebook", value: "12345" }).returning();
    const [ga] = await database.db.insert(pixelsTable).values({ workspaceId: site.user.workspaceId, name: "ga", type: "google-analytics", value: "G-ABC" }).returning();
    const link = await site.link({ url: "https://dest.example/?q=</script><script>alert(1)</script>", pixel_ids: [fb?.id ?? 0, ga?.id ?? 0] });
    const res = await visitor.visit(`/${link.alias}`, { host: site.host });
    expect(res.status).toBe(200);
    expect(res.body).toContain("fbq('init',\"12345\")");
    expect(res.body).toContain("googletagmanager.com/gtag/js?id=G-ABC");
    expect(res.body).toMatch(/<meta http-equiv="refresh" content="1;url=https:\/\/dest\.example\/\?q=/);
    expect(res.body).not.toContain("<script>alert(1)</script>");
    const csp = String(res.headers["content-security-policy"]);
    expect(csp).toMatch(/default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    const nonce = /nonce-([A-Za-z0-9+/=]+)/.exec(csp)?.[1];
    for (const tag of res.body.match(/<script[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
    for (const header of [{ "sec-gpc": "1" }, { dnt: "1" }] as Array<Record<string, string>>) {
      const direct = await visitor.visit(`/${link.alias}`, { host: site.host, headers: header });
      expect(direct.status).toBe(302);
    }
    expect(await clickCount(link.id)).toBe(3);
  });

  it("8. targeting by country (trusted proxy header, real GeoIP), platform, language and rotation; no match → url", async () => {
    const country = await site.link({
      target_type: 1,
      country: [
        { key: "US", value: "https://us.example/" },
        { key: "GB", value: "https://gb.example/" },
      ],
    });
    const from = (ip: string) => visitor.visit(`/${country.alias}`, { host: site.host, headers: { "x-forwarded-for": ip } });
    expect((await from("8.8.8.8")).headers.location).toBe("https://us.example/");
    expect((await from("81.2.69.160")).headers.location).toBe("https://gb.example/");
    expect((await from("1.1.1.1")).headers.location).toBe("https://dest.example/path");

    const platform = await site.link({ target_type: 2, platform: [{ key: "iOS", value: "https://ios.example/" }] });
    expect((await visitor.visit(`/${platform.alias}`, { host: site.host, headers: { "user-agent": IPHONE } })).headers.location).toBe("https://ios.example/");
    expect((await visitor.visit(`/${platform.alias}`, { host: site.host })).headers.location).toBe("https://dest.example/path");

    const language = await site.link({
      target_type: 3,
      language: [
        { key: "fr", value: "https://fr.example/" },
        { key: "de", value: "https://de.example/" },
      ],
    });
    const lang = (header: string) => visitor.visit(`/${language.alias}`, { host: site.host, headers: { "accept-language": header } });
    expect((await lang("en-US,en;q=0.9,de;q=0.8,fr;q=0.7")).headers.location).toBe("https://de.example/");
    expect((await lang("fr-CA;q=0.2, de;q=0.1")).headers.location).toBe("https://fr.example/");
    expect((await lang("de;q=0, es")).headers.location).toBe("https://dest.example/path");

    const rotation = await site.link({ target_type: 4, rotation: [{ value: "https://r0.example/" }, { value: "https://r1.example/" }, { value: "https://r2.example/" }] });
    const served = [];
    for (let i = 0; i < 6; i++) served.push((await visitor.visit(`/${rotation.alias}`, { host: site.host })).headers.location);
    expect(served).toEqual(["https://r0.example/", "https://r1.example/", "https://r2.example/", "https://r0.example/", "https://r1.example/", "https://r2.example/"]);
    await visitor.app.flushClicks();
    const [row] = await database.db.select({ lastRotation: links.lastRotation }).from(links).where(eq(links.id, rotation.id));
    expect(row?.lastRotation).toBe(2);
  });

  it("8b. with GEO_COUNTRY_HEADER the country comes from that header", async () => {
    const headerSide = await startVisitor(database, { geoCountryHeader: "cf-ipcountry" });
    try {
      const link = await site.link({ target_type: 1, country: [{ key: "DE", value: "https://de.example/" }] });
      const res = await headerSide.visit(`/${link.alias}`, { host: site.host, headers: { "cf-ipcountry": "de", "x-forwarded-for": "8.8.8.8" } });
      expect(res.headers.location).toBe("https://de.example/");
    } finally {
      await headerSide.close();
    }
  });

  it("8c. with no proxy trusted, X-Forwarded-For is ignored and the socket's address decides the country", async () => {
    const untrusting = await startVisitor(database, { trustProxy: false });
    try {
      const link = await site.link({ target_type: 1, country: [{ key: "US", value: "https://us.example/" }] });
      const res = await untrusting.visit(`/${link.alias}`, { host: site.host, headers: { "x-forwarded-for": "8.8.8.8" } });
      expect(res.headers.location).toBe("https://dest.example/path");
      const trusted = await visitor.visit(`/${link.alias}`, { host: site.host, headers: { "x-forwarded-for": "8.8.8.8" } });
      expect(trusted.headers.location).toBe("https://us.example/");
    } finally {
      await untrusting.close();
    }
  });

  it("9. the visitor's query parameters win over the destination's; the fragment stays", async () => {
    const link = await site.link({ url: "https://dest.example/p?utm_source=a&keep=1#section" });
    const res = await visitor.visit(`/${link.alias}?utm_source=b&extra=%20x&extra=y`, { host: site.host });
    expect(res.headers.location).toBe("https://dest.example/p?keep=1&utm_source=b&extra=+x&extra=y#section");
  });

  it("10. the redirect status is configurable and responses are never cached", async () => {
    const permanent = await startVisitor(database, { redirectStatus: 308 });
    try {
      const link = await site.link();
      const res = await permanent.visit(`/${link.alias}`, { host: site.host });
      expect(res.status).toBe(308);
      expect(res.headers["cache-control"]).toBe("private, no-store");
    } finally {
      await permanent.close();
    }
  });

  it("11. HEAD and bots are redirected but not counted; a click records its traits", async () => {
    const link = await site.link();
    const head = await visitor.visit(`/${link.alias}`, { host: site.host, method: "HEAD" });
    expect(head.status).toBe(302);
    const bot = await visitor.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" } });
    expect(bot.status).toBe(302);
    expect((await visitor.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": "" } })).status).toBe(302);
    await visitor.visit(`/${link.alias}`, {
      host: site.host,
      headers: { "user-agent": IPHONE, "x-forwarded-for": "81.2.69.160", "accept-language": "pt-BR,pt;q=0.9", referer: "https://news.example.org/story?id=1" },
    });
    const rows = await clicksOf(link.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ country: "GB", platform: "iOS", browser: "Mobile Safari", device: "mobile", language: "pt", referrer: "news.example.org", count: 1 });
    const [row] = await database.db.select({ clicks: links.clicks }).from(links).where(eq(links.id, link.id));
    expect(row?.clicks).toBe(1);
  });

  it("12. a change made through core shows on the visitor side within 1 second", async () => {
    const link = await site.link({ url: "https://before.example/" });
    expect((await visitor.visit(`/${link.alias}`, { host: site.host })).headers.location).toBe("https://before.example/");
    await updateLink({ ctx: site.user.ctx, id: link.id, input: { url: "https://after.example/" } });
    const started = Date.now();
    let location: unknown;
    while (Date.now() - started < 1000) {
      location = (await visitor.visit(`/${link.alias}`, { host: site.host })).headers.location;
      if (location === "https://after.example/") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(location).toBe("https://after.example/");
    const withIndex = await createSite(database);
    expect((await visitor.visit("/", { host: withIndex.host })).status).toBe(404);
    await updateDomain({ ctx: withIndex.user.ctx, id: withIndex.domainId, input: { index_page: "https://new-home.example/" } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await visitor.visit("/", { host: withIndex.host })).headers.location).toBe("https://new-home.example/");
  });

  it("12b. a link created by another process shows within 1 second, though its miss was cached", async () => {
    const alias = unique("later");
    expect((await visitor.visit(`/${alias}`, { host: site.host })).status).toBe(404);
    expect((await visitor.visit(`/${alias}`, { host: site.host })).status).toBe(404);
    // Written straight to the database, as another process's API would: nothing in this process hears of it.
    await database.db.insert(links).values({ workspaceId: site.user.workspaceId, domainId: site.domainId, alias, url: "https://created-elsewhere.example/" });
    const started = Date.now();
    let location: unknown;
    while (Date.now() - started < 1000) {
      location = (await visitor.visit(`/${alias}`, { host: site.host })).headers.location;
      if (location) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(location).toBe("https://created-elsewhere.example/");
  });

  it("12c. a link created through core in this process shows at once", async () => {
    const alias = unique("now");
    expect((await visitor.visit(`/${alias}`, { host: site.host })).status).toBe(404);
    await createLink({ ctx: site.user.ctx, input: { url: "https://created-here.example/", domain_id: site.domainId, alias } });
    expect((await visitor.visit(`/${alias}`, { host: site.host })).headers.location).toBe("https://created-here.example/");
  });

  it("serves only GET, HEAD, and POST to password links", async () => {
    const link = await site.link();
    expect((await visitor.visit(`/${link.alias}`, { host: site.host, method: "DELETE" })).status).toBe(405);
    expect((await visitor.visit(`/${link.alias}`, { host: site.host, method: "POST", body: "x=1", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(405);
  });
});
