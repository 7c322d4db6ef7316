import type { Domain, DomainDetail, Link, Pixel, Space, User } from "@shortener/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { DomainDetailJson, DomainJson, LinkJson, PixelJson, SpaceJson, UserJson } from "../src/openapi/schemas.ts";
import { createSerializers, type Serializers } from "../src/serialize/resources.ts";
import { toUserJson } from "../src/serialize/users.ts";

/** The response schemas of the OpenAPI document against the serialisers that write the responses. */
const json = createSerializers({ shortUrlScheme: undefined });
const at = new Date("2026-11-22T10:00:00.000Z");
const domain: Domain = { id: 3, name: "go.example", indexPage: null, notFoundPage: "https://nf.example/", verifiedAt: at, verificationToken: null, createdAt: at, updatedAt: at };
const unverified: Domain = { ...domain, id: 4, name: "claimed.example:8080", verifiedAt: null, verificationToken: "Tok3n" };
const withAppLinks: DomainDetail = { ...domain, appleAppSiteAssociation: '{"applinks":{}}', assetLinks: null };
const space: Space = { id: 4, name: "Work", color: 2, createdAt: at, updatedAt: at };
const pixel: Pixel = { id: 5, name: "Ads", type: "google-ads", value: "AW-1", createdAt: at, updatedAt: at };
const bare: Link = {
  id: 9,
  workspaceId: 1,
  alias: "abc123",
  url: "https://example.com/",
  title: null,
  targetType: 0,
  countryTarget: null,
  platformTarget: null,
  languageTarget: null,
  rotationTarget: null,
  lastRotation: null,
  disabled: false,
  privacy: 0,
  hasPassword: false,
  hasPrivacyPassword: false,
  expirationUrl: null,
  expirationClicks: 0,
  endsAt: null,
  clicks: 0,
  status: 1,
  space: null,
  domain,
  pixels: [],
  tags: [],
  ogTitle: null,
  ogDescription: null,
  ogImage: null,
  health: "unchecked",
  healthReason: null,
  healthCheckedAt: null,
  createdAt: at,
  updatedAt: at,
};
const full: Link = {
  ...bare,
  title: "Everything",
  targetType: 4,
  countryTarget: [{ key: "US", value: "https://us.example/" }],
  platformTarget: [{ key: "iOS", value: "https://ios.example/" }],
  languageTarget: [{ key: "de", value: "https://de.example/" }],
  rotationTarget: [{ value: "https://a.example/" }, { value: "https://b.example/" }],
  lastRotation: 1,
  disabled: true,
  privacy: 2,
  hasPassword: true,
  hasPrivacyPassword: true,
  expirationUrl: "https://expired.example/",
  expirationClicks: 10,
  endsAt: new Date("2099-01-02T03:04:00.000Z"),
  clicks: 3,
  status: 3,
  space,
  pixels: [pixel],
  tags: ["sale"],
  ogTitle: "Card",
  ogDescription: "Two\nlines",
  ogImage: "https://img.example/card.png",
  health: "broken",
  healthReason: "HTTP 404",
  healthCheckedAt: at,
};
const user: User = { id: 1, email: "a@example.test", name: "A", role: "admin", createdAt: at };

type Keys<T> = keyof T & string;

describe("response schemas (src/openapi/schemas.ts)", () => {
  it("name exactly the fields the serialisers write", () => {
    expectTypeOf<Keys<z.output<typeof LinkJson>>>().toEqualTypeOf<Keys<ReturnType<Serializers["link"]>>>();
    expectTypeOf<Keys<z.output<typeof DomainJson>>>().toEqualTypeOf<Keys<ReturnType<Serializers["domain"]>>>();
    expectTypeOf<Keys<z.output<typeof DomainDetailJson>>>().toEqualTypeOf<Keys<ReturnType<Serializers["domainDetail"]>>>();
    expectTypeOf<Keys<z.output<typeof SpaceJson>>>().toEqualTypeOf<Keys<ReturnType<Serializers["space"]>>>();
    expectTypeOf<Keys<z.output<typeof PixelJson>>>().toEqualTypeOf<Keys<ReturnType<Serializers["pixel"]>>>();
    expectTypeOf<Keys<z.output<typeof UserJson>>>().toEqualTypeOf<Keys<ReturnType<typeof toUserJson>>>();
    // The same checks at run time, for the shapes parsed below.
    expect(Object.keys(LinkJson.shape).sort()).toEqual(Object.keys(json.link(bare)).sort());
  });

  it.each([
    ["a bare link", bare],
    ["a link with every field set", full],
  ])("accept what the serialiser writes for %s", (_name, link) => {
    expect(LinkJson.safeParse(json.link(link)).error).toBeUndefined();
  });

  it("accept the serialised domain, space, pixel and user", () => {
    expect(DomainJson.safeParse(json.domain(domain)).error).toBeUndefined();
    expect(DomainJson.safeParse(json.domain(unverified)).error).toBeUndefined();
    expect(DomainDetailJson.safeParse(json.domainDetail(withAppLinks)).error).toBeUndefined();
    expect(json.domainDetail(withAppLinks)).toMatchObject({ apple_app_site_association: '{"applinks":{}}', asset_links: null });
    expect(DomainJson.safeParse(json.domainDetail(withAppLinks)).success).toBe(false);
    expect(json.domain(domain)).toMatchObject({ verified: true, verification: null });
    expect(json.domain(unverified)).toMatchObject({
      verified: false,
      verification: { type: "TXT", name: "_shortener-challenge.claimed.example", value: "shortener-verify=Tok3n" },
    });
    expect(SpaceJson.safeParse(json.space(space)).error).toBeUndefined();
    expect(PixelJson.safeParse(json.pixel(pixel)).error).toBeUndefined();
    expect(UserJson.safeParse(toUserJson(user)).error).toBeUndefined();
  });

  it("refuse what the contract forbids: strings for integers, empty strings for null, unknown fields", () => {
    const good = json.link(bare);
    expect(LinkJson.safeParse({ ...good, id: "9" }).success).toBe(false);
    expect(LinkJson.safeParse({ ...good, title: "" }).success).toBe(true); // a title may be any string…
    expect(LinkJson.safeParse({ ...good, ends_at: "" }).success).toBe(false); // …but a timestamp is ISO-8601 or null
    expect(LinkJson.safeParse({ ...good, status: 4 }).success).toBe(false);
    expect(LinkJson.safeParse({ ...good, password_hash: "x" }).success).toBe(false);
    const { pixels: _pixels, ...missing } = good;
    expect(LinkJson.safeParse(missing).success).toBe(false);
  });
});
