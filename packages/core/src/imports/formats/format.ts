import type { ImportFields } from "../check-import-row.ts";
import { SOURCE_DOMAIN_COLUMN } from "../import-extensions.ts";

/** One record of another service's export file: its cells, in the file's column order, as the file has them (untrimmed). */
export type ExportCells = readonly string[];

/**
 * What a translator reads a record with: the cell of a column, by the name of its group in the format's
 * `keys`. The header is looked at once per file (`compileExportReader`): each name of a group becomes the
 * positions it has in that file, and a record's cell is then found by position, never by key.
 */
export type ExportReader<G extends string> = {
  /** The first of the group's columns (in the order its names are listed) that holds something other than blanks, trimmed; undefined when none does. */
  cell(group: G): string | undefined;
};

/**
 * A service's own export file (CONTRACT §23), read as that service writes it and translated record by
 * record into an import row with the column names of §12 and the import-row extension columns
 * (`created_at`, `clicks`, `tags`, …). The translated row then obeys §4 and §15 like any row: a
 * translator never judges a value, it only moves it to the column it means, so a hostile value meets
 * the same checks (and gets the same row error) as in a plain CSV.
 */
export type ExportFormat = {
  /** The `format=` value. */
  name: string;
  /** The service, as people write it. */
  label: string;
  /** Where the columns were taken from (the service's documentation or public code). */
  source: string;
  /** The header keys the translator reads (`exportHeaderKey` of each column name); every other column is dropped while reading. */
  columns: readonly string[];
  /**
   * What a header must have to be this service's export: each group is one column, under any of the
   * names listed (as the service writes them; matched through `exportHeaderKey`).
   */
  required: ReadonlyArray<readonly string[]>;
  /** The translator of a file with this header (its names through `exportHeaderKey`): the columns are found once, each record is then read by position. */
  compile(header: readonly string[]): (cells: ExportCells) => ImportFields;
};

