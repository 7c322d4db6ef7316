import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CsvFormatError, readCsvRows } from "../src/csv.ts";

async function rows(text: string | Buffer) {
  const out = [];
  for await (const row of readCsvRows(Readable.from([typeof text === "string" ? Buffer.from(text) : text]))) out.push(row);
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

  it("keeps line numbers right after quoted fields that span lines, and skips blank lines", async () => {
    const result = await rows('url,title\nhttps://a.test,"two\nlines"\n\nhttps://b.test,"say ""hi"""\n');
    expect(result).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "two\nlines" } },
      { line: 5, fields: { url: "https://b.test", title: 'say "hi"' } },
    ]);
  });

  it("counts a CRLF inside a quoted field as one line break, for its row and every row after it", async () => {
    const result = await rows('url,title\r\nhttps://a.test,"two\r\nlines"\r\n\r\nhttps://b.test,"x\r\n\r\ny\nz"\r\nhttps://c.test,c\r\n');
    expect(result.map((r) => r.line)).toEqual([2, 5, 9]);
  });

  it("ignores cells beyond the header, but still counts their line breaks", async () => {
    const result = await rows('url,title\nhttps://a.test,a,"extra\ncell"\nhttps://b.test,b\n');
    expect(result).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "a" } },
      { line: 4, fields: { url: "https://b.test", title: "b" } },
    ]);
  });

  it("takes the last of two columns with one name, and leaves out the columns a short row lacks", async () => {
    expect(await rows("url,title,TITLE\nhttps://a.test,first,second\nhttps://b.test\n")).toEqual([
      { line: 2, fields: { url: "https://a.test", title: "second" } },
      { line: 3, fields: { url: "https://b.test" } },
    ]);
  });

  it("reports malformed quoting as a CsvFormatError with its line", async () => {
    await expect(rows('url,title\nhttps://a.test,"open\n')).rejects.toBeInstanceOf(CsvFormatError);
  });

  it("yields every row before a fault in the file, then throws", async () => {
    const out: number[] = [];
    await expect(
      (async () => {
        for await (const row of readCsvRows(Readable.from([Buffer.from('url\nhttps://a.test\nhttps://b.test\n"https://c.test\n')]))) out.push(row.line);
      })(),
    ).rejects.toBeInstanceOf(CsvFormatError);
    expect(out).toEqual([2, 3]);
  });

  it("streams a large file in bounded batches without losing a row", async () => {
    const body = Array.from({ length: 5000 }, (_, i) => `https://x.test/${i}`).join("\n");
    let n = 0;
    for await (const row of readCsvRows(Readable.from([Buffer.from(`url\n${body}\n`)]))) {
      expect(row.line).toBe(n + 2);
      n++;
    }
    expect(n).toBe(5000);
  });

  it("refuses a record larger than the limit", async () => {
    const text = `url\n${"x".repeat(2000)}\n`;
    const out = [];
    await expect(
      (async () => {
        for await (const row of readCsvRows(Readable.from([Buffer.from(text)]), { maxRecordBytes: 1000 })) out.push(row);
      })(),
    ).rejects.toBeInstanceOf(CsvFormatError);
  });
});
