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

type Parsed = { record: Record<string, string>; info: { lines: number; records: number } };

/**
 * Streams the rows of a UTF-8 CSV with a header row: a BOM and CRLF are fine, quoted fields may span
 * lines, header names are trimmed and lower-cased. Memory stays bounded by a few hundred rows,
 * whatever the file size. A malformed file yields every row parsed before the fault, then throws a
 * CsvFormatError (a stream's async iterator would drop the rows still buffered when it fails).
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
  const HIGH_WATER = 512;
  const queue: Parsed[] = [];
  let failure: unknown;
  let isEnded = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  parser.on("data", (parsed: Parsed) => {
    queue.push(parsed);
    if (queue.length >= HIGH_WATER) parser.pause();
    signal();
  });
  parser.on("error", (error: unknown) => {
    failure ??= error;
    signal();
  });
  input.on("error", (error: unknown) => {
    failure ??= error;
    signal();
  });
  parser.on("end", () => {
    isEnded = true;
    signal();
  });

  // csv-parse counts a CRLF inside a quoted field as two lines (and every line after it one too many):
  // `overcount` is that excess so far.
  let overcount = 0;
  let index = 0;
  try {
    for (;;) {
      if (index < queue.length) {
        const { record, info } = queue[index++] as Parsed;
        if (index >= HIGH_WATER / 2 && index === queue.length) {
          queue.length = 0;
          index = 0;
          parser.resume();
        }
        let newlinesInside = 0;
        for (const value of Object.values(record)) {
          if (!value.includes("\n") && !value.includes("\r")) continue;
          newlinesInside += value.match(/\r\n|\r|\n/g)?.length ?? 0;
          overcount += value.match(/\r\n/g)?.length ?? 0;
        }
        // `info.lines` is the line the record ends on: count back the line breaks inside its quoted fields.
        yield { line: info.lines - overcount - newlinesInside, fields: record };
        continue;
      }
      queue.length = 0;
      index = 0;
      if (failure !== undefined) throw failure;
      if (isEnded) return;
      parser.resume();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } catch (error) {
    const e = error as { code?: string; lines?: number; message?: string };
    if (e.code?.startsWith("CSV_")) throw new CsvFormatError(e.lines ?? 0, e.message ?? "malformed CSV");
    throw error;
  } finally {
    parser.destroy();
  }
}
