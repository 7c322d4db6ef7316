import { describe, expect, it } from "vitest";
import { coerceFormValues } from "../src/validation/coerce-form-values.ts";
import { CreateLinkInput, ListLinksInput } from "../src/links/schemas.ts";
import { tagList } from "../src/links/tags.ts";
import { mergeUtm, utmOf } from "../src/links/utm.ts";
import { chooseDestination, isWeightedRotation, weightedIndex } from "../src/targeting/choose-destination.ts";
import type { FieldErrors } from "../src/errors.ts";

/* CONTRACT §25: the pure rules of tags, UTM merging and weighted picks (docs/link-features.md). */

describe("mergeUtm", () => {
  const cases: Array<[string, string, Record<string, string | null>, string]> = [
    ["appends to a url without a query", "https://a.example/p", { utm_source: "news" }, "https://a.example/p?utm_source=news"],
    ["keeps the fragment after the query", "https://a.example/p#frag", { utm_medium: "email" }, "https://a.example/p?utm_medium=email#frag"],
    ["replaces in place, drops later copies", "https://a.example/?utm_source=a&x=1&utm_source=b", { utm_source: "c" }, "https://a.example/?utm_source=c&x=1"],
    ["keeps other parameters byte for byte", "https://a.example/?q=a%20b&e=&flag&plus=a+b", { utm_term: "t" }, "https://a.example/?q=a%20b&e=&flag&plus=a+b&utm_term=t"],
    ["percent-encodes the value", "https://a.example/", { utm_campaign: "fall/26 & more" }, "https://a.example/?utm_campaign=fall%2F26%20%26%20more"],
    ["removes a cleared one", "https://a.example/?utm_source=a&k=v", { utm_source: null }, "https://a.example/?k=v"],
    ["removes the last parameter and the ?", "https://a.example/?utm_source=a#f", { utm_source: null }, "https://a.example/#f"],
    ["matches an encoded name", "https://a.example/?utm%5Fsource=a", { utm_source: "b" }, "https://a.example/?utm_source=b"],
    ["appends in the fields' order", "https://a.example/", { utm_content: "c", utm_source: "s" }, "https://a.example/?utm_source=s&utm_content=c"],
    ["leaves a url alone when nothing is sent", "https://a.example/?utm_source=a", {}, "https://a.example/?utm_source=a"],
  ];
  it.each(cases)("%s", (_name, url, sent, expected) => {
    const errors: FieldErrors = {};
    expect(mergeUtm(url, sent, errors)).toBe(expected);
    expect(errors).toEqual({});
  });

  it("refuses a merge that makes the url longer than 2048 characters, on url, and leaves the url as it was", () => {
    const errors: FieldErrors = {};
    const url = `https://a.example/${"x".repeat(2000)}`;
    expect(mergeUtm(url, { utm_source: "s".repeat(100) }, errors)).toBe(url);
    expect(errors.url?.[0]).toMatch(/^The url with its UTM parameters must not be greater than 2048 characters\.$/);
  });

  it("utmOf reads the first of each parameter back, decoded, null when absent", () => {
    expect(utmOf("https://a.example/?utm_source=a%20b&utm_source=x")).toEqual({ utm_source: "a b", utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null });
    expect(utmOf("https://a.example/")).toEqual({ utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null });
  });
});

describe("tags", () => {
  it("a comma list from a form becomes the list; copies by case merge; the first spelling stays", () => {
    const form = coerceFormValues(CreateLinkInput, { tags: "One, two,ONE" }) as { tags: string[] };
    expect(form.tags).toEqual(["One", " two", "ONE"]);
    expect(tagList.parse(form.tags)).toEqual(["One", "two"]);
    expect((coerceFormValues(ListLinksInput, { tag: "a,B" }) as { tag: string[] }).tag).toEqual(["a", "B"]);
    expect(ListLinksInput.parse({ tag: ["a", "B", "b"] }).tag).toEqual(["a", "b"]);
  });

  it("twenty distinct tags pass; copies of one tag count once against the limit", () => {
    expect(tagList.parse(Array.from({ length: 20 }, (_, i) => `t${i}`))).toHaveLength(20);
    expect(tagList.parse([...Array.from({ length: 20 }, (_, i) => `t${i}`), "T0", "t1"])).toHaveLength(20);
    expect(tagList.safeParse(Array.from({ length: 21 }, (_, i) => `t${i}`)).success).toBe(false);
    expect(tagList.parse(["x".repeat(32), "🎉".repeat(32)])).toHaveLength(2);
    expect(tagList.safeParse(["🎉".repeat(33)]).success).toBe(false);
  });
});

describe("weighted rotation", () => {
  const link = { url: "https://fallback.example/", targetType: 4, countryTarget: null, platformTarget: null, languageTarget: null };
  const entries = [
    { value: "https://a.example/", weight: 3 },
    { value: "https://b.example/", weight: 1 },
  ];

  it("places the visitor's hash on the cumulative weights; the same hash always gets the same entry", () => {
    expect(weightedIndex(entries, "0000000000000000")).toBe(0);
    expect(weightedIndex(entries, "bfffffff00000000")).toBe(0);
    expect(weightedIndex(entries, "c000000000000000")).toBe(1);
    expect(weightedIndex(entries, "ffffffffffffffff")).toBe(1);
    const choice = chooseDestination({ ...link, rotationTarget: entries }, { country: null, platform: null, languages: [] }, 0, "c000000000000000");
    expect(choice).toEqual({ url: "https://b.example/", rotation: 1 });
  });

  it("hashes spread over the weights as the weights say", () => {
    const counts = [0, 0];
    for (let i = 0; i < 65_536; i++) {
      const index = weightedIndex(entries, (i * 65_536).toString(16).padStart(8, "0"));
      counts[index] = (counts[index] ?? 0) + 1;
    }
    expect(counts).toEqual([49_152, 16_384]);
  });

  it("only a rotation whose entries carry weights is weighted; others keep the round-robin", () => {
    expect(isWeightedRotation({ targetType: 4, rotationTarget: entries })).toBe(true);
    expect(isWeightedRotation({ targetType: 4, rotationTarget: [{ value: "https://a.example/" }] })).toBe(false);
    expect(isWeightedRotation({ targetType: 1, rotationTarget: entries })).toBe(false);
    const plain = { ...link, rotationTarget: [{ value: "https://a.example/" }, { value: "https://b.example/" }] };
    expect(chooseDestination(plain, { country: null, platform: null, languages: [] }, 3, "ffffffffffffffff")).toEqual({ url: "https://b.example/", rotation: 1 });
  });
});
