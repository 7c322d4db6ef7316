import { sql } from "drizzle-orm";
import { updateDomain } from "@shortener/core";
import { openTestDb } from "@shortener/core/testing";
import { queryRows, type Database } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER, createSite, startVisitor, type Site, type Visitor } from "./helpers.ts";

/*
 * CONTRACT §25 through the real visitor side: a link's Open Graph preview as link-preview bots see it
 * (after §7's gates), everyone else's redirect, and a domain's app-link files (docs/link-features.md).
 */

let database: Database;
let side: Visitor;
beforeAll(async () => {
  database = await openTestDb();
  side = await startVisitor(database);
});
afterAll(async () => {
  await side?.close();
  await database?.close();
});

const SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
const OG = {
  og_title: `Fall sale: "30 %" off <script>alert(1)</script> & more`,
  og_description: "Shoes & bags.\nUntil Sunday — <b>only</b> 'online'.",
  og_image: "https://img.example/cards/fall.png?size=large&v=2",
};

/** The Open Graph and Twitter tags of a page, as `key → content` (the attributes as written, still escaped). */
function metaTags(html: string): Array<[string, string]> {
  return [...html.matchAll(/<meta (?:property|name)="((?:og|twitter):[^"]+)" content="([^"]*)">/g)].map((m) => [m[1] ?? "", m[2] ?? ""]);
}

/** A response as the test output prints it: status, content type, location, and the preview's tags. */
function describeAnswer(who: string, res: { status: number; headers: Record<string, string | string[] | undefined>; body: string }): string {
  const lines = [`${who}: ${res.status} ${String(res.headers["content-type"] ?? "(no content-type)")}${res.headers.location ? ` → ${String(res.headers.location)}` : ""}`];
  for (const [key, content] of metaTags(res.body)) lines.push(`  <meta ${key} = ${content}>`);
  return lines.join("\n");
}

async function rollups(linkId: number): Promise<Map<string, number>> {
  const rows = await queryRows<{ k: string; n: string }>(database.db, sql`select dimension || '|' || value as k, sum(count)::text as n from link_stats_daily where link_id = ${linkId} group by 1`);
  return new Map(rows.map((r) => [r.k, Number(r.n)]));
}

