import { SourceError } from "./source.ts";

/**
 * Reading another service's JSON without trusting it (CONTRACT §23): a field of the wrong type, or missing,
 * becomes a note on that link (the report says what was not carried), never a TypeError; a page whose
 * shape is wrong altogether is a `SourceError` naming where. Values are passed on as they are (huge strings,
 * control bytes, `javascript:` URLs): refusing them is the import pipeline's job (§4, §15), not the reader's.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The object at `where` of a page, or a `SourceError` saying the source answered something else. */
export function expectObject(value: unknown, source: string, where: string): JsonObject {
  if (isObject(value)) return value;
  throw new SourceError(`${source} answered ${describe(value)} where its API reference has an object (${where}).`);
}

/** The array at `where` of a page, or a `SourceError`. */
export function expectArray(value: unknown, source: string, where: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new SourceError(`${source} answered ${describe(value)} where its API reference has a list (${where}).`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * The fields of one record, read with the record's notes at hand: each accessor answers `undefined` when
 * the field is absent (or of the wrong type, with a note), `null` when the source says null.
 */
export class RecordReader {
  readonly notes: string[] = [];

  constructor(readonly record: JsonObject) {}

  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  private wrong(key: string, expected: string): undefined {
    this.note(`${key}: not ${expected} (${describe(this.record[key])}), not carried`);
    return undefined;
  }

  /** A string field. */
  text(key: string): string | null | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return value;
    return typeof value === "string" ? value : this.wrong(key, "a string");
  }

  /** A string that must be there (the alias, the destination): "" with a note when it is not, so the pipeline refuses the row with a reason instead of the link vanishing. */
  required(key: string, what: string): string {
    const value = this.text(key);
    if (typeof value === "string") return value;
    this.note(`the source gave no ${what} (${key})`);
    return "";
  }

  /** A non-negative integer, as a number or a numeric string (PHP services answer strings). */
  count(key: string): number | null | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return value;
    const number = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof number === "number" && Number.isSafeInteger(number) && number >= 0) return number;
    return this.wrong(key, "a non-negative integer");
  }

  flag(key: string): boolean | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    return typeof value === "boolean" ? value : this.wrong(key, "true or false");
  }

  /** A date-time string (ISO 8601, or `YYYY-MM-DD hh:mm:ss` taken as UTC, or `+0000` offsets). */
  date(key: string): Date | null | undefined {
    const value = this.record[key];
    if (value === undefined || value === null || value === "") return value === "" ? null : value;
    if (typeof value !== "string") return this.wrong(key, "a date");
    const parsed = parseDate(value);
    if (parsed) return parsed;
    this.note(`${key}: "${value.slice(0, 64)}" is not a date, not carried`);
    return undefined;
  }

  /** A list of strings; items of another type are dropped with a note. */
  texts(key: string): string[] | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) return this.wrong(key, "a list");
    const strings = value.filter((item): item is string => typeof item === "string");
    if (strings.length < value.length) this.note(`${key}: ${value.length - strings.length} item(s) not strings, not carried`);
    return strings;
  }

  object(key: string): JsonObject | null | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return value;
    return isObject(value) ? value : this.wrong(key, "an object");
  }

  list(key: string): unknown[] | null | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return value;
    return Array.isArray(value) ? value : this.wrong(key, "a list");
  }
}

/** A date-time as the services write them; null when unreadable. A date-time without an offset is UTC. */
export function parseDate(value: string): Date | null {
  let text = value.trim();
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(text)) text = `${text.replace(" ", "T")}Z`;
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text = `${text}Z`;
  text = text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2");
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time);
}

/**
 * The cursor of an offset-paged source (YOURLS, Kutt): where the next page starts and the alias that ended
 * this one. A source that answers the same page again for a later offset ends it with the same alias, and
 * the adapter stops with a `SourceError` instead of counting the same links again and again.
 */
export function offsetCursor(offset: number, lastAlias: string): string {
  return `${offset}:${lastAlias}`;
}

export function readOffsetCursor(cursor: string | null, source: string): { offset: number; lastAlias: string | null } {
  if (cursor === null) return { offset: 0, lastAlias: null };
  const colon = cursor.indexOf(":");
  const offset = Number(colon === -1 ? cursor : cursor.slice(0, colon));
  if (!Number.isSafeInteger(offset) || offset < 0) throw new SourceError(`${source}: the stored cursor "${cursor.slice(0, 64)}" is not one this adapter wrote.`);
  return { offset, lastAlias: colon === -1 ? null : cursor.slice(colon + 1) };
}