/** A header cell as the export formats compare it: lower-cased, with everything but letters and digits removed. */
export function exportHeaderKey(cell: string): string {
  return cell.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** The header keys of some column names. */
export function keysOf(...names: string[]): string[] {
  return [...new Set(names.map(exportHeaderKey))];
}

/**
 * Where each name of a group is in a header: its positions, last first. A repeated name reads the last
 * of its cells that a record reaches (a record cut short reads an earlier one), and a cell beyond the
 * header is never read, as CSV readers take a header's names.
 */
function positionsOf(header: readonly string[], keys: readonly string[]): number[][] {
  return keys
    .map((key) =>
      header
        .map((name, i) => (name === key ? i : -1))
        .filter((i) => i >= 0)
        .reverse(),
    )
    .filter((positions) => positions.length > 0);
}

/** The reader of one file: its groups' positions, found once; `cells` is the record being translated. */
class CompiledReader<G extends string> implements ExportReader<G> {
  cells: ExportCells = [];
  constructor(private readonly at: Readonly<Record<G, number[][]>>) {}

  cell(group: G): string | undefined {
    const cells = this.cells;
    for (const positions of this.at[group]) {
      for (const i of positions) {
        if (i >= cells.length) continue;
        const value = (cells[i] as string).trim();
        if (value) return value;
        break;
      }
    }
    return undefined;
  }
}

/**
 * An export format from its column groups (each a list of names, as `keysOf` gives them) and its
 * translator of one record: `columns` and `compile` follow from them.
 */
export function defineExportFormat<K extends Record<string, readonly string[]>>(spec: {
  name: string;
  label: string;
  source: string;
  keys: K;
  required: ReadonlyArray<readonly string[]>;
  translate: (record: ExportReader<Extract<keyof K, string>>) => ImportFields;
}): ExportFormat {
  const { keys, translate, ...rest } = spec;
  return {
    ...rest,
    columns: Object.values(keys).flat(),
    compile(header) {
      const at = Object.fromEntries(Object.entries(keys).map(([group, names]) => [group, positionsOf(header, names)])) as Record<Extract<keyof K, string>, number[][]>;
      const reader = new CompiledReader(at);
      return (cells) => {
        reader.cells = cells;
        return translate(reader);
      };
    },
  };
}

/** Sets `out[column]` when `value` is set: an unset value stays absent, as an empty CSV cell would. */
export function put(out: Record<string, string>, column: string, value: string | undefined): void {
  if (value !== undefined && value !== "") out[column] = value;
}

/** The part of a short URL this service keeps: the domain name (lower-cased host, port kept) and the alias (the path without its slashes). */
export type ShortUrlParts = { domain: string | undefined; alias: string };

const SIMPLE_SHORT_URL = /^(?:https?:\/\/)?((?:(?!xn--)[a-z0-9-]+\.)*(?!xn--)[a-z][a-z0-9-]*)(\/[a-z0-9_/-]*)?$/i;

/**
 * A short URL (`https://bit.ly/abc`, `bit.ly/abc`, `rebrand.ly/abc`) split into its domain and alias.
 * Whatever the value, this never throws: a value that is no URL at all comes back as the alias, so the
 * row check refuses it (an alias of `A-Z a-z 0-9 - _` only) with a row error instead of losing it.
 */
export function splitShortUrl(value: string): ShortUrlParts {
  const text = value.trim();
  // The common short URL (`https://bit.ly/abc`, `rebrand.ly/abc`) read without a URL object: a host of
  // ASCII letters, digits, hyphens and dots whose last label starts with a letter (no IP address, no
  // punycode, no port: nothing the URL parser would rewrite), then a path of alias characters and
  // slashes only. The URL parser gives exactly this for such a value; anything else goes to it.
  const simple = SIMPLE_SHORT_URL.exec(text);
  if (simple) return { domain: (simple[1] as string).toLowerCase(), alias: (simple[2] ?? "").replace(/^\/+/, "").replace(/\/+$/, "") };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { domain: undefined, alias: text };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { domain: undefined, alias: text };
  const alias = url.pathname.replace(/^\/+/, "").replace(/\/+$/, "");
  // A query or fragment is not part of any of these services' aliases: keep it, so the alias check refuses the row.
  return { domain: url.host || undefined, alias: alias + url.search + url.hash };
}

/**
 * A date-time as databases and APIs write it: `2024-05-01 10:20:30` (MySQL, no zone: UTC),
 * `2024-05-01 10:20:30.123+00` (Postgres), `2024-05-01T10:20:30Z`, `…+0000`, `…+02:00`, or a date alone.
 */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * A date-time as the import's `created_at` takes it (ISO 8601, UTC). A date-time without a zone is
 * UTC; a value that is no date at all is passed on as it is, for the row check to refuse.
 */
export function isoDateTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return value;
  const [, date, time, zone] = match;
  const utc = utcAsWritten(date as string, time, zone);
  if (utc !== undefined) return utc;
  const offset = zone === undefined || /^z$/i.test(zone) ? "Z" : zone.length === 3 ? `${zone}:00` : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const parsed = Date.parse(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${offset}`);
  return Number.isNaN(parsed) ? value : new Date(parsed).toISOString();
}

/** A zone that is UTC itself, as exports write it. */
const UTC_ZONE = /^(?:z|\+00(?::?00)?)$/i;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * The ISO form of a date-time already in UTC whose every part is in range (years 1000–9999, a real
 * day, 00:00:00 to 23:59:59, milliseconds in three digits or none), built from its own digits: the
 * same text `Date.parse` and `toISOString` give it, without either. Undefined for anything else
 * (another zone, 24:00, a leap second, more digits), which they handle.
 */
function utcAsWritten(date: string, time: string | undefined, zone: string | undefined): string | undefined {
  if (zone !== undefined && !UTC_ZONE.test(zone)) return undefined;
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  if (year < 1000 || month < 1 || month > 12 || day < 1) return undefined;
  const isLeap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && isLeap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return undefined;
  if (time === undefined) return `${date}T00:00:00.000Z`;
  // HH:MM, HH:MM:SS or HH:MM:SS.mmm (DATE_TIME has checked the digits and separators).
  if (time.length !== 5 && time.length !== 8 && time.length !== 12) return undefined;
  if (Number(time.slice(0, 2)) > 23 || Number(time.slice(3, 5)) > 59 || (time.length > 5 && Number(time.slice(6, 8)) > 59)) return undefined;
  return `${date}T${time.slice(0, 5)}:${time.length > 5 ? time.slice(6, 8) : "00"}.${time.length === 12 ? time.slice(9) : "000"}Z`;
}

/**
 * An expiry moment as the import's `expiration_date` (`YYYY-MM-DD`) and `expiration_time` (`HH:MM`),
 * both UTC. A value that is no date goes to `expiration_date` as it is, for the row check to refuse.
 */
export function putExpiration(out: Record<string, string>, value: string | undefined): void {
  const iso = isoDateTime(value);
  if (iso === undefined) return;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso)) {
    out.expiration_date = iso;
    return;
  }
  out.expiration_date = iso.slice(0, 10);
  out.expiration_time = iso.slice(11, 16);
}

/** Tag names separated by `separator` as the import's `tags` column takes them: `;`-separated, trimmed, empty names dropped. */
export function joinTags(value: string | undefined, separator: RegExp): string | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(separator)
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length ? names.join(";") : undefined;
}

const DIGITS = /^\d+$/;

/** A count as the import's `clicks` column takes it; `1,234` and `1 234` lose their separators, anything else is passed on for the row check. */
export function count(value: string | undefined): string | undefined {
  if (value === undefined || DIGITS.test(value)) return value;
  const digits = value.replace(/[,\s]/g, "");
  return DIGITS.test(digits) ? digits : value;
}

/**
 * Whether a password cell says one is set: a hash, a secret, or `true`/`1` (exports that only say
 * whether there is one); empty, `false`, `f`, `0` and `null` say there is none.
 */
export function hasSecret(value: string | undefined): boolean {
  return value !== undefined && !/^(false|f|0|null|no)$/i.test(value);
}

/** Whether a cell says yes, as exports write booleans (`true`, `1`, `yes`). */
export function isYes(value: string | undefined): boolean {
  return value !== undefined && /^(true|1|yes|t)$/i.test(value);
}

export { SOURCE_DOMAIN_COLUMN };

/** Puts a short URL's alias and domain hint into a row. */
export function putShortUrl(out: Record<string, string>, value: string | undefined): void {
  if (value === undefined) return;
  const { domain, alias } = splitShortUrl(value);
  put(out, "alias", alias);
  put(out, SOURCE_DOMAIN_COLUMN, domain);
}
