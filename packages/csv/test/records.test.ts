import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvRecordReader, parseCsvRecords, type CsvRecord } from "../src/index.ts";

/** The records of `text` fed in pieces cut at `cuts` (indexes), as a stream would deliver it. */
function inPieces(text: string, cuts: number[], maxRecordChars?: number): CsvRecord[] {
  const reader = new CsvRecordReader(maxRecordChars === undefined ? {} : { maxRecordChars });
  const out: CsvRecord[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= from || cut >= text.length) continue;
    out.push(...reader.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(...reader.push(text.slice(from)), ...reader.end());
  return out;
}

const ok = (line: number, ...cells: string[]): CsvRecord => ({ line, cells });
const bad = (line: number, error: string): CsvRecord => ({ line, error });
const UNCLOSED = "The row has a quote that is never closed.";

describe("CsvRecordReader", () => {
  it.each([
    ["plain rows, LF", "a,b\n1,2\n", [ok(1, "a", "b"), ok(2, "1", "2")]],
    ["CRLF, a lone CR, and no final line break", "a,b\r\n1,2\r3,4", [ok(1, "a", "b"), ok(2, "1", "2"), ok(3, "3", "4")]],
    ["a BOM", "\ufeffurl\nx\n", [ok(1, "url"), ok(2, "x")]],
    ["blank lines are skipped but counted", "a\n\n\r\n\nb\n", [ok(1, "a"), ok(5, "b")]],
    ["quoted commas, doubled quotes, line breaks", 'a,"b,c","say ""hi""","two\r\nlines"\nx\n', [ok(1, "a", "b,c", 'say "hi"', "two\r\nlines"), ok(3, "x")]],
    ["empty cells and a trailing comma", ",a,,\n", [ok(1, "", "a", "", "")]],
    ["a stray quote inside a field is a character", 'url,alias\nhttps://b.example/2,x"y\nz\n', [ok(1, "url", "alias"), ok(2, "https://b.example/2", 'x"y'), ok(3, "z")]],
    ["a quote closing early keeps the field as written", 'a,"b"c,d\nz\n', [ok(1, "a", '"b"c', "d"), ok(2, "z")]],
    ["a quote never closed costs its own line only", 'url\n"https://a.example\nhttps://b.example\n', [ok(1, "url"), bad(2, UNCLOSED), ok(3, "https://b.example")]],
    ["a NUL is an ordinary character", "a\u0000b,c\n", [ok(1, "a\u0000b", "c")]],
    ["an empty text has no record", "", []],
    ["only line breaks", "\n\r\n\r", []],
  ])("%s", (_name, text, expected) => {
    expect(parseCsvRecords(text)).toEqual(expected);
    // Any cutting gives the same records: every place, one at a time.
    for (let cut = 1; cut < text.length; cut++) expect(inPieces(text, [cut])).toEqual(expected);
  });

  it("reports a record longer than the limit at its first line and reads on from the next line", () => {
    const long = "x".repeat(100);
    const text = `url\n${long}\nhttps://c.example\n"${long}\n${long}"\nhttps://d.example\n`;
    const expected = [
      ok(1, "url"),
      bad(2, "The row is longer than 50 characters, or a quote in it is never closed."),
      ok(3, "https://c.example"),
      bad(4, "The row is longer than 50 characters, or a quote in it is never closed."),
      // The rest of the broken quoted record is a line of its own: too long too.
      bad(5, "The row is longer than 50 characters, or a quote in it is never closed."),
      ok(6, "https://d.example"),
    ];
    expect(parseCsvRecords(text, { maxRecordChars: 50 })).toEqual(expected);
    expect(inPieces(text, [7, 30, 60, 150, 160], 50)).toEqual(expected);
    expect(
      inPieces(
        text,
        Array.from({ length: text.length }, (_, i) => i),
        50,
      ),
    ).toEqual(expected);
  });

  it("skips a 5 MB line fed in 64 KiB pieces, holding no more than the limit", () => {
    const reader = new CsvRecordReader();
    const out = [...reader.push("url\nhttps://a.example\n")];
    const piece = "y".repeat(64 * 1024);
    for (let i = 0; i < 80; i++) out.push(...reader.push(piece));
    out.push(...reader.push("\nhttps://b.example\n"), ...reader.end());
    expect(out).toEqual([ok(1, "url"), ok(2, "https://a.example"), bad(3, "The row is longer than 65,536 characters, or a quote in it is never closed."), ok(4, "https://b.example")]);
  });

  it("a CR ending one piece and an LF starting the next are one line break", () => {
    expect(inPieces("a\r\nb\r\n\r\nc", [2, 5, 7])).toEqual([ok(1, "a"), ok(2, "b"), ok(4, "c")]);
  });
});

/** A cell of any text; quoted when it must be. */
const cell = fc.string({ unit: fc.constantFrom("a", "b", " ", ",", '"', "\n", "\r\n", "é", "😀", "\u0000") });
const quote = (value: string) => (/[",\r\n]/.test(value) || value === "" ? `"${value.replaceAll('"', '""')}"` : value);

describe("CsvRecordReader on generated files", () => {
  it("reads back any table written by RFC 4180 rules, with each record's first line, however the text is cut", () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 20 }), fc.array(fc.nat()), fc.boolean(), (table, cuts, isCrlf) => {
        const eol = isCrlf ? "\r\n" : "\n";
        const lines = table.map((cells) => cells.map(quote).join(","));
        const text = lines.join(eol) + eol;
        const expected: CsvRecord[] = [];
        let line = 1;
        for (const [i, cells] of table.entries()) {
          expected.push(ok(line, ...cells));
          line += 1 + ((lines[i] as string).match(/\r\n|\r|\n/g)?.length ?? 0);
        }
        expect(
          inPieces(
            text,
            cuts.map((c) => c % (text.length + 1)),
          ),
        ).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("gives csv-parse's records (relax_quotes) for any text it can parse, and never throws on any text", () => {
    const hostile = fc.string({ unit: fc.constantFrom("a", ",", '"', "\n", "\r", "\r\n", " ", "\u0000", "\ufffd"), maxLength: 80 });
    fc.assert(
      fc.property(hostile, fc.array(fc.nat()), (text, cuts) => {
        const ours = parseCsvRecords(text);
        expect(
          inPieces(
            text,
            cuts.map((c) => c % (text.length + 1)),
          ),
        ).toEqual(ours);
        // csv-parse guesses one record delimiter per file: compare on texts with LF line breaks only. It
        // also drops the quotes of a field written `""x` (an empty quoted field followed by more), where
        // we keep the field as written, as it does for `"a"x`; and it takes a NUL after a closing quote
        // for the end of its buffer (`!buf[pos + 1]`).
        if (text.includes("\r") || text.includes('"\u0000') || /(^|[,\n])""[^,\n]/.test(text)) return;
        let theirs: string[][];
        try {
          theirs = parse(text, { relax_quotes: true, relax_column_count: true, skip_empty_lines: true, bom: true });
        } catch {
          return;
        }
        expect(ours.map((r) => r.cells ?? r.error)).toEqual(theirs);
      }),
      { numRuns: 2000 },
    );
  });
});
