import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CsvFormatError, readCsvRows, summarizeCsv, type CsvRow, type ReadCsvOptions } from "../src/index.ts";

async function rows(text: string | Buffer, options: ReadCsvOptions = {}): Promise<CsvRow[]> {
  const out: CsvRow[] = [];
  for await (const row of readCsvRows(Readable.from([typeof text === "string" ? Buffer.from(text) : text]), options)) out.push(row);
  return out;
}

/** `text` as bytes in pieces of `size`: a character may be cut between two pieces. */
function bytesIn(text: string | Buffer, size: number): Buffer[] {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

describe("readCsvRows", () => {
  it("gives each row its file line, header being line 1", async () => {
    expect(await rows("url,alias\nhttps://a.test,a\nhttps://b.test,b\n")).toEqual([
      { line: 2, fields: { url: "https://a.test", alias: "a" } },
      { line: 3, fields: { url: "https://b.test", alias: "b" } },
    ]);
  });

  it("accepts a BOM, CRLF, header spacing and case", async () => {
    const text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(" URL , Alias\r\nhttps://a.test,a\r\n")]);
    expect(await rows(text)).toEqual([{ line: 2, fields: { url: "https://a.test", alias: "a" } }]);
  });

  it("keeps line numbers right after quoted fields that span lines (CRLF counting once), and skips blank lines", async () => {
    expect(await rows('url,title\nhttps://a.test,"two\nlines"\n\nhttps://b.test,"say ""hi"""\n')).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "two\nlines" } },
      { line: 5, fields: { url: "https://b.test", title: 'say "hi"' } },
    ]);
    const crlf = await rows('url,title\r\nhttps://a.test,"two\r\nlines"\r\n\r\nhttps://b.test,"x\r\n\r\ny\nz"\r\nhttps://c.test,c\r\n');
    expect(crlf.map((r) => r.line)).toEqual([2, 5, 9]);
  });

  it("ignores cells beyond the header but counts their line breaks; the last of two same-named columns wins", async () => {
    expect(await rows('url,title\nhttps://a.test,a,"extra\ncell"\nhttps://b.test,b\n')).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "a" } },
      { line: 4, fields: { url: "https://b.test", title: "b" } },
    ]);
    expect(await rows("url,title,TITLE\nhttps://a.test,first,second\nhttps://b.test\n")).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "second" } },
      { line: 3, fields: { url: "https://b.test" } },
    ]);
  });

  it("keeps only the columns asked for", async () => {
    const wide = ["url", ...Array.from({ length: 30_000 }, (_, i) => `c${i}`)];
    const text = `${wide.join(",")}\n${wide.map((_, i) => (i === 0 ? "https://a.test" : "v")).join(",")}\n`;
    expect(await rows(text, { columns: ["url", "alias"], maxRecordChars: 1024 * 1024 })).toEqual([{ line: 2, fields: { url: "https://a.test" } }]);
  });

  it("reports an unreadable row with its line and reads on: a stray quote, a quote never closed, a row too long", async () => {
    const text = 'url,alias\nhttps://a.test,x"y\n"https://b.test,b\nhttps://c.test,c\n' + `https://d.test,${"z".repeat(3000)}\nhttps://e.test,e\n`;
    expect(await rows(text, { maxRecordChars: 1000 })).toEqual([
      { line: 2, fields: { url: "https://a.test", alias: 'x"y' } },
      { line: 3, error: "The row is longer than 1,000 characters, or a quote in it is never closed." },
      { line: 4, fields: { url: "https://c.test", alias: "c" } },
      { line: 5, error: "The row is longer than 1,000 characters, or a quote in it is never closed." },
      { line: 6, fields: { url: "https://e.test", alias: "e" } },
    ]);
  });

  it("decodes UTF-8 cut between pieces, and turns bytes that are not UTF-8 into U+FFFD", async () => {
    const text = Buffer.concat([Buffer.from("url,title\nhttps://a.test,café 😀\nhttps://b.test,"), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from("\n")]);
    for (const size of [1, 2, 3, 5, 64]) {
      const out: CsvRow[] = [];
      for await (const row of readCsvRows(Readable.from(bytesIn(text, size)))) out.push(row);
      expect(out).toEqual([
        { line: 2, fields: { url: "https://a.test", title: "café 😀" } },
        { line: 3, fields: { url: "https://b.test", title: "\ufffd\ufffd\ufffd" } },
      ]);
    }
  });

  it("tells the header to onHeader before any row, [] for a file without one, and stops when it throws", async () => {
    const seen: string[][] = [];
    await rows(" URL ,Alias\nx,y\n", { onHeader: (names) => seen.push(names) });
    await rows("", { onHeader: (names) => seen.push(names) });
    await rows("\n\r\n", { onHeader: (names) => seen.push(names) });
    expect(seen).toEqual([["url", "alias"], [], []]);
    await expect(
      rows("alias\nx\n", {
        onHeader: () => {
          throw new Error("no url");
        },
      }),
    ).rejects.toThrow("no url");
  });

  it("throws a CsvFormatError naming line 1 when the header itself cannot be read", async () => {
    const error = await rows(`"url\n${"x".repeat(2000)}\n`, { maxRecordChars: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CsvFormatError);
    expect(error).toMatchObject({ line: 1, message: "The header row cannot be read: The row is longer than 100 characters, or a quote in it is never closed." });
  });

  it("streams a large file without losing a row", async () => {
    const body = Array.from({ length: 5000 }, (_, i) => `https://x.test/${i}`).join("\n");
    let n = 0;
    for await (const row of readCsvRows(Readable.from(bytesIn(`url\n${body}\n`, 1000)))) {
      expect(row.line).toBe(n + 2);
      n++;
    }
    expect(n).toBe(5000);
  });
});

describe("summarizeCsv", () => {
  const SAMPLES: Array<[string, { rows: number; header: string[] }]> = [
    ['url,Title\nhttps://a.test,"two\nlines"\n\nhttps://b.test,"say ""hi"""\n', { rows: 2, header: ["url", "title"] }],
    [" URL , alias\r\nhttps://a.test,a\r\nhttps://b.test,b", { rows: 2, header: ["url", "alias"] }],
    ['\n\n"url","a,b"\r\n"https://a.test","x\r\ny"\r\n\r\n', { rows: 1, header: ["url", "a,b"] }],
    // A stray quote does not swallow the rest of the file: every line is a row the import reports.
    ['url,alias\nhttps://a.test,x"y\n"https://b.test\nhttps://c.test,c\n', { rows: 3, header: ["url", "alias"] }],
    ["url\n", { rows: 0, header: ["url"] }],
    ["", { rows: 0, header: [] }],
  ];

  it.each(SAMPLES)("counts the rows the import reads, whatever the pieces: %j", async (text, expected) => {
    for (const size of [1, 2, 3, 7, 1000]) expect(await summarizeCsv(Readable.from(bytesIn(text, size)))).toEqual(expected);
    let n = 0;
    for await (const _ of readCsvRows(Readable.from([text]))) n++;
    expect(n).toBe(expected.rows);
  });
});
