import { eq } from "drizzle-orm";
import { links } from "@shortener/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, createTestApi, type TestApi } from "./helpers.ts";

let api: TestApi;
let owner: Awaited<ReturnType<typeof createOwner>>;
let other: Awaited<ReturnType<typeof createOwner>>;
beforeAll(async () => {
  api = await createTestApi();
  owner = await createOwner(api);
  // An admin's domain is verified, so it serves: the loop rule counts it for everyone (CONTRACT §14).
  other = await createOwner(api, "admin");
});
afterAll(async () => {
  await api?.close();
});

type Form = Record<string, string | string[]>;
const base = (): Form => ({ url: "https://dest.example/landing", domain_id: String(owner.domain.id) });
const create = (form: Form) => api.call(owner.user, "POST", "/api/v1/links", form);
const indexed = (group: string, entries: Array<Record<string, string>>) => Object.fromEntries(entries.flatMap((e, i) => Object.entries(e).map(([k, v]) => [`${group}[${i}][${k}]`, v])));
const future = new Date(Date.now() + 86_400_000 * 30).toISOString().slice(0, 10);

describe("creating a link: every rule of CONTRACT §4 refuses bad input with a 422 naming the field", () => {
  const cases: Array<[string, () => Form, string]> = [
    ["url missing", () => ({ domain_id: String(owner.domain.id) }), "url"],
    ["url empty", () => ({ ...base(), url: "" }), "url"],
    ["url javascript:", () => ({ ...base(), url: "javascript:alert(document.cookie)" }), "url"],
    ["url data:", () => ({ ...base(), url: "data:text/html;base64,PHNjcmlwdD4=" }), "url"],
    ["url file:", () => ({ ...base(), url: "file:///etc/passwd" }), "url"],
    ["url ftp:", () => ({ ...base(), url: "ftp://files.example/" }), "url"],
    ["url relative", () => ({ ...base(), url: "/just/a/path" }), "url"],
    ["url scheme-relative", () => ({ ...base(), url: "//evil.example/" }), "url"],
    ["url with a space", () => ({ ...base(), url: "https://a.example/b c" }), "url"],
    ["url with CRLF (header injection)", () => ({ ...base(), url: "https://a.example/\r\nSet-Cookie: x=1" }), "url"],
    ["url with a NUL", () => ({ ...base(), url: "https://a.example/\u0000" }), "url"],
    ["url with a right-to-left override", () => ({ ...base(), url: "https://a.example/\u202Egnp.exe" }), "url"],
    ["url with credentials", () => ({ ...base(), url: "https://paypal.com@evil.example/" }), "url"],
    ["url over 2048 characters", () => ({ ...base(), url: `https://a.example/${"x".repeat(2040)}` }), "url"],
    ["url on the caller's own domain (loop)", () => ({ ...base(), url: `http://${owner.domain.name}/x` }), "url"],
    ["url on another user's domain (loop)", () => ({ ...base(), url: `https://${other.domain.name.toUpperCase()}/x` }), "url"],
    ["url as a list", () => ({ ...base(), "url[]": "https://a.example/" }), "url"],
    ["domain_id missing", () => ({ url: "https://a.example/" }), "domain_id"],
    ["domain_id not a number", () => ({ ...base(), domain_id: "abc" }), "domain_id"],
    ["domain_id negative", () => ({ ...base(), domain_id: "-1" }), "domain_id"],
    ["domain_id huge", () => ({ ...base(), domain_id: "99999999999999999999" }), "domain_id"],
    ["domain_id of another user", () => ({ ...base(), domain_id: String(other.domain.id) }), "domain_id"],
    ["domain_id SQL", () => ({ ...base(), domain_id: "1 OR 1=1" }), "domain_id"],
    ["alias with a slash", () => ({ ...base(), alias: "a/b" }), "alias"],
    ["alias with a dot", () => ({ ...base(), alias: "a.b" }), "alias"],
    ["alias with dots only", () => ({ ...base(), alias: ".." }), "alias"],
    ["alias with unicode", () => ({ ...base(), alias: "ünïcødé" }), "alias"],
    ["alias with a space", () => ({ ...base(), alias: "a b" }), "alias"],
    ["alias with a quote", () => ({ ...base(), alias: "a'b" }), "alias"],
    ["alias over 255 characters", () => ({ ...base(), alias: "a".repeat(256) }), "alias"],
    ["alias api (reserved)", () => ({ ...base(), alias: "api" }), "alias"],
    ["alias API (reserved, any case)", () => ({ ...base(), alias: "API" }), "alias"],
    ["alias trpc (reserved)", () => ({ ...base(), alias: "trpc" }), "alias"],
    ["alias stats (reserved)", () => ({ ...base(), alias: "stats" }), "alias"],
    ["alias healthz (reserved)", () => ({ ...base(), alias: "healthz" }), "alias"],
    ["alias readyz (reserved)", () => ({ ...base(), alias: "readyz" }), "alias"],
    ["alias app (reserved for the dashboard, CONTRACT §4)", () => ({ ...base(), alias: "app" }), "alias"],
    ["password over 128 characters", () => ({ ...base(), password: "p".repeat(129) }), "password"],
    ["space_id of another user", () => ({ ...base(), space_id: String(other.space.id) }), "space_id"],
    ["space_id not a number", () => ({ ...base(), space_id: "x" }), "space_id"],
    ["pixel_ids of another user", () => ({ ...base(), "pixel_ids[]": [String(owner.pixel.id), String(other.pixel.id)] }), "pixel_ids"],
    ["pixel_ids with junk", () => ({ ...base(), pixel_ids: `${owner.pixel.id},abc` }), "pixel_ids.1"],
    ["pixel_ids unknown", () => ({ ...base(), "pixel_ids[0]": "2000000000" }), "pixel_ids"],
    ["disabled 2", () => ({ ...base(), disabled: "2" }), "disabled"],
    ["disabled yes", () => ({ ...base(), disabled: "yes" }), "disabled"],
    ["privacy 3", () => ({ ...base(), privacy: "3" }), "privacy"],
    ["privacy 2 without a privacy password", () => ({ ...base(), privacy: "2" }), "privacy_password"],
    ["privacy password over 128", () => ({ ...base(), privacy: "2", privacy_password: "p".repeat(129) }), "privacy_password"],
    ["expiration_url javascript:", () => ({ ...base(), expiration_url: "javascript:void(0)" }), "expiration_url"],
    ["expiration_url loop", () => ({ ...base(), expiration_url: `http://${owner.domain.name}/` }), "expiration_url"],
    ["expiration_date month 13", () => ({ ...base(), expiration_date: "2099-13-01" }), "expiration_date"],
    ["expiration_date February 30", () => ({ ...base(), expiration_date: "2099-02-30" }), "expiration_date"],
    ["expiration_date in another format", () => ({ ...base(), expiration_date: "01/02/2099" }), "expiration_date"],
    ["expiration_date in the past", () => ({ ...base(), expiration_date: "2020-01-01" }), "expiration_date"],
    ["expiration_time 25:00", () => ({ ...base(), expiration_date: future, expiration_time: "25:00" }), "expiration_time"],
    ["expiration_time with seconds", () => ({ ...base(), expiration_date: future, expiration_time: "10:00:00" }), "expiration_time"],
    ["expiration_time without a date", () => ({ ...base(), expiration_time: "10:00" }), "expiration_time"],
    ["expiration_clicks negative", () => ({ ...base(), expiration_clicks: "-1" }), "expiration_clicks"],
    ["expiration_clicks too large", () => ({ ...base(), expiration_clicks: "1000000000" }), "expiration_clicks"],
    ["expiration_clicks fractional", () => ({ ...base(), expiration_clicks: "1.5" }), "expiration_clicks"],
    ["target_type 5", () => ({ ...base(), target_type: "5" }), "target_type"],
    ["target_type 1 without countries", () => ({ ...base(), target_type: "1" }), "country"],
    ["target_type 2 without platforms", () => ({ ...base(), target_type: "2" }), "platform"],
    ["target_type 3 without languages", () => ({ ...base(), target_type: "3" }), "language"],
    ["target_type 4 without rotation", () => ({ ...base(), target_type: "4" }), "rotation"],
    ["country ZZ", () => ({ ...base(), target_type: "1", ...indexed("country", [{ key: "ZZ", value: "https://a.example/" }]) }), "country.0.key"],
    ["country USA (alpha-3)", () => ({ ...base(), target_type: "1", ...indexed("country", [{ key: "USA", value: "https://a.example/" }]) }), "country.0.key"],
    ["country value javascript:", () => ({ ...base(), target_type: "1", ...indexed("country", [{ key: "US", value: "javascript:x" }]) }), "country.0.value"],
    ["country value missing", () => ({ ...base(), target_type: "1", "country[0][key]": "US" }), "country.0.value"],
    [
      "country twice",
      () => ({
        ...base(),
        target_type: "1",
        ...indexed("country", [
          { key: "us", value: "https://a.example/" },
          { key: "US", value: "https://b.example/" },
        ]),
      }),
      "country.1.key",
    ],
    ["platform unknown", () => ({ ...base(), target_type: "2", ...indexed("platform", [{ key: "Windows 95", value: "https://a.example/" }]) }), "platform.0.key"],
    ["language english", () => ({ ...base(), target_type: "3", ...indexed("language", [{ key: "english", value: "https://a.example/" }]) }), "language.0.key"],
    ["language xx", () => ({ ...base(), target_type: "3", ...indexed("language", [{ key: "xx", value: "https://a.example/" }]) }), "language.0.key"],
    ["rotation loop", () => ({ ...base(), target_type: "4", ...indexed("rotation", [{ value: `http://${owner.domain.name}/a` }]) }), "rotation.0.value"],
    [
      "101 rotation entries",
      () => ({
        ...base(),
        target_type: "4",
        ...indexed(
          "rotation",
          Array.from({ length: 101 }, (_, i) => ({ value: `https://r${i}.example/` })),
        ),
      }),
      "rotation",
    ],
    ["a group as a plain string", () => ({ ...base(), target_type: "1", country: "US" }), "country"],
    ["title over 255", () => ({ ...base(), title: "t".repeat(256) }), "title"],
  ];

  it.each(cases)("%s", async (_name, form, field) => {
    const res = await create(form());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_failed");
    expect(Object.keys(res.body.message)).toContain(field);
    for (const messages of Object.values(res.body.message as Record<string, string[]>)) {
      for (const m of messages) expect(m).toMatch(/^The .+\.$/);
    }
  });

  it("reports every failing field at once", async () => {
    const res = await create({
      url: "javascript:x",
      domain_id: String(other.domain.id),
      alias: "a/b",
      disabled: "9",
      privacy: "2",
      expiration_clicks: "-5",
      expiration_time: "10:00",
      target_type: "1",
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message).sort()).toEqual(["alias", "country", "disabled", "domain_id", "expiration_clicks", "expiration_time", "privacy_password", "url"].sort());
  });

  it("refuses an alias already taken on that domain, but not on another domain", async () => {
    const alias = `taken-${Date.now()}`;
    expect((await create({ ...base(), alias })).status).toBe(201);
    const again = await create({ ...base(), alias });
    expect(again.status).toBe(422);
    expect(again.body.message).toEqual({ alias: ["The alias has already been taken."] });
    const elsewhere = await api.call(other.user, "POST", "/api/v1/links", { url: "https://a.example/", domain_id: String(other.domain.id), alias });
    expect(elsewhere.status).toBe(201);
  });
});

