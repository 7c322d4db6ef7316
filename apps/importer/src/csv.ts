import { Parser } from "csv-parse";
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

/** A record as it leaves the parser: its cells, and the file line it ends on (the parser's own line count then). */
type Parsed = { endLine: number; cells: string[] };

/**
 * csv-parse's stream, handing on each record with the line it ends on. Its `info` option would build
 * two copies of the parser's counters per record (and `columns` an object through `defineProperty`):
 * a third of the parse time and most of its garbage on a large file. Reading the counter as the
 * record is pushed gives the same number without either.
 */
class LineParser extends Parser {
  override push(record: unknown, encoding?: BufferEncoding): boolean {
    if (record === null) return super.push(null, encoding);
    return super.push({ endLine: this.info.lines, cells: record as string[] } satisfies Parsed);
  }
}

/**
 * Streams the rows of a UTF-8 CSV with a header row: a BOM and CRLF are fine, quoted fields may span
 * lines, header names are trimmed and lower-cased (a repeated name: the last one wins; cells beyond the
 * header are ignored). Memory stays bounded by a few hundred rows, whatever the file size. A malformed
 * file yields every row parsed before the fault, then throws a CsvFormatError (a stream's async
 * iterator would drop the rows still buffered when it fails).
 */
export async function* readCsvRows(input: Readable, options: { maxRecordBytes?: number } = {}): AsyncGenerator<CsvRow> {
  const parser = input.pipe(
    new LineParser({
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
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

  let header: string[] | undefined;
  // csv-parse counts a CRLF inside a quoted field as two lines (and every line after it one too many):
  // `overcount` is that excess so far.
  let overcount = 0;
  let index = 0;
  try {
    for (;;) {
      if (index < queue.length) {
        const { endLine, cells } = queue[index++] as Parsed;
        if (index >= HIGH_WATER / 2 && index === queue.length) {
          queue.length = 0;
          index = 0;
          parser.resume();
        }
        if (header === undefined) {
          header = cells.map((h) => h.trim().toLowerCase());
          continue;
        }
        const fields: Record<string, string> = {};
        const width = Math.min(header.length, cells.length);
        let newlinesInside = 0;
        for (let i = 0; i < cells.length; i++) {
          const value = cells[i] as string;
          if (i < width) fields[header[i] as string] = value;
          if (!value.includes("\n") && !value.includes("\r")) continue;
          // Line breaks in cells beyond the header count too: they moved the parser's line counter.
          newlinesInside += value.match(/\r\n|\r|\n/g)?.length ?? 0;
          overcount += value.match(/\r\n/g)?.length ?? 0;
        }
        // `endLine` is the line the record ends on: count back the line breaks inside its quoted fields.
        yield { line: endLine - overcount - newlinesInside, fields };
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
