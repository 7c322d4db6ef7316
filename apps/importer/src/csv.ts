import { parse } from "csv-parse";
import type { Readable } from "node:stream";

/** One data row of an import file: its fields by header name, and the file line it starts on (header = 1). */
export type CsvRow = { line: number; fields: Record<string, string> };

export class CsvFormatError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = "CsvFormatError";
  }
}

/**
 * Streams the rows of a UTF-8 CSV with a header row: a BOM and CRLF are fine, quoted fields may span
 * lines, header names are trimmed and lower-cased. Memory stays bounded by one row, whatever the file size.
 */
export async function* readCsvRows(input: Readable, options: { maxRecordBytes?: number } = {}): AsyncGenerator<CsvRow> {
  const parser = input.pipe(
    parse({
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      max_record_size: options.maxRecordBytes ?? 64 * 1024,
    }),
  );
  // csv-parse counts a CRLF inside a quoted field as two lines (and every line after it one too many):
  // `overcount` is that excess so far.
  let overcount = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number; records: number } }>) {
      let newlinesInside = 0;
      for (const value of Object.values(record)) {
        if (!value.includes("\n") && !value.includes("\r")) continue;
        newlinesInside += value.match(/\r\n|\r|\n/g)?.length ?? 0;
        overcount += value.match(/\r\n/g)?.length ?? 0;
      }
      // `info.lines` is the line the record ends on: count back the line breaks inside its quoted fields.
      yield { line: info.lines - overcount - newlinesInside, fields: record };
    }
  } catch (error) {
    const e = error as { code?: string; lines?: number; message?: string };
    if (e.code?.startsWith("CSV_")) throw new CsvFormatError(e.lines ?? 0, e.message ?? "malformed CSV");
    throw error;
  }
}
