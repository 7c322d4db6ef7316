import { afterEach, describe, expect, it } from "vitest";
import { createBitlySource } from "../src/migrate/bitly.ts";
import { createDubSource } from "../src/migrate/dub.ts";
import { createSourceHttp } from "../src/migrate/http.ts";
import { createKuttSource } from "../src/migrate/kutt.ts";
import { createShlinkSource } from "../src/migrate/shlink.ts";
import type { Source, SourceLink, SourceOptions } from "../src/migrate/source.ts";
import { createYourlsSource } from "../src/migrate/yourls.ts";
import { startBitlyFake } from "./fake-sources/bitly.ts";
import { startDubFake } from "./fake-sources/dub.ts";
import type { Fake } from "./fake-sources/http-fake.ts";
import { startKuttFake } from "./fake-sources/kutt.ts";
import { seeds, type Seed } from "./fake-sources/seed.ts";
import { startShlinkFake } from "./fake-sources/shlink.ts";
import { startYourlsFake } from "./fake-sources/yourls.ts";

/** What each source carries beyond the common fields: expirations, passwords, redirect rules as §7 targeting, per-day clicks, and the notes for what it cannot. */

const KEY = "k3y";
const fakes: Fake[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function all(create: (o: SourceOptions) => Source, url: string, key = KEY): Promise<SourceLink[]> {
  const src = create({ url, key, http: createSourceHttp({ baseUrl: url, tries: 3, baseDelayMs: 1, maxDelayMs: 5 }) });
  const links: SourceLink[] = [];
  let cursor: string | null = null;
  do {
    const page = await src.page(cursor);
    links.push(...page.links);
    cursor = page.next;
  } while (cursor !== null);
  return links;
}

function one(prefix: string, extra: Record<string, unknown>, overrides: Partial<Seed> = {}): Seed {
  const [seed] = seeds(1, prefix) as [Seed];
  return { ...seed, ...overrides, extra };
}

function find(links: SourceLink[], alias: string): SourceLink {
  const link = links.find((l) => l.alias === alias);
  if (!link) throw new Error(`no link ${alias} among ${links.map((l) => l.alias).join(", ")}`);
  return link;
}

describe("shlink", () => {
  it("maps redirect rules to §7 targeting in priority order and notes the rest", async () => {
    const rules = {
      r0000: [
        { longUrl: "https://a.example/android", priority: 1, conditions: [{ type: "device", matchKey: null, matchValue: "android" }] },
        { longUrl: "https://a.example/ios", priority: 2, conditions: [{ type: "device", matchKey: null, matchValue: "ios" }] },
        { longUrl: "https://a.example/desk", priority: 3, conditions: [{ type: "device", matchKey: null, matchValue: "desktop" }] },
        { longUrl: "https://a.example/android-2", priority: 4, conditions: [{ type: "device", matchKey: null, matchValue: "android" }] },
        { longUrl: "https://a.example/en", priority: 5, conditions: [{ type: "language", matchKey: null, matchValue: "en-US" }] },
        { longUrl: "https://a.example/fr", priority: 6, conditions: [{ type: "language", matchKey: null, matchValue: "fr" }] },
        { longUrl: "https://a.example/de", priority: 7, conditions: [{ type: "geolocation-country-code", matchKey: null, matchValue: "de" }] },
        { longUrl: "https://a.example/q", priority: 8, conditions: [{ type: "query-param", matchKey: "foo", matchValue: "bar" }] },
        {
          longUrl: "https://a.example/both",
          priority: 9,
          conditions: [
            { type: "device", matchKey: null, matchValue: "ios" },
            { type: "language", matchKey: null, matchValue: "es" },
          ],
        },
      ],
    };
    const seed = one("r", { meta: { validSince: "2024-01-01T00:00:00+00:00", validUntil: "2030-05-01T10:00:00+02:00", maxVisits: 500 }, forwardQuery: false }, { domain: "go.example" });
    const fake = await startShlinkFake({ key: KEY, links: [seed, one("plain", {})], rules });
    fakes.push(fake);
    const links = await all(createShlinkSource, fake.url);
    const link = find(links, "r0000");
    expect(link.platformTarget).toEqual([
      { key: "Android", value: "https://a.example/android" },
      { key: "iOS", value: "https://a.example/ios" },
      ...["Windows", "OS X", "Linux", "Ubuntu", "Chrome OS"].map((key) => ({ key, value: "https://a.example/desk" })),
    ]);
    expect(link.languageTarget).toEqual([
      { key: "en", value: "https://a.example/en" },
      { key: "fr", value: "https://a.example/fr" },
    ]);
    expect(link.countryTarget).toEqual([{ key: "DE", value: "https://a.example/de" }]);
    expect(link.endsAt).toEqual(new Date("2030-05-01T08:00:00Z"));
    expect(link.expirationClicks).toBe(500);
    expect(link.domain).toBe("go.example");
    const notes = (link.notes ?? []).join("\n");
    expect(notes).toMatch(/redirect rule 4: shadowed/);
    expect(notes).toMatch(/en-US carried as en/);
    expect(notes).toMatch(/redirect rule 8: a query-param condition has no §7 equivalent/);
    expect(notes).toMatch(/redirect rule 9: 2 conditions/);
    expect(notes).toMatch(/validSince/);
    expect(notes).toMatch(/forwardQuery off/);
    // The rules were asked for on the link's own domain, and only for the link that has some.
    const ruleRequests = fake.requests.filter((r) => r.path.endsWith("/redirect-rules"));
    expect(ruleRequests.map((r) => [r.path, r.query.get("domain")])).toEqual([["/rest/v3/short-urls/r0000/redirect-rules", "go.example"]]);
    expect(find(links, "plain0000").platformTarget).toBeUndefined();
  });

  it("counts human visits (nonBots), falls back to the older visitsCount, and reads Shlink 3's device long URLs", async () => {
    const legacy = one("old", { visitsSummary: undefined, visitsCount: 41, hasRedirectRules: undefined, deviceLongUrls: { android: "https://a.example/a", ios: null, desktop: null } });
    const fake = await startShlinkFake({ key: KEY, links: [legacy, one("new", {}, { clicks: 9 })] });
    fakes.push(fake);
    const links = await all(createShlinkSource, fake.url);
    expect(find(links, "new0000").clicks).toBe(9);
    expect(find(links, "old0000").clicks).toBe(41);
    expect(find(links, "old0000").platformTarget).toEqual([{ key: "Android", value: "https://a.example/a" }]);
  });

  it("never asks for the rules of a short code that would climb out of its path", async () => {
    const fake = await startShlinkFake({ key: KEY, links: [one("x", { shortCode: "..", hasRedirectRules: true })] });
    fakes.push(fake);
    const [link] = await all(createShlinkSource, fake.url);
    expect(link?.alias).toBe("..");
    expect(link?.notes).toContain("redirect rules: not read (no usable short code)");
    expect(fake.requests.filter((r) => !r.path.startsWith("/rest/v3/short-urls"))).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("yourls", () => {
  it("takes --url as the site or as yourls-api.php itself, and a username:password key", async () => {
    const fake = await startYourlsFake({ signature: "sig", user: { username: "admin", password: "p:ss" }, links: seeds(3) });
    fakes.push(fake);
    const viaSite = await all(createYourlsSource, `${fake.url}/yourls/`, "sig");
    const viaScript = await all(createYourlsSource, `${fake.url}/yourls/yourls-api.php`, "sig");
    const viaLogin = await all(createYourlsSource, `${fake.url}/yourls`, "admin:p:ss");
    expect(viaSite.map((l) => l.alias).sort()).toEqual(["s0000", "s0001", "s0002"]);
    expect(viaScript).toEqual(viaSite);
    expect(viaLogin).toEqual(viaSite);
    const signed = fake.requests.find((r) => r.query.has("signature"));
    expect(signed?.query.get("action")).toBe("stats");
    expect(signed?.query.get("filter")).toBe("last");
    expect(fake.requests.find((r) => r.query.has("username"))?.query.get("password")).toBe("p:ss");
  });

  it("reads an empty YOURLS (no links field) as one empty last page", async () => {
    const fake = await startYourlsFake({ signature: KEY, links: [] });
    fakes.push(fake);
    const src = createYourlsSource({ url: `${fake.url}/yourls`, key: KEY, http: createSourceHttp({ baseUrl: `${fake.url}/yourls` }) });
    expect(await src.page(null)).toEqual({ links: [], next: null, total: 0 });
  });
});

describe("kutt", () => {
  it("carries a password-protected or banned link disabled, with the reason, and the expiry and domain", async () => {
    const links = [one("pw", { password: true }), one("ban", { banned: true }), one("exp", { expire_in: "2031-02-03T04:05:06.000Z" }, { domain: "k.example" })];
    const fake = await startKuttFake({ key: KEY, links });
    fakes.push(fake);
    const got = await all(createKuttSource, fake.url);
    expect(find(got, "pw0000")).toMatchObject({ disabled: true, notes: [expect.stringMatching(/password-protected in Kutt/)] });
    expect(find(got, "pw0000").password).toBeUndefined();
    expect(find(got, "ban0000")).toMatchObject({ disabled: true, notes: ["banned in Kutt: carried disabled"] });
    expect(find(got, "exp0000")).toMatchObject({ endsAt: new Date("2031-02-03T04:05:06Z"), domain: "k.example" });
    expect(find(got, "exp0000").disabled).toBeUndefined();
    expect(fake.requests.every((r) => r.query.get("limit") === "50")).toBe(true);
  });
});

describe("dub", () => {
  it("walks the links outside folders, then each folder, archived ones included", async () => {
    const links = [
      ...seeds(150, "root"),
      ...seeds(120, "fa").map((s) => ({ ...s, extra: { folderId: "fold_a" } })),
      ...seeds(3, "fb").map((s) => ({ ...s, extra: { folderId: "fold_b", archived: true } })),
    ];
    const fake = await startDubFake({ key: KEY, links, folders: ["fold_b", "fold_a"] });
    fakes.push(fake);
    const got = await all(createDubSource, fake.url);
    expect(got.map((l) => l.alias).sort()).toEqual(links.map((l) => l.alias).sort());
    expect(find(got, "fb0001").notes).toEqual(["archived in Dub (it still redirects there): carried as an ordinary link"]);
    const asked = fake.requests.filter((r) => r.path === "/links");
    expect(asked.every((r) => r.query.get("showArchived") === "true" && r.query.get("pageSize") === "100")).toBe(true);
    expect(asked.map((r) => r.query.get("folderId"))).toEqual([null, null, "fold_a", "fold_a", "fold_b"]);
  });

  it("maps geo, iOS and Android to §7 targeting and carries password, expiry and disabled", async () => {
    const link = one("t", {
      geo: { us: "https://a.example/us", FR: "https://a.example/fr" },
      ios: "https://a.example/ios",
      android: "https://a.example/android",
      password: "open sesame",
      expiresAt: "2030-01-01T00:00:00.000Z",
      expiredUrl: "https://a.example/gone",
      disabledAt: "2024-05-05T00:00:00.000Z",
      rewrite: true,
      testVariants: [{ url: "https://a.example/b", percentage: 50 }],
    });
    const fake = await startDubFake({ key: KEY, links: [link, one("root", {}, { alias: "_root" })] });
    fakes.push(fake);
    const got = await all(createDubSource, fake.url);
    expect(find(got, "t0000")).toMatchObject({
      countryTarget: [
        { key: "US", value: "https://a.example/us" },
        { key: "FR", value: "https://a.example/fr" },
      ],
      platformTarget: [
        { key: "iOS", value: "https://a.example/ios" },
        { key: "Android", value: "https://a.example/android" },
      ],
      password: "open sesame",
      endsAt: new Date("2030-01-01T00:00:00Z"),
      expirationUrl: "https://a.example/gone",
      disabled: true,
      notes: ["link cloaking (rewrite) not carried", "A/B test variants not carried"],
    });
    expect(find(got, "_root").notes?.[0]).toMatch(/root-domain link/);
  });
});

describe("bitly", () => {
  it("carries per-day clicks, custom back-halves as their own aliases, and reads the group from --key", async () => {
    const link = {
      ...one("b", { custom_bitlinks: ["brand.example/launch", "bit.ly/b0000"], deeplinks: [{ os: "ios", app_uri_path: "/x" }] }),
      clicksByDay: { "2024-03-01": 4, "2024-03-02": 0, "2024-03-05": 2 },
    };
    const fake = await startBitlyFake({ token: "tok", group: "Gxyz", links: [link] });
    fakes.push(fake);
    const got = await all(createBitlySource, fake.url, "tok:Gxyz");
    expect(find(got, "b0000")).toMatchObject({ domain: "bit.ly", clicks: 6, clicksByDay: { "2024-03-01": 4, "2024-03-05": 2 }, notes: ["mobile app deep links not carried"] });
    expect(find(got, "launch")).toMatchObject({ domain: "brand.example", url: link.url, notes: ["custom back-half of bit.ly/b0000 (its clicks are carried on that link)"] });
    expect(find(got, "launch").clicks).toBeUndefined();
    expect(got).toHaveLength(2);
    expect(fake.requests.some((r) => r.path === "/v4/user")).toBe(false);
    expect(fake.requests.find((r) => r.path.endsWith("/clicks"))?.query.get("unit")).toBe("day");
  });

  it("asks Bitly for the default group when --key has none, and notes clicks a plan does not give", async () => {
    const fake = await startBitlyFake({ token: KEY, links: seeds(2) });
    fakes.push(fake);
    fake.failNext(1, { status: 402, json: { message: "UPGRADE_REQUIRED", resource: "bitlinks", description: "" } }, (r) => r.path.endsWith("/clicks"));
    const got = await all(createBitlySource, fake.url);
    expect(fake.requests[0]?.path).toBe("/v4/user");
    expect(got).toHaveLength(2);
    expect(got.filter((l) => l.notes?.includes("clicks not read (Bitly answered 402)"))).toHaveLength(1);
  });
});
