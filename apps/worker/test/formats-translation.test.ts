import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXPORT_FORMATS, IMPORT_FORMATS, type ImportFormat, type ImportRow } from "@shortener/core";
import { exportFile, seededRandom } from "@shortener/core/testing";
import { importRowsOf } from "../src/process-job.ts";

/**
 * The translators' output, row for row, is what it was before their reading was made fast (issue #31):
 * each format's fixture file, and a file of hostile cells in every column (short URLs that are no URLs,
 * other schemes, ports, credentials, queries; dates out of range, without zone, with odd fractions;
 * counts with separators; tag lists; blanks), with a repeated header name and rows cut short, read by
 * the importer's own reader and compared with the rows the record-by-name translators gave for the same
 * bytes (fixtures/format-translations.json, written by them; `UPDATE_TRANSLATIONS=1` writes it again).
 */
const GOLDEN = new URL("./fixtures/format-translations.json", import.meta.url);
const EXPORT_NAMES = IMPORT_FORMATS.filter((f): f is Exclude<ImportFormat, "csv"> => f !== "csv");

const HOSTILE_CELLS = [
  "",
  "   ",
  "https://bit.ly/abc",
  " HTTPS://Bit.LY:8080/Abc/ ",
  "bit.ly/abc",
  "rebrand.ly/x_y-z",
  "https://bit.ly//a//b//",
  "https://bit.ly/a?x=1#f",
  "https://bit.ly/#frag",
  "https://user:pw@bit.ly/x",
  "ftp://bit.ly/x",
  "javascript:alert(1)",
  "mailto:a@b.example",
  "http://[::1]:8080/v6",
  "https://127.0.0.1/ip",
  "//bit.ly/x",
  "/just/a/path",
  "bit.ly",
  "https://bit.ly",
  "https://bücher.example/ä",
  "https://bit.ly/a b",
  "https://bit.ly/%41%2F",
  "https://bit.ly:99999/x",
  "http://a b/c",
  "https://dest.example/1?q=1,2",
  "keep1",
  "has.dot",
  "2024-05-01 10:20:30",
  "2024-05-01T10:20:30Z",
  "2024-05-01T10:20:30.123456+02:00",
  "2024-05-01T10:20:30+0530",
  "2024-05-01T10:20:30-08",
  "2024-05-01 10:20:30.1+00",
  "2024-05-01T10:20Z",
  "2024-05-01t10:20:30z",
  "2024-05-01",
  "2024-02-30T10:00:00Z",
  "2023-02-29",
  "2024-13-01T00:00:00Z",
  "2024-05-01T24:00:00Z",
  "2024-05-01T23:59:60Z",
  "2024-05-01T10:20:30.Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999+00:00",
  "2024-5-1",
  "yesterday",
  "1,234",
  " 1 234 ",
  "-1",
  "1e3",
  "0",
  "12",
  "launch, spring",
  "a;b|c,,d",
  "| ; ,",
  "true",
  "false",
  "f",
  "t",
  "1",
  "null",
  "NO",
  "$2b$10$abcdefghijklmnopqrstuv",
  '=HYPERLINK("http://evil.example","x")',
  "line\nbreak",
  "tab\there",
  "\u0000nul",
  "\ufffd",
  "émoji 🎉",
];

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A file of `rows` rows of random hostile cells under the format's own column names, one of them repeated at the end. */
function hostileFile(format: Exclude<ImportFormat, "csv">, seed: number, rows = 120): string {
  const random = seededRandom(seed);
  const columns = [...EXPORT_FORMATS[format].columns];
  const header = [...columns, "unrelated", columns[0] as string];
  const lines = [header.join(",")];
  for (let r = 0; r < rows; r++) {
    // One row in eight is cut short; the rest have every column.
    const width = random() < 0.125 ? Math.floor(random() * header.length) : header.length;
    const cells: string[] = [];
    for (let c = 0; c < width; c++) cells.push(csvCell(HOSTILE_CELLS[Math.floor(random() * HOSTILE_CELLS.length)] as string));
    lines.push(cells.join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** A file with one row per hostile cell, that cell in every column: each value meets each column's reading. */
function everyCellFile(format: Exclude<ImportFormat, "csv">): string {
  const columns = EXPORT_FORMATS[format].columns;
  return `${columns.join(",")}\n${HOSTILE_CELLS.map((value) => columns.map(() => csvCell(value)).join(",")).join("\n")}\n`;
}

async function translate(format: ImportFormat, text: string): Promise<ImportRow[]> {
  const rows: ImportRow[] = [];
  async function* file() {
    yield text;
  }
  for await (const row of importRowsOf(file(), format)) rows.push(row);
  return rows;
}

async function allTranslations(): Promise<Record<string, ImportRow[]>> {
  const out: Record<string, ImportRow[]> = {};
  for (const [i, format] of EXPORT_NAMES.entries()) {
    out[`${format} fixture`] = await translate(format, exportFile(format, "own.example"));
    out[`${format} hostile`] = await translate(format, hostileFile(format, 31_000 + i));
    out[`${format} every cell`] = await translate(format, everyCellFile(format));
  }
  return out;
}

describe("export-file translation (CONTRACT §23)", () => {
  it("gives the same rows as the record-by-name translators, for the fixtures and for hostile cells in every column", async () => {
    const current = await allTranslations();
    if (process.env.UPDATE_TRANSLATIONS === "1") writeFileSync(GOLDEN, `${JSON.stringify(current, null, 1)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as Record<string, ImportRow[]>;
    expect(Object.keys(current)).toEqual(Object.keys(golden));
    for (const name of Object.keys(golden)) {
      expect(golden[name]?.length, name).toBeGreaterThanOrEqual(8);
      expect(current[name], name).toEqual(golden[name]);
    }
  });

  it("reads a header whose names differ only in case, spaces and punctuation as the same columns", async () => {
    const [row] = await translate("bitly", "Long URL,LINK,Created-At\nhttps://dest.example/1,https://bit.ly/abc,2024-05-01 10:20:30\n");
    expect(row?.fields).toEqual({ url: "https://dest.example/1", alias: "abc", source_domain: "bit.ly", created_at: "2024-05-01T10:20:30.000Z" });
  });
});
