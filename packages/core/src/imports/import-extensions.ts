import type { FieldErrors } from "../errors.ts";
import { addError } from "../validation/fields.ts";

/**
 * The column a translated row names its short URL's domain in. It is a hint, not a `domain`: the row
 * takes that domain when it is one of the importer's domains, else the job's default domain (an
 * operator moving `bit.ly` links to their own domain expects that), and is a row error only when the
 * job has no default domain either.
 */
export const SOURCE_DOMAIN_COLUMN = "source_domain";

/**
 * The columns an import row may carry beyond §12's, for links that come from another service (CONTRACT
 * §23; the names are fixed by the migration work of issue #31, docs/adr/0049-live-migration.md). An
 * export does not write them: they describe a link's past elsewhere, not a setting of ours.
 */
export const MIGRATION_COLUMNS = ["created_at", "clicks", "clicks_by_day", "target_type", "country_target", "platform_target", "language_target", "rotation_target"] as const;
export type MigrationColumn = (typeof MIGRATION_COLUMNS)[number];

/** What the extension columns of one row say, once read; the targeting groups still to be checked by the link schema. */
export type RowExtensions = {
  createdAt: Date | null;
  /** The click total carried over (0 when none). */
  clicks: number;
  /** The clicks of each UTC day carried over, in day order; their sum is at most `clicks`. */
  clicksByDay: Array<[day: string, count: number]>;
  /** The link schema's input for the targeting groups and their type (`target_type` inferred from the first group given when absent). */
  targeting: Record<string, unknown>;
};

/** A total or a day's count: up to 10^15, far beyond any real service, and exact in a JavaScript number. */
const MAX_CLICKS = 1e15;
/** Days in `clicks_by_day`: about 55 years of daily counts. */
const MAX_DAYS = 20_000;
const EARLIEST = Date.UTC(1990, 0, 1);
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
const TARGET_GROUPS = [
  ["country_target", "country", 1],
  ["platform_target", "platform", 2],
  ["language_target", "language", 3],
  ["rotation_target", "rotation", 4],
] as const;

/** A calendar day that exists (`2026-02-30` does not), as UTC midnight in ms; null otherwise. */
function dayStart(y: string, m: string, d: string): number | null {
  const t = Date.UTC(Number(y), Number(m) - 1, Number(d));
  const back = new Date(t);
  return back.getUTCFullYear() === Number(y) && back.getUTCMonth() === Number(m) - 1 && back.getUTCDate() === Number(d) ? t : null;
}

function parseCount(text: string): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const n = Number(text);
  return n <= MAX_CLICKS ? n : null;
}

/**
 * Reads the extension columns of a row (`""` is "not sent"), adding a failure per bad column to
 * `errors`: a date-time that is not ISO 8601, in the future or before 1990; a count that is not a
 * non-negative integer; a day list that is malformed, repeats a day, names a future day or adds up to
 * more than `clicks`; targeting that is not a JSON array of `{key, value}` (the link schema then applies
 * §4's rules to the entries).
 */
export function readRowExtensions(fields: Readonly<Record<string, string | undefined>>, now: Date, errors: FieldErrors): RowExtensions {
  const out: RowExtensions = { createdAt: null, clicks: 0, clicksByDay: [], targeting: {} };
  const value = (column: MigrationColumn) => {
    const v = fields[column];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };

  const created = value("created_at");
  if (created !== undefined) {
    const m = DATE_TIME.exec(created);
    const day = m ? dayStart(m[1] as string, m[2] as string, m[3] as string) : null;
    const at = m && day !== null ? (m[4] === undefined ? new Date(day) : new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? "00"}${(m[7] ?? "").slice(0, 4)}${normalizeZone(m[8])}`)) : null;
    if (!at || Number.isNaN(at.getTime())) addError(errors, "created_at", "The creation date must be an ISO 8601 date or date-time.");
    else if (at.getTime() > now.getTime()) addError(errors, "created_at", "The creation date cannot be in the future.");
    else if (at.getTime() < EARLIEST) addError(errors, "created_at", "The creation date cannot be before 1990.");
    else out.createdAt = at;
  }

  const total = value("clicks");
  let totalGiven: number | null = null;
  if (total !== undefined) {
    totalGiven = parseCount(total);
    if (totalGiven === null) addError(errors, "clicks", `The clicks must be a whole number from 0 to ${MAX_CLICKS}.`);
    else out.clicks = totalGiven;
  }

  const byDay = value("clicks_by_day");
  if (byDay !== undefined) {
    const days = new Map<string, number>();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    let problem: string | null = null;
    const entries = byDay.split(";").filter((e) => e.trim() !== "");
    if (entries.length > MAX_DAYS) problem = `The clicks by day may name at most ${MAX_DAYS} days.`;
    for (const entry of problem ? [] : entries) {
      const [day, count, extra] = entry.trim().split("=");
      const m = day === undefined ? null : DAY.exec(day);
      const start = m ? dayStart(m[1] as string, m[2] as string, m[3] as string) : null;
      const n = count === undefined ? null : parseCount(count);
      if (extra !== undefined || start === null || n === null) problem = "The clicks by day must read YYYY-MM-DD=n;YYYY-MM-DD=n with whole numbers.";
      else if (start > today) problem = `The clicks by day name a future day (${day}).`;
      else if (start < EARLIEST) problem = `The clicks by day name a day before 1990 (${day}).`;
      else if (days.has(day as string)) problem = `The clicks by day name ${day} twice.`;
      else days.set(day as string, n);
      if (problem) break;
    }
    const sum = [...days.values()].reduce((a, b) => a + b, 0);
    if (!problem && totalGiven !== null && sum > totalGiven) problem = `The clicks by day add up to ${sum}, more than the clicks (${totalGiven}).`;
    if (problem) addError(errors, "clicks_by_day", problem);
    else {
      out.clicksByDay = [...days.entries()].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : 1));
      if (totalGiven === null) out.clicks = sum;
    }
  }

  let inferredType: number | undefined;
  for (const [column, field, type] of TARGET_GROUPS) {
    const text = value(column);
    if (text === undefined) continue;
    let entries: unknown;
    try {
      entries = JSON.parse(text);
    } catch {
      entries = undefined;
    }
    const isList = Array.isArray(entries) && entries.every((e) => typeof e === "object" && e !== null && !Array.isArray(e));
    if (!isList) {
      addError(errors, column, `The ${field} targeting must be a JSON array of {"key","value"} entries.`);
      continue;
    }
    if ((entries as unknown[]).length === 0) continue;
    out.targeting[field] = entries;
    inferredType ??= type;
  }
  const type = value("target_type");
  if (type !== undefined) out.targeting.target_type = /^\d+$/.test(type) ? Number(type) : type;
  else if (inferredType !== undefined) out.targeting.target_type = inferredType;
  return out;
}

/** `+0200` → `+02:00`; no zone → UTC. */
function normalizeZone(zone: string | undefined): string {
  if (!zone || zone.toUpperCase() === "Z") return "Z";
  return zone.includes(":") ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
}
