import { describe, expect, it } from "vitest";
import { chooseDestination, mergeQuery, parseAcceptLanguage, TARGET_TYPES, visitorFactsFor, type TargetedLink, type VisitTraits } from "../src/index.ts";

/** Pure tests of targeting/ (CONTRACT §7 steps 8–9): no database, no server. */
const DEFAULT = "https://example.com/default";

function link(overrides: Partial<TargetedLink>): TargetedLink {
  return { url: DEFAULT, targetType: TARGET_TYPES.none, countryTarget: null, platformTarget: null, languageTarget: null, rotationTarget: null, ...overrides };
}

const visitor = (overrides: Partial<VisitTraits> = {}): VisitTraits => ({ country: null, platform: null, languages: [], ...overrides });

const byCountry = link({
  targetType: TARGET_TYPES.country,
  countryTarget: [
    { key: "US", value: "https://example.com/us" },
    { key: "DE", value: "https://example.com/de" },
  ],
});
const byPlatform = link({ targetType: TARGET_TYPES.platform, platformTarget: [{ key: "iOS", value: "https://example.com/ios" }] });
const byLanguage = link({
  targetType: TARGET_TYPES.language,
  languageTarget: [
    { key: "fr", value: "https://example.com/fr" },
    { key: "de", value: "https://example.com/de" },
  ],
});
const rotating = link({ targetType: TARGET_TYPES.rotation, rotationTarget: [{ value: "https://example.com/a" }, { value: "https://example.com/b" }, { value: "https://example.com/c" }] });

describe("chooseDestination", () => {
  it.each([
    ["no targeting", link({}), visitor({ country: "US", platform: "iOS", languages: ["fr"] }), DEFAULT],
    ["a targeted country", byCountry, visitor({ country: "DE" }), "https://example.com/de"],
    ["another country", byCountry, visitor({ country: "FR" }), DEFAULT],
    ["an unknown country", byCountry, visitor(), DEFAULT],
    ["country entries ignored for another type", { ...byCountry, targetType: TARGET_TYPES.platform }, visitor({ country: "US" }), DEFAULT],
    ["a targeted platform", byPlatform, visitor({ platform: "iOS" }), "https://example.com/ios"],
    ["another platform", byPlatform, visitor({ platform: "Android" }), DEFAULT],
    ["the first language that has an entry", byLanguage, visitor({ languages: ["es", "de", "fr"] }), "https://example.com/de"],
    ["no language with an entry", byLanguage, visitor({ languages: ["es"] }), DEFAULT],
    ["no languages at all", byLanguage, visitor(), DEFAULT],
    ["a type with no entries", link({ targetType: TARGET_TYPES.country }), visitor({ country: "US" }), DEFAULT],
    ["an unknown type", link({ targetType: 9 }), visitor({ country: "US" }), DEFAULT],
  ])("%s", (_name, target, traits, expected) => {
    expect(chooseDestination(target, traits, 0)).toEqual({ url: expected, rotation: null });
  });

  it("rotates round-robin, from any counter value, and says which entry it served", () => {
    const served = [0, 1, 2, 3, 4, -1, 3_000_000_001].map((i) => chooseDestination(rotating, visitor(), i));
    expect(served.map((s) => s.rotation)).toEqual([0, 1, 2, 0, 1, 2, 1]);
    expect(served.map((s) => s.url.slice(-1))).toEqual(["a", "b", "c", "a", "b", "c", "b"]);
  });

  it("an empty rotation serves the link's url", () => {
    expect(chooseDestination(link({ targetType: TARGET_TYPES.rotation, rotationTarget: [] }), visitor(), 5)).toEqual({ url: DEFAULT, rotation: null });
  });
});

describe("visitorFactsFor: what the visitor side must look up for a target type", () => {
  it.each([
    [TARGET_TYPES.none, { country: false, platform: false, languages: false, rotation: false }],
    [TARGET_TYPES.country, { country: true, platform: false, languages: false, rotation: false }],
    [TARGET_TYPES.platform, { country: false, platform: true, languages: false, rotation: false }],
    [TARGET_TYPES.language, { country: false, platform: false, languages: true, rotation: false }],
    [TARGET_TYPES.rotation, { country: false, platform: false, languages: false, rotation: true }],
    [42, { country: false, platform: false, languages: false, rotation: false }],
  ])("type %i", (type, facts) => {
    expect(visitorFactsFor(type)).toEqual(facts);
  });

  it("without the facts it names, a targeted link falls back to its url: they are exactly what chooseDestination reads", () => {
    const cases: Array<[TargetedLink, VisitTraits]> = [
      [byCountry, visitor({ country: "US" })],
      [byPlatform, visitor({ platform: "iOS" })],
      [byLanguage, visitor({ languages: ["fr"] })],
    ];
    for (const [target, traits] of cases) {
      const needs = visitorFactsFor(target.targetType);
      expect(chooseDestination(target, traits, 0).url).not.toBe(DEFAULT);
      const without = visitor({
        country: needs.country ? null : traits.country,
        platform: needs.platform ? null : traits.platform,
        languages: needs.languages ? [] : traits.languages,
      });
      expect(chooseDestination(target, without, 0).url).toBe(DEFAULT);
    }
    expect(chooseDestination(rotating, visitor(), visitorFactsFor(rotating.targetType).rotation ? 1 : 0).rotation).toBe(1);
  });
});

describe("parseAcceptLanguage", () => {
  it.each([
    [undefined, []],
    ["", []],
    ["fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", ["fr", "en", "de"]],
    ["en;q=0.5, de", ["de", "en"]],
    ["de;q=0, en", ["en"]],
    ["xx-YY;q=2, en", ["en"]],
    ["EN-us, en-GB", ["en"]],
    ["123, e, english", []],
  ])("%j → %j", (header, expected) => {
    expect(parseAcceptLanguage(header)).toEqual(expected);
  });
});

describe("mergeQuery", () => {
  it.each([
    ["https://example.com/p?a=1", "", "https://example.com/p?a=1"],
    ["https://example.com/p?a=1&b=2", "a=9", "https://example.com/p?b=2&a=9"],
    ["https://example.com/p#frag", "x=1&x=2", "https://example.com/p?x=1&x=2#frag"],
    ["https://example.com/p", "q=a%20b", "https://example.com/p?q=a+b"],
  ])("%s + %s → %s", (destination, query, expected) => {
    expect(mergeQuery(destination, query)).toBe(expected);
  });
});
