/**
 * One record of a CSV file and the file line it starts on (the first line is 1): its cells, or, when it
 * cannot be read (a quote never closed, longer than the limit), why not.
 */
export type CsvRecord = { line: number; cells: string[]; error?: undefined } | { line: number; cells?: undefined; error: string };

/** A record longer than this many characters (its line breaks included, its terminator not) is not read. */
export const DEFAULT_MAX_RECORD_CHARS = 64 * 1024;

const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

type Parsed = { kind: "record"; cells: string[]; contentEnd: number; end: number; breaks: number; isCrAtEnd: boolean } | { kind: "more" } | { kind: "unclosed" };

const MORE: Parsed = { kind: "more" };
const UNCLOSED: Parsed = { kind: "unclosed" };

/** The first `,`, CR or LF at or after `from`; -1 when there is none. */
function findDelimiter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === CR || c === LF) return i;
  }
  return -1;
}

/** The first CR or LF at or after `from`; -1 when there is none. */
function findLineBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === CR || c === LF) return i;
  }
  return -1;
}

/** Line breaks in a text: CRLF, a lone CR and LF count one each. */
function countLineBreaks(text: string): number {
  if (!text.includes("\n") && !text.includes("\r")) return 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) n++;
    else if (c === CR) {
      n++;
      if (text.charCodeAt(i + 1) === LF) i++;
    }
  }
  return n;
}

/**
 * Reads the record that starts at `start`. `isFinal`: nothing follows `text` (else a record that runs to
 * its end, or a quote at its very end, waits for more). Quoting as in RFC 4180 (a field that starts with
 * a quote runs to the next quote not doubled, and may hold commas and line breaks), made lenient the way
 * csv-parse's `relax_quotes` is: a quote inside an unquoted field is an ordinary character, and a quote
 * that ends a quoted field but is followed by something other than a comma or a line break is kept, with
 * the opening one, as part of the field.
 */
function parseRecord(text: string, start: number, isFinal: boolean): Parsed {
  const n = text.length;
  const cells: string[] = [];
  let breaks = 0;
  let i = start;
  for (;;) {
    let value: string;
    if (i < n && text.charCodeAt(i) === QUOTE) {
      let from = i + 1;
      value = "";
      let isRelaxed = false;
      for (;;) {
        const q = text.indexOf('"', from);
        if (q === -1) return isFinal ? UNCLOSED : MORE;
        if (q + 1 >= n) {
          if (!isFinal) return MORE;
          value += text.slice(from, q);
          i = q + 1;
          break;
        }
        const next = text.charCodeAt(q + 1);
        if (next === QUOTE) {
          value += text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value += text.slice(from, q);
        i = q + 1;
        if (next !== COMMA && next !== CR && next !== LF) {
          value = `"${value}"`;
          isRelaxed = true;
        }
        break;
      }
      breaks += countLineBreaks(value);
      if (isRelaxed) {
        const end = findDelimiter(text, i);
        if (end === -1) {
          if (!isFinal) return MORE;
          value += text.slice(i);
          i = n;
        } else {
          value += text.slice(i, end);
          i = end;
        }
      }
    } else {
      const end = findDelimiter(text, i);
      if (end === -1) {
        if (!isFinal) return MORE;
        value = text.slice(i);
        i = n;
      } else {
        value = text.slice(i, end);
        i = end;
      }
    }
    cells.push(value);
    if (i >= n) return { kind: "record", cells, contentEnd: n, end: n, breaks, isCrAtEnd: false };
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      i++;
      continue;
    }
    const contentEnd = i;
    i++;
    let isCrAtEnd = false;
    if (c === CR) {
      if (i < n && text.charCodeAt(i) === LF) i++;
      else if (i >= n) isCrAtEnd = true;
    }
    return { kind: "record", cells, contentEnd, end: i, breaks: breaks + 1, isCrAtEnd };
  }
}

/**
 * Splits CSV text, fed in pieces of any size, into records, and never fails: whatever the text, every
 * record comes out either with its cells or with an error and its line, and reading goes on after it.
 * A UTF-8 BOM is dropped; CRLF, LF and a lone CR all end a record; blank lines are skipped. A record
 * that cannot be read — a quote never closed, or longer than `maxRecordChars` — is reported at the line
 * it starts on, and reading resumes on the line after that one (so one stray quote costs one row, not
 * the rest of the file). The records do not depend on how the text was cut into pieces, and memory is
 * bounded by `maxRecordChars` plus the largest piece, whatever the file holds.
 */