describe("creating a link: what is stored and returned", () => {
  it("a minimal link gets a random base-62 alias and the §3 shape, with null for every unset value", async () => {
    const res = await create(base());
    expect(res.status).toBe(201);
    const link = res.body.data;
    expect(link.alias).toMatch(/^[0-9A-Za-z]{6,}$/);
    expect(link).toEqual({
      id: expect.any(Number),
      alias: link.alias,
      url: "https://dest.example/landing",
      short_url: `https://${owner.domain.name}/${link.alias}`,
      title: null,
      target_type: 0,
      country_target: null,
      platform_target: null,
      language_target: null,
      rotation_target: null,
      last_rotation: null,
      disabled: 0,
      privacy: 0,
      privacy_password: false,
      password: false,
      expiration_url: null,
      expiration_clicks: 0,
      expiration_date: null,
      expiration_time: null,
      ends_at: null,
      clicks: 0,
      status: 1,
      space: null,
      // A link's domain is the domain without its app-link files (CONTRACT §25).
      domain: (({ apple_app_site_association: _a, asset_links: _b, ...rest }) => rest)(owner.domain),
      pixels: [],
      tags: [],
      utm_source: null,
      utm_medium: null,
      utm_campaign: null,
      utm_term: null,
      utm_content: null,
      og_title: null,
      og_description: null,
      og_image: null,
      health: "unchecked",
      health_reason: null,
      health_checked_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/:\s|"\d+"/);
  });

  it("random aliases differ", async () => {
    const aliases = new Set<string>();
    for (let i = 0; i < 20; i++) aliases.add((await create(base())).body.data.alias);
    expect(aliases.size).toBe(20);
  });

  it("stores every field: targeting keys normalised, URLs as punycode, secrets hashed and never returned", async () => {
    const res = await create({
      url: "https://bücher.example/katalog?q=1#top",
      domain_id: String(owner.domain.id),
      alias: "Full_Link-1",
      title: "A title",
      password: "s3cret-link",
      space_id: String(owner.space.id),
      "pixel_ids[]": [String(owner.pixel.id)],
      privacy: "2",
      privacy_password: "s3cret-stats",
      expiration_url: "https://expired.example/",
      expiration_date: future,
      expiration_time: "13:45",
      expiration_clicks: "500",
      target_type: "1",
      ...indexed("country", [
        { key: "us", value: "https://us.example/" },
        { key: "De", value: "https://de.example/" },
      ]),
      ...indexed("platform", [{ key: "ios", value: "https://apps.example/ios" }]),
      ...indexed("language", [{ key: "FR", value: "https://fr.example/" }]),
      ...indexed("rotation", [{ value: "https://r1.example/" }, { value: "https://r2.example/" }]),
    });
    expect(res.status).toBe(201);
    const link = res.body.data;
    expect(link).toMatchObject({
      url: "https://xn--bcher-kva.example/katalog?q=1#top",
      alias: "Full_Link-1",
      title: "A title",
      password: true,
      privacy: 2,
      privacy_password: true,
      expiration_url: "https://expired.example/",
      expiration_date: future,
      expiration_time: "13:45",
      ends_at: `${future}T13:45:00.000Z`,
      expiration_clicks: 500,
      target_type: 1,
      country_target: [
        { key: "US", value: "https://us.example/" },
        { key: "DE", value: "https://de.example/" },
      ],
      platform_target: [{ key: "iOS", value: "https://apps.example/ios" }],
      language_target: [{ key: "fr", value: "https://fr.example/" }],
      rotation_target: [{ value: "https://r1.example/" }, { value: "https://r2.example/" }],
      space: { id: owner.space.id, name: owner.space.name, color: 1 },
      pixels: [{ id: owner.pixel.id, name: "p", type: "facebook", value: "123" }],
    });
    expect(JSON.stringify(res.body)).not.toContain("s3cret");
    const [row] = await api.database.db.select().from(links).where(eq(links.id, link.id));
    expect(row?.passwordHash).toMatch(/^scrypt\$/);
    expect(row?.privacyPasswordHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain("s3cret");
  });

  it.each([
    ["pixel_ids[]", (id: string) => ({ "pixel_ids[]": [id] })],
    ["pixel_ids[0]", (id: string) => ({ "pixel_ids[0]": id })],
    ["pixel_ids comma list", (id: string) => ({ pixel_ids: `${id},${id}` })],
  ])("accepts pixels as %s", async (_name, pixels) => {
    const res = await create({ ...base(), ...pixels(String(owner.pixel.id)) });
    expect(res.status).toBe(201);
    expect(res.body.data.pixels.map((p: { id: number }) => p.id)).toEqual([owner.pixel.id]);
  });

  it("aliases are case-sensitive; a date alone expires at 00:00 UTC; disabled links have status 3", async () => {
    const stamp = Date.now().toString(36);
    expect((await create({ ...base(), alias: `Case${stamp}` })).status).toBe(201);
    expect((await create({ ...base(), alias: `case${stamp}` })).status).toBe(201);
    const dated = await create({ ...base(), expiration_date: future });
    expect(dated.body.data).toMatchObject({ expiration_time: "00:00", ends_at: `${future}T00:00:00.000Z` });
    expect((await create({ ...base(), disabled: "1" })).body.data).toMatchObject({ disabled: 1, status: 3 });
  });

  it("accepts JSON bodies with typed values", async () => {
    const res = await api.app.inject({
      method: "POST",
      url: "/api/v1/links",
      headers: { authorization: `Bearer ${owner.user.apiKey}`, "content-type": "application/json" },
      payload: JSON.stringify({ url: "https://json.example/", domain_id: owner.domain.id, pixel_ids: [owner.pixel.id], target_type: 4, rotation: [{ value: "https://r.example/" }], disabled: 0 }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ target_type: 4, rotation_target: [{ value: "https://r.example/" }], pixels: [{ id: owner.pixel.id }] });
  });
});

describe("concurrency", () => {
  it("20 parallel creates of one alias on one domain: exactly one 201, the rest 422, one row", async () => {
    const alias = `race-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ ...base(), url: `https://race${i}.example/`, alias })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(19);
    for (const r of refused) expect(r.body.message).toEqual({ alias: ["The alias has already been taken."] });
    const rows = await api.database.db.select().from(links).where(eq(links.alias, alias));
    expect(rows).toHaveLength(1);
  });
});
