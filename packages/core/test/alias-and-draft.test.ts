import { describe, expect, it } from "vitest";
import type { FieldErrors } from "../src/errors.ts";
import { isAliasShaped, isReservedAlias, RANDOM_ALIAS_ATTEMPTS, RANDOM_ALIAS_LENGTH, randomAlias, RESERVED_PATHS, SERVICE_PATHS } from "../src/links/alias.ts";
import { draftNewLink } from "../src/links/draft-link.ts";
import { CreateLinkInput, CreateLinkShape } from "../src/links/schemas.ts";
import { coerceFormValues } from "../src/validation/coerce-form-values.ts";
import { parseFields } from "../src/validation/fields.ts";

describe("the alias shape (links/alias.ts): the schema and the visitor side use it", () => {
  it.each([
    ["abc", true],
    ["A-b_9", true],
    ["a".repeat(255), true],
    ["", false],
    ["a".repeat(256), false],
    ["a b", false],
    ["a/b", false],
    ["a.b", false],
    ["ü", false],
    ["%41", false],
    ["a\u0000", false],
  ])("%j → %s", (alias, expected) => {
    expect(isAliasShaped(alias)).toBe(expected);
  });
});

describe("reserved paths", () => {
  it("are the service's own paths plus app (CONTRACT §4), in any case", () => {
    expect([...RESERVED_PATHS].sort()).toEqual(["api", "app", "healthz", "readyz", "stats", "trpc"]);
    for (const path of SERVICE_PATHS) expect(RESERVED_PATHS).toContain(path);
    expect(isReservedAlias("Api")).toBe(true);
    expect(isReservedAlias("APP")).toBe(true);
    expect(isReservedAlias("apps")).toBe(false);
  });
});

describe("the random-alias policy (one for create and import)", () => {
  it("is base-62, at least six characters, one longer every second try", () => {
    const lengths = Array.from({ length: RANDOM_ALIAS_ATTEMPTS }, (_, attempt) => randomAlias(attempt).length);
    expect(lengths).toEqual([6, 6, 7, 7, 8, 8, 9, 9]);
    expect(RANDOM_ALIAS_LENGTH).toBe(6);
    for (let i = 0; i < 50; i++) expect(randomAlias()).toMatch(/^[0-9A-Za-z]{6}$/);
  });

  it("does not repeat itself", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomAlias()));
    expect(seen.size).toBe(1000);
  });

  it("draws every base-62 character alike, across many refills of its pool of random bytes", () => {
    const counts = new Map<string, number>();
    const aliases = Array.from({ length: 20_000 }, () => randomAlias());
    expect(new Set(aliases).size).toBe(aliases.length);
    for (const alias of aliases) for (const c of alias) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 120,000 characters: 1,935 of each expected; a bias (a modulo, a byte reused) shows far beyond ±15 %.
    for (const n of counts.values()) expect(Math.abs(n - 120_000 / 62)).toBeLessThan(0.15 * (120_000 / 62));
  });
});

describe("draftNewLink: one draft builder for create and import", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  // Form values, as REST and import rows send them: coerced to the schema's types first, as they do.
  const draftOf = (input: Record<string, unknown>) => {
    const { values, errors } = parseFields(CreateLinkShape, coerceFormValues(CreateLinkInput, input) as Record<string, unknown>);
    const draft = draftNewLink(values, now, errors);
    return { draft, errors };
  };

  it("fills in every default", () => {
    const { draft, errors } = draftOf({ url: "https://example.com/", domain_id: "4" });
    expect(errors).toEqual({});
    expect(draft).toEqual({
      domainId: 4,
      alias: null,
      url: "https://example.com/",
      title: null,
      password: null,
      privacyPassword: null,
      spaceId: null,
      pixelIds: [],
      disabled: false,
      privacy: 0,
      expirationUrl: null,
      expirationClicks: 0,
      endsAt: null,
      targetType: 0,
      countryTarget: null,
      platformTarget: null,
      languageTarget: null,
      rotationTarget: null,
      tags: [],
      ogTitle: null,
      ogDescription: null,
      ogImage: null,
    });
  });

  it("keeps what was sent: the expiration moment in UTC, targets, flags", () => {
    const { draft, errors } = draftOf({
      url: "https://example.com/",
      domain_id: 1,
      alias: "x1",
      disabled: "1",
      privacy: "2",
      privacy_password: "secret",
      expiration_date: "2031-02-03",
      expiration_time: "04:05",
      target_type: "1",
      country: [{ key: "us", value: "https://example.com/us" }],
    });
    expect(errors).toEqual({});
    expect(draft).toMatchObject({
      alias: "x1",
      disabled: true,
      privacy: 2,
      privacyPassword: "secret",
      endsAt: new Date("2031-02-03T04:05:00Z"),
      targetType: 1,
      countryTarget: [{ key: "US", value: "https://example.com/us" }],
    });
  });

  it.each([
    [{ target_type: "1" }, "country"],
    [{ target_type: "4", rotation: [] }, "rotation"],
    [{ privacy: "2" }, "privacy_password"],
    [{ expiration_date: "2029-12-31" }, "expiration_date"],
    [{ expiration_time: "10:00" }, "expiration_time"],
  ] as Array<[Record<string, unknown>, string]>)("reports the cross-field rules: %j → %s", (extra, field) => {
    const errors: FieldErrors = {};
    const { values } = parseFields(CreateLinkShape, coerceFormValues(CreateLinkInput, { url: "https://example.com/", domain_id: 1, ...extra }) as Record<string, unknown>);
    draftNewLink(values, now, errors);
    expect(Object.keys(errors)).toEqual([field]);
  });
});
