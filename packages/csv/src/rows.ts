import { restoreFormula } from "./cells.ts";
import { CsvRecordReader, type CsvRecord } from "./records.ts";

/**
 * A data row of a CSV with a header row: its cells by column name and the file line it starts on (the
 * header is line 1 when the file starts with it); or, for a row that cannot be read, why not.
 */
export type CsvRow = { line: number; fields: Record<string, string>; error?: undefined } | { line: number; fields?: undefined; error: string };

/** The file cannot be read at all (its header row is unreadable): the line and the reason. */
export class CsvFormatError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = "CsvFormatError";
  }
}

/** Header names as every reader of an import file compares them: trimmed and lower-cased. */
export function normalizeHeader(cells: readonly string[]): string[] {
  return cells.map((cell) => cell.trim().toLowerCase());
}

export type ReadCsvOptions = {
  /** Keep only these columns (normalised names) in each row's fields: a row of a 30,000-column file stays small. */
  columns?: readonly string[];
  maxRecordChars?: number;
  /**
   * Called once, before any row: the header's normalised names, or `[]` for a file without a record.
   * May throw to stop reading (a required column is missing).
   */
  onHeader?: (names: string[]) => void;
  /**
   * The header row of files this service writes itself (a link export, CONTRACT §17), cell for cell as
   * written. A file whose header row is exactly that has its formula neutralisation undone in every
   * cell (`restoreFormula`), so it reads back to the values that were exported; any other file is read
   * as it is.
   */
  ownHeader?: readonly string[];
  /** Earlier header rows of this service's own files (an export before a column was added): read as `ownHeader` is. */
  earlierOwnHeaders?: ReadonlyArray<readonly string[]>;
  /**
   * What each header cell is called (default: `normalizeHeader`'s trimmed, lower-cased name). Another
   * service's export is read with its format's own rule, so `Long URL` and `long_url` are one column.
   */
  headerKey?: (cell: string) => string;
};

/** A file as it arrives: text or bytes, in pieces (a stream, a generator, or an array). */
export type CsvInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/** Text pieces of a file: strings, or bytes decoded as UTF-8 (bytes that are not become U+FFFD). */
export async function* decodeUtf8(input: CsvInput): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  for await (const piece of input) {
    const text = typeof piece === "string" ? piece : decoder.decode(piece, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** Every record of a file, streaming: see `CsvRecordReader`. */
export async function* readCsvRecords(input: CsvInput, options: { maxRecordChars?: number } = {}): AsyncGenerator<CsvRecord> {
  const reader = new CsvRecordReader(options);
  for await (const text of decodeUtf8(input)) yield* reader.push(text);
  yield* reader.end();
}

/**
 * The data rows of a UTF-8 CSV with a header row (CONTRACT §12), streaming, in bounded memory. A BOM,
 * CRLF and quoted fields spanning lines are fine; header names are trimmed and lower-cased (a repeated
 * name: the last one wins; cells beyond the header are ignored, missing ones absent). Whatever the
 * bytes, this never fails past the header: a row that cannot be read comes out as an error with its
 * line, and the rows after it are read. An unreadable header row throws a CsvFormatError.
 */
export async function* readCsvRows(input: CsvInput, options: ReadCsvOptions = {}): AsyncGenerator<CsvRow> {
  let header: Array<string | null> | undefined;
  let isOwnFile = false;
  for await (const record of readCsvRecords(input, options)) {
    if (header === undefined) {
      if (record.error !== undefined) throw new CsvFormatError(record.line, `The header row cannot be read: ${record.error}`);
      isOwnFile = [...(options.ownHeader ? [options.ownHeader] : []), ...(options.earlierOwnHeaders ?? [])].some((own) => isSameHeader(record.cells, own));
      const names = options.headerKey ? record.cells.map(options.headerKey) : normalizeHeader(record.cells);
      options.onHeader?.(names);
      const keep = options.columns ? new Set(options.columns) : undefined;
      header = names.map((name) => (keep && !keep.has(name) ? null : name));
      continue;
    }
    if (record.error !== undefined) {
      yield { line: record.line, error: record.error };
      continue;
    }
    const fields: Record<string, string> = {};
    const width = Math.min(header.length, record.cells.length);
    for (let i = 0; i < width; i++) {
      const name = header[i];
      if (name !== null && name !== undefined) fields[name] = isOwnFile ? restoreFormula(record.cells[i] as string) : (record.cells[i] as string);
    }
    yield { line: record.line, fields };
  }
  if (header === undefined) options.onHeader?.([]);
}

/**
 * The data rows of a CSV with a header row, each made from its cells by the function `compile` returns
 * for the header (called once, with the header's names through `headerKey`, after `onHeader`): a reader
 * that finds its columns once per file instead of naming every cell of every row. Otherwise as
 * `readCsvRows`: a row that cannot be read comes out as an error with its line, an unreadable header row
 * throws a CsvFormatError, and a file without a record calls `onHeader([])`.
 */
export async function* readCsvRowsWith<T>(
  input: CsvInput,
  options: {
    headerKey: (cell: string) => string;
    compile: (names: readonly string[]) => (cells: readonly string[]) => T;
    onHeader?: (names: string[]) => void;
    maxRecordChars?: number;
  },
): AsyncGenerator<{ line: number; fields: T; error?: undefined } | { line: number; fields?: undefined; error: string }> {
  let toRow: ((cells: readonly string[]) => T) | undefined;
  for await (const record of readCsvRecords(input, options)) {
    if (toRow === undefined) {
      if (record.error !== undefined) throw new CsvFormatError(record.line, `The header row cannot be read: ${record.error}`);
      const names = record.cells.map(options.headerKey);
      options.onHeader?.(names);
      toRow = options.compile(names);
      continue;
    }
    if (record.error !== undefined) yield { line: record.line, error: record.error };
    else yield { line: record.line, fields: toRow(record.cells) };
  }
  if (toRow === undefined) options.onHeader?.([]);
}

function isSameHeader(cells: readonly string[], own: readonly string[]): boolean {
  return cells.length === own.length && cells.every((cell, i) => cell === own[i]);
}

/** What an upload's reader learns before queueing it: the header's names and how many rows follow. */
export type CsvSummary = { header: string[]; rows: number };

/**
 * The header and the number of data rows of a file (rows that cannot be read count: the import reports
 * each), with the very reader the import uses, so the two always agree. An unreadable header row throws
 * a CsvFormatError; a file without a record has the header `[]`.
 */
export async function summarizeCsv(input: CsvInput, options: { maxRecordChars?: number; headerKey?: (cell: string) => string } = {}): Promise<CsvSummary> {
  let header: string[] | undefined;
  let rows = 0;
  for await (const record of readCsvRecords(input, options)) {
    if (header !== undefined) rows++;
    else if (record.error !== undefined) throw new CsvFormatError(record.line, `The header row cannot be read: ${record.error}`);
    else header = options.headerKey ? record.cells.map(options.headerKey) : normalizeHeader(record.cells);
  }
  return { header: header ?? [], rows };
}
