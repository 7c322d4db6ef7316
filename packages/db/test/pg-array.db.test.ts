import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgArray, type Database } from "../src/index.ts";
import { openTestDb } from "../src/testing.ts";

let database: Database;
beforeAll(async () => {
  database = await openTestDb();
});
afterAll(async () => {
  await database?.close();
});

async function roundTrip(literal: string, type: "text" | "bigint"): Promise<unknown[]> {
  // Read back as JSON: both drivers parse JSON alike, while their array parsers differ on nulls.
  const cast = type === "text" ? sql`${literal}::text[]` : sql`${literal}::bigint[]`;
  const result: unknown = await database.db.execute(sql`select to_json(${cast}) as v`);
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  return (rows[0] as { v: unknown[] }).v;
}

describe("pgArray: a value list as one array parameter", () => {
  it.each([
    { name: "plain words", values: ["a", "b c", "Ünïcödé ✓"] },
    { name: "quotes and backslashes", values: ['say "hi"', "back\\slash", '\\"', '"', "\\"] },
    { name: "array syntax inside values", values: ["{a,b}", "a,b", "}", "{", " spaced ", ""] },
    { name: "the word NULL and a real null", values: ["NULL", null, "null"] },
    { name: "control characters and newlines", values: ["line\nbreak", "tab\tbed", "cr\r"] },
    // A backslash before a letter, as JSON writes its own escapes: written by hand, not taken for one.
    { name: "backslash sequences", values: ["\\n", "\\u0041", "tail\\", '{"k":"v\\"q\\n"}', "\u0001"] },
    { name: "a mix of strings, nulls and empty strings", values: ["x", null, "", "y", null] },
    { name: "nothing", values: [] },
  ])("text: $name come back unchanged", async ({ values }) => {
    expect(await roundTrip(pgArray(values), "text")).toEqual(values);
  });

  it("a number that is not finite is refused by the cast, as it always was, not sent as NULL", async () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(pgArray([1, bad, null])).toBe(`{1,${String(bad)},NULL}`);
      await expect(roundTrip(pgArray([1, bad]), "bigint")).rejects.toThrow();
    }
  });

  it("numbers, with nulls, come back unchanged", async () => {
    const values = [0, -1, 1_763_800_000_123, null, 2_147_483_647, -9_007_199_254_740_991];
    expect(await roundTrip(pgArray(values), "bigint")).toEqual(values);
  });
});
