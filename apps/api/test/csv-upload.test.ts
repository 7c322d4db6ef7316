import { describe, expect, it } from "vitest";
import { CsvScanner, scanCsv } from "../src/http/csv-upload.ts";

const SAMPLES = [
  'url,Title\nhttps://a.test,"two\nlines"\n\nhttps://b.test,"say ""hi"""\n',
  ' URL , alias\r\nhttps://a.test,a\r\nhttps://b.test,b',
  '\n\n"url","a,b"\r\n"https://a.test","x\r\ny"\r\n\r\n',
  "url\n",
  "",
];

describe("CsvScanner", () => {
  it("counts data rows the way the importer reads them, and reads the header", () => {
    expect(scanCsv(SAMPLES[0] as string)).toEqual({ rows: 2, header: ["url", "title"] });
    expect(scanCsv(SAMPLES[1] as string)).toEqual({ rows: 2, header: ["url", "alias"] });
    expect(scanCsv(SAMPLES[2] as string)).toEqual({ rows: 1, header: ["url", "a,b"] });
    expect(scanCsv(SAMPLES[3] as string)).toEqual({ rows: 0, header: ["url"] });
    expect(scanCsv("")).toEqual({ rows: 0, header: [] });
  });

  it("gives the same answer whatever the pieces the text arrives in", () => {
    for (const text of SAMPLES) {
      for (let size = 1; size <= 7; size++) {
        const scanner = new CsvScanner();
        for (let i = 0; i < text.length; i += size) scanner.push(text.slice(i, i + size));
        expect(scanner.end()).toEqual(scanCsv(text));
      }
    }
  });
});