describe("Open Graph previews (CONTRACT §25)", () => {
  let site: Site;
  beforeAll(async () => {
    site = await createSite(database);
  });

  it("a preview bot gets a 200 page with the escaped tags and a strict CSP; a browser gets the redirect; the bot is counted as a bot, never a click", async () => {
    const link = await site.link({ url: "https://shop.example/fall?ref=social", ...OG });
    const bot = await side.visit(`/${link.alias}?utm_source=slack`, { host: site.host, headers: { "user-agent": SLACKBOT } });
    const person = await side.visit(`/${link.alias}?utm_source=slack`, { host: site.host, headers: { "user-agent": BROWSER } });
    console.log(`${describeAnswer("Slackbot", bot)}\n${describeAnswer("Chrome", person)}`);

    expect(person.status).toBe(302);
    expect(person.headers.location).toBe("https://shop.example/fall?ref=social&utm_source=slack");
    expect(person.body).toBe("");

    expect(bot.status).toBe(200);
    expect(bot.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(bot.headers.location).toBeUndefined();
    expect(bot.headers["cache-control"]).toBe("private, no-store");
    const csp = String(bot.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("script-src");
    expect(bot.body).not.toMatch(/<script/i);
    expect(metaTags(bot.body)).toEqual([
      ["og:title", "Fall sale: &quot;30 %&quot; off &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"],
      ["og:description", "Shoes &amp; bags.\nUntil Sunday — &lt;b&gt;only&lt;/b&gt; &#39;online&#39;."],
      ["og:image", "https://img.example/cards/fall.png?size=large&amp;v=2"],
      ["og:url", `https://${site.host}/${link.alias}`],
      ["og:type", "website"],
      ["twitter:card", "summary_large_image"],
    ]);
    // A person wrongly taken for a bot can still go on.
    expect(bot.body).toContain(`<a href="https://shop.example/fall?ref=social&amp;utm_source=slack" rel="noreferrer">Continue</a>`);

    await side.app.flushClicks();
    const stats = await rollups(link.id);
    expect(stats.get("clicks|")).toBe(1);
    expect(stats.get("bots|Slackbot")).toBe(1);
  });

  const PREVIEW_BOTS: Array<[string, string]> = [
    ["Slackbot", SLACKBOT],
    ["Twitterbot", "Twitterbot/1.0"],
    ["facebookexternalhit", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"],
    [
      "iMessage (as facebookexternalhit)",
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
    ],
    ["LinkedInBot", "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)"],
    ["Discordbot", "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)"],
    ["WhatsApp", "WhatsApp/2.23.20.0 A"],
    ["TelegramBot", "TelegramBot (like TwitterBot)"],
    ["Mastodon", "http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)"],
    ["Teams and Skype", "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5"],
    ["Outlook", "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)"],
    ["redditbot", "Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)"],
    ["Pinterestbot", "Pinterestbot/1.0 (+http://www.pinterest.com/bot.html)"],
    ["Iframely", "Mozilla/5.0 (compatible; Iframely/1.3.1; +https://iframely.com/docs/about)"],
    ["Embedly", "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)"],
    ["vkShare", "Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)"],
  ];

  it.each(PREVIEW_BOTS)("%s gets the preview", async (_name, agent) => {
    const link = await site.link({ og_title: "Card" });
    const res = await side.visit(`/${link.alias}`, { host: site.host, headers: { "user-agent": agent } });
    expect(res.status).toBe(200);
    expect(metaTags(res.body)).toContainEqual(["og:title", "Card"]);
    // Only a title: no image tag, a small card.
    expect(metaTags(res.body)).toContainEqual(["twitter:card", "summary"]);
    expect(metaTags(res.body).map(([k]) => k)).not.toContain("og:image");
  });

  it.each([
    ["a browser", { "user-agent": BROWSER }, "GET"],
    ["a search engine", { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }, "GET"],
    ["an HTTP library", { "user-agent": "curl/8.4.0" }, "GET"],
    ["no User-Agent", { "user-agent": "" }, "GET"],
    ["a browser's prefetch", { "user-agent": BROWSER, "sec-purpose": "prefetch" }, "GET"],
    ["a browser's HEAD", { "user-agent": BROWSER }, "HEAD"],
  ] as const)("%s gets the redirect", async (_name, headers, method) => {
    const link = await site.link({ ...OG });
    const res = await side.visit(`/${link.alias}`, { host: site.host, headers, method });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://dest.example/path");
  });

  it("a preview bot's HEAD gets the preview's headers; a link without preview fields sends preview bots on as before; a pixel link's preview fires no pixel", async () => {
    const link = await site.link({ ...OG });
    const head = await side.visit(`/${link.alias}`, { host: site.host, method: "HEAD", headers: { "user-agent": SLACKBOT } });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(head.body).toBe("");

    const plain = await site.link();
    const res = await side.visit(`/${plain.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("https://dest.example/path");
  });

  it("the gates come first: a bot gets no preview of a disabled, expired or password-protected link, and learns nothing of it", async () => {
    const disabled = await site.link({ ...OG, disabled: 1 });
    const expired = await site.link({ ...OG });
    const expiredOn = await site.link({ ...OG, expiration_url: "https://over.example/" });
    await database.db.execute(sql`update links set ends_at = now() - interval '1 hour' where id in (${expired.id}, ${expiredOn.id})`);
    const locked = await site.link({ ...OG, url: "https://secret-destination.example/", password: "open sesame" });
    const answers = {
      disabled: await side.visit(`/${disabled.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } }),
      expired: await side.visit(`/${expired.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } }),
      expiredOn: await side.visit(`/${expiredOn.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } }),
      locked: await side.visit(`/${locked.alias}`, { host: site.host, headers: { "user-agent": SLACKBOT } }),
    };
    console.log(
      Object.entries(answers)
        .map(([name, res]) => describeAnswer(`Slackbot, ${name} link`, res))
        .join("\n"),
    );
    expect(answers.disabled.status).toBe(404);
    expect(answers.expired.status).toBe(410);
    expect(answers.expiredOn.status).toBe(302);
    expect(answers.expiredOn.headers.location).toBe("https://over.example/");
    expect(answers.locked.status).toBe(200);
    expect(answers.locked.body).toContain("This link is protected");
    for (const res of Object.values(answers)) {
      expect(metaTags(res.body)).toEqual([]);
      for (const secret of ["Fall sale", "Shoes", "img.example", "secret-destination", "dest.example"]) expect(res.body).not.toContain(secret);
    }
  });
});