export class CsvRecordReader {
  private text = "";
  private pos = 0;
  private line = 1;
  private isBomChecked = false;
  /** The last piece ended with a CR that ended a line: an LF that starts the next piece belongs to it. */
  private isAfterCr = false;
  /** Discarding the rest of a line that was too long to read. */
  private isSkippingLine = false;
  private readonly maxRecordChars: number;

  constructor(options: { maxRecordChars?: number } = {}) {
    this.maxRecordChars = options.maxRecordChars ?? DEFAULT_MAX_RECORD_CHARS;
  }

  /** Feeds the next piece of text; returns the records it completed. */
  push(piece: string): CsvRecord[] {
    if (!this.isBomChecked && piece.length) {
      this.isBomChecked = true;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    this.text = this.pos < this.text.length ? this.text.slice(this.pos) + piece : piece;
    this.pos = 0;
    const out: CsvRecord[] = [];
    this.read(out, false);
    return out;
  }

  /** The end of the text: returns the records still waiting. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    this.read(out, true);
    this.text = "";
    this.pos = 0;
    return out;
  }

  /** Consumes the line break at `at` (CRLF as one), counting the line. */
  private consumeLineBreak(at: number, isFinal: boolean): void {
    const text = this.text;
    let next = at + 1;
    if (text.charCodeAt(at) === CR) {
      if (next < text.length) {
        if (text.charCodeAt(next) === LF) next++;
      } else if (!isFinal) this.isAfterCr = true;
    }
    this.pos = next;
    this.line++;
  }

  /** Skips the record that starts at `pos`: reports it, and goes on from the line after its first. */
  private reject(out: CsvRecord[], error: string, isFinal: boolean): void {
    out.push({ line: this.line, error });
    const lineBreak = findLineBreak(this.text, this.pos);
    if (lineBreak === -1) {
      this.pos = this.text.length;
      this.isSkippingLine = !isFinal;
    } else this.consumeLineBreak(lineBreak, isFinal);
  }

  private read(out: CsvRecord[], isFinal: boolean): void {
    const max = this.maxRecordChars;
    for (;;) {
      const text = this.text;
      if (this.pos >= text.length) return;
      if (this.isAfterCr) {
        this.isAfterCr = false;
        if (text.charCodeAt(this.pos) === LF) {
          this.pos++;
          continue;
        }
      }
      if (this.isSkippingLine) {
        const lineBreak = findLineBreak(text, this.pos);
        if (lineBreak === -1) {
          this.pos = text.length;
          return;
        }
        this.isSkippingLine = false;
        this.consumeLineBreak(lineBreak, isFinal);
        continue;
      }
      const first = text.charCodeAt(this.pos);
      if (first === CR || first === LF) {
        this.consumeLineBreak(this.pos, isFinal);
        continue;
      }
      const parsed = parseRecord(text, this.pos, isFinal);
      if (parsed.kind === "more") {
        if (text.length - this.pos > max) this.reject(out, tooLong(max), isFinal);
        else return;
      } else if (parsed.kind === "unclosed") {
        this.reject(out, "The row has a quote that is never closed.", isFinal);
      } else if (parsed.contentEnd - this.pos > max) {
        this.reject(out, tooLong(max), isFinal);
      } else {
        out.push({ line: this.line, cells: parsed.cells });
        this.line += parsed.breaks;
        this.pos = parsed.end;
        if (parsed.isCrAtEnd && !isFinal) this.isAfterCr = true;
      }
    }
  }
}

/** Over the limit, a record may be long or the rest of the file after a stray quote: which one, only the end of the file would tell. */
function tooLong(max: number): string {
  return `The row is longer than ${max.toLocaleString("en-US")} characters, or a quote in it is never closed.`;
}

/** Every record of a CSV held whole in memory (tests, small bodies). */
export function parseCsvRecords(text: string, options: { maxRecordChars?: number } = {}): CsvRecord[] {
  const reader = new CsvRecordReader(options);
  return [...reader.push(text), ...reader.end()];
}
