import { describe, expect, it } from "vitest";
import type { FieldErrors } from "../src/errors.ts";
import { readRowExtensions } from "../src/index.ts";

/** The migration columns of an import row (issue #31, docs/adr/0049-live-migration.md): what each reads, and every bad value refused by column. */
const NOW = new Date("2026-11-27T12:00:00Z");
const read = (fields: Record<string, string>) => {
  const errors: FieldErrors = {};
  return { out: readRowExtensions(fields, NOW, errors), errors };
};

describe("readRowExtensions", () => {
  it("reads dates, totals, days and targeting", () => {
    const { out, errors } = read({
      created_at: "2024-02-29T10:11:12.345+02:00",
      clicks: "120",
      clicks_by_day: "2026-11-02=7; 2026-11-01=3;2026-10-31=0",
      country_target: '[{"key":"US","value":"https://us.example/"}]',
      rotation_target: '[{"value":"https://a.example/"}]',
    });
    expect(errors).toEqual({});
    expect(out.createdAt?.toISOString()).toBe("2024-02-29T08:11:12.345Z");
    expect(out.clicks).toBe(120);
    expect(out.clicksByDay).toEqual([
      ["2026-11-01", 3],
      ["2026-11-02", 7],
    ]);
    expect(out.targeting).toEqual({ country: [{ key: "US", value: "https://us.example/" }], rotation: [{ value: "https://a.example/" }], target_type: 1 });
  });

  it("a date alone is midnight UTC; days without a total make the total; an explicit target_type wins", () => {
    const { out, errors } = read({ created_at: "2020-01-05", clicks_by_day: "2026-11-27=4;2026-01-01=6", target_type: "4", country_target: "[]" });
    expect(errors).toEqual({});
    expect(out.createdAt?.toISOString()).toBe("2020-01-05T00:00:00.000Z");
    expect(out.clicks).toBe(10);
    expect(out.targeting).toEqual({ target_type: 4 });
  });

  it.each([
    ["created_at", { created_at: "yesterday" }],
    ["created_at", { created_at: "2026-02-30" }],
    ["created_at", { created_at: "2026-11-28T00:00:00Z" }],
    ["created_at", { created_at: "1969-12-31" }],
    ["created_at", { created_at: "2026-01-01T25:00:00Z" }],
    ["clicks", { clicks: "-1" }],
    ["clicks", { clicks: "1.5" }],
    ["clicks", { clicks: "1e3" }],
    ["clicks", { clicks: "99999999999999999" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-01" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-01=x" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-01=1=2" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-28=1" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-01=1;2026-11-01=2" }],
    ["clicks_by_day", { clicks_by_day: "2026-11-01=5", clicks: "4" }],
    ["clicks_by_day", { clicks_by_day: "1989-01-01=5" }],
    ["country_target", { country_target: "US=https://x.example/" }],
    ["country_target", { country_target: '{"key":"US"}' }],
    ["language_target", { language_target: "[1,2]" }],
    ["platform_target", { platform_target: '[["iOS","https://x.example/"]]' }],
  ])("refuses %s %j", (column, fields) => {
    const { errors } = read(fields);
    expect(Object.keys(errors)).toEqual([column]);
    expect(errors[column]?.[0]).toMatch(/\w/);
  });
});