describe("app links (CONTRACT §25)", () => {
  const AASA = '{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/*"}]}]}}';
  const ASSET_LINKS = '[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":["14:6D:E9"]}}]';
  const set = (site: Site, input: { apple_app_site_association?: string | null; asset_links?: string | null }) => updateDomain({ ctx: site.user.ctx, id: site.domainId, input });

  it("are served as JSON, byte for byte, on their domain's host; edits show at once; an unset file is a 404; never an orphan visit", async () => {
    const site = await createSite(database);
    const other = await createSite(database);
    await set(site, { apple_app_site_association: AASA, asset_links: ASSET_LINKS });

    const apple = await side.visit("/.well-known/apple-app-site-association", { host: site.host, headers: { "user-agent": "AASA-Bot/1.0.0" } });
    const android = await side.visit("/.well-known/assetlinks.json", { host: site.host.toUpperCase(), headers: { "user-agent": "" } });
    console.log(`${describeAnswer("apple-app-site-association", apple)}\n${describeAnswer("assetlinks.json", android)}`);
    expect(apple).toMatchObject({ status: 200, body: AASA });
    expect(apple.headers["content-type"]).toBe("application/json");
    expect(android).toMatchObject({ status: 200, body: ASSET_LINKS });
    expect(android.headers["content-type"]).toBe("application/json");
    const head = await side.visit("/.well-known/assetlinks.json", { host: site.host, method: "HEAD" });
    expect(head).toMatchObject({ status: 200, body: "" });
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(ASSET_LINKS)));

    // Another domain's files are its own: none here.
    expect((await side.visit("/.well-known/apple-app-site-association", { host: other.host })).status).toBe(404);
    expect((await side.visit("/.well-known/assetlinks.json", { host: other.host })).status).toBe(404);

    // An edit through core (which announces it) shows on the next visits; a cleared file is a 404 again.
    const edited = AASA.replace("ABCDE12345", "VWXYZ67890");
    await set(site, { apple_app_site_association: edited });
    await expect.poll(async () => (await side.visit("/.well-known/apple-app-site-association", { host: site.host })).body).toBe(edited);
    await set(site, { asset_links: null });
    await expect.poll(async () => (await side.visit("/.well-known/assetlinks.json", { host: site.host })).status).toBe(404);
    expect((await side.visit("/.well-known/apple-app-site-association", { host: site.host })).body).toBe(edited);

    await side.app.flushClicks();
    const orphans = await queryRows<{ n: string }>(database.db, sql`select count(*)::text as n from domain_visits_daily where domain_id in (${site.domainId}, ${other.domainId})`);
    expect(orphans[0]?.n).toBe("0");
  });

  it.each([
    ["a trailing slash", "/.well-known/assetlinks.json/", 404],
    ["another case", "/.well-known/AssetLinks.json", 404],
    ["another well-known file", "/.well-known/security.txt", 404],
    ["the folder", "/.well-known/", 404],
    ["a path below", "/.well-known/assetlinks.json/x", 404],
  ] as const)("refused: %s", async (_name, path, status) => {
    const site = await createSite(database);
    await set(site, { apple_app_site_association: AASA, asset_links: ASSET_LINKS });
    const res = await side.visit(path, { host: site.host });
    expect(res.status).toBe(status);
    expect(res.body).not.toContain("applinks");
    expect(res.body).not.toContain("delegate_permission");
  });

  it("refused: a POST (405), an unknown host, an unverified domain's host; and no link can take such a path as its alias", async () => {
    const site = await createSite(database);
    await set(site, { asset_links: ASSET_LINKS });
    expect((await side.visit("/.well-known/assetlinks.json", { host: site.host, method: "POST", body: "x=1", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(405);
    expect((await side.visit("/.well-known/assetlinks.json", { host: "nobody.example" })).status).toBe(404);
    const unverified = await createSite(database, {}, { verification: "dns" });
    await set(unverified, { asset_links: ASSET_LINKS });
    const res = await side.visit("/.well-known/assetlinks.json", { host: unverified.host });
    expect(res.status).toBe(404);
    expect(res.body).not.toContain("delegate_permission");
    for (const alias of [".well-known", ".well-known/assetlinks.json", "assetlinks.json", ".well-known/apple-app-site-association"]) {
      await expect(site.link({ alias }), alias).rejects.toMatchObject({ fields: { alias: expect.any(Array) } });
    }
  });
});
