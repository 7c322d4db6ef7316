import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvCell, csvLine, formatErrorsCsv, neutralizeFormula, readCsvRows, restoreFormula, type CsvRow } from "../src/index.ts";

/** Hostile cells (OWASP "CSV injection") and their neighbours: the value, the cell written, the cell as a spreadsheet's reader splits it. */
const CELLS: Array<[name: string, value: string, written: string]> = [
  ["HYPERLINK formula", '=HYPERLINK("http://evil.example","x")', '"\'=HYPERLINK(""http://evil.example"",""x"")"'],
  ["DDE payload", "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
  ["plus", "+1", "'+1"],
  ["minus formula", "-1+1", "'-1+1"],
  ["at function", "@SUM(A1)", "'@SUM(A1)"],
  ["tab then =", "\t=1+1", "'\t=1+1"],
  ["CR then =", "\r=1+1", '"\'\r=1+1"'],
  ["apostrophe then = (already looks escaped)", "'=1+1", "''=1+1"],
  ["two apostrophes then +", "''+1", "'''+1"],
  ["apostrophe then tab", "'\tx", "''\tx"],
  ["apostrophe alone", "'", "'"],
  ["apostrophe then text", "'hello", "'hello"],
  ["apostrophes then text", "''x=1", "''x=1"],
  ["= later in the value", "a=1", "a=1"],
  ["space then =", " =1", " =1"],
  ["plain", "plain", "plain"],
  ["empty", "", ""],
  ["comma", "a,b", '"a,b"'],
  ["quote", 'say "hi"', '"say ""hi"""'],
  ["line break", "two\nlines", '"two\nlines"'],
  ["= with comma and quote", '=1,"x"', '"\'=1,""x"""'],
];

async function readRows(text: string, ownHeader?: readonly string[]): Promise<CsvRow[]> {
  const out: CsvRow[] = [];
  for await (const row of readCsvRows(Readable.from([text]), ownHeader ? { ownHeader } : {})) out.push(row);
  return out;
}

describe("csvCell", () => {
  it.each(CELLS)("%s: written neutralised and quoted", (_name, value, written) => {
    expect(csvCell(value)).toBe(written);
    // What a spreadsheet sees first is never a formula start.
    expect(neutralizeFormula(value)).not.toMatch(/^[=+\-@\t\r]/);
  });

  it.each(CELLS)("%s: restoreFormula undoes neutralizeFormula", (_name, value) => {
    expect(restoreFormula(neutralizeFormula(value))).toBe(value);
  });

  it("restoreFormula(neutralizeFormula(v)) is v and the neutralised value never starts a formula, for any text", () => {
    const text = fc.string({ unit: fc.constantFrom("'", "=", "+", "-", "@", "\t", "\r", "\n", ",", '"', "a", " ") });
    fc.assert(
      fc.property(text, (value) => {
        const neutral = neutralizeFormula(value);
        expect(restoreFormula(neutral)).toBe(value);
        expect(neutral).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves numbers and null alone", () => {
    expect(csvCell(-5)).toBe("-5");
    expect(csvCell(null)).toBe("");
    expect(csvLine(["=1", -2, null, "x"])).toBe("'=1,-2,,x\r\n");
  });

  it("formats row errors as CRLF lines, formulas neutralised", () => {
    expect(
      formatErrorsCsv([
        { line: 3, field: "title", message: "=cmd|' /C calc'!A0" },
        { line: 4, field: null, message: "x" },
      ]),
    ).toBe("3,title,'=cmd|' /C calc'!A0\r\n4,,x\r\n");
  });
});

describe("readCsvRows with ownHeader", () => {
  const OWN = ["value", "note"];

  it("a file with exactly our header reads back every value written by csvLine", async () => {
    const text = csvLine(OWN) + CELLS.map(([, value]) => csvLine([value, value])).join("");
    const rows = await readRows(text, OWN);
    expect(rows.map((r) => r.fields)).toEqual(CELLS.map(([, value]) => ({ value, note: value })));
  });

  it.each([
    ["another header", "url,note"],
    ["our header in other case", "Value,note"],
    ["our header with spaces", "value , note"],
    ["our header and one more column", "value,note,extra"],
  ])("%s: cells are read as they are", async (_name, header) => {
    const rows = await readRows(`${header}\r\n'=1,''+2\r\n`, OWN);
    expect(rows[0]?.fields).toMatchObject({ note: "''+2" });
  });
});
