import { createReadStream } from "node:fs";

/** What `POST /imports` learns from a file before queueing it. */
export type CsvSummary = { rows: number; header: string[] };

const HEADER_MAX_CHARS = 64 * 1024;

/**
 * Counts the data rows of a CSV (for the row limit and `total_rows`) and reads its header, fed as text
 * in any number of pieces, with the quoting rules of RFC 4180: a line break inside quotes does not end
 * a row; blank lines are not rows (the importer's reader skips them too).
 */
export class CsvScanner {
  private isQuoted = false;
  private hasContent = false;
  private isHeaderDone = false;
  private header = "";
  private rows = 0;

  push(text: string): void {
    let headerFrom = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) {
        this.isQuoted = !this.isQuoted;
        this.hasContent = true;
      } else if ((c === 10 || c === 13) && !this.isQuoted) {
        if (this.hasContent) {
          if (!this.isHeaderDone) {
            this.header += text.slice(headerFrom, i);
            this.isHeaderDone = true;
          } else this.rows++;
        }
        this.hasContent = false;
      } else if (!this.hasContent) {
        this.hasContent = true;
      }
      if (!this.isHeaderDone && !this.hasContent) headerFrom = i + 1;
    }
    if (!this.isHeaderDone && this.header.length < HEADER_MAX_CHARS) this.header += text.slice(headerFrom, headerFrom + HEADER_MAX_CHARS);
  }

  end(): CsvSummary {
    if (this.hasContent) {
      if (this.isHeaderDone) this.rows++;
      else this.isHeaderDone = true;
      this.hasContent = false;
    }
    return { rows: this.rows, header: this.isHeaderDone ? headerFields(this.header) : [] };
  }
}

/** One CSV as text, for a quick test or a small body. */
export function scanCsv(text: string): CsvSummary {
  const scanner = new CsvScanner();
  scanner.push(text);
  return scanner.end();
}

/**
 * A file's text in parts of at least `minChars` (the last one shorter): bytes that are not UTF-8 become
 * U+FFFD (the rows holding them are reported as row errors, the rest of the file is imported), a
 * character split between two reads comes out whole, and the BOM is dropped.
 */
export async function* readTextParts(path: string, minChars: number): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let pending = "";
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    pending += decoder.decode(chunk as Buffer, { stream: true });
    if (pending.length >= minChars) {
      yield pending;
      pending = "";
    }
  }
  pending += decoder.decode();
  if (pending) yield pending;
}

/** The header row's names, trimmed and lower-cased as the importer reads them. */
function headerFields(line: string): string[] {
  const fields: string[] = [];
  let current = "";
  let isQuoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      if (isQuoted && line[i + 1] === '"') {
        current += '"';
        i++;
      } else isQuoted = !isQuoted;
    } else if (ch === "," && !isQuoted) {
      fields.push(current.trim().toLowerCase());
      current = "";
    } else current += ch;
  }
  fields.push(current.trim().toLowerCase());
  return fields;
}
