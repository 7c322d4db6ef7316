import { ValidationError } from "../errors.ts";
import { DEFAULT_STATS_DAYS } from "./schemas.ts";

/** A resolved range of whole UTC days, both ends included. */
export type StatsRange = { from: string; to: string; days: number };

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of `date` in UTC. */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
}

/** Days from `from` to `to`, both included (0 or less when `from` is after `to`). */
export function daysIn(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** Every day of the range, in order. */
export function eachDay(range: StatsRange): string[] {
  return Array.from({ length: range.days }, (_, i) => addDays(range.from, i));
}

/**
 * Fills in the defaults (`to`: today, UTC; `from`: 30 days ending at `to`) and checks the order and, for
 * the series that have one, the length. Both cross-field errors name `from`: `to` alone can never make
 * a range invalid. A default `from` before 0001-01-01 (a `to` in January of year 1) starts there.
 */
export function resolveRange(input: { from?: string | undefined; to?: string | undefined }, now: Date, maxDays = Infinity, what = "statistics"): StatsRange {
  const to = input.to ?? utcDay(now);
  const earliest = addDays(to, -(DEFAULT_STATS_DAYS - 1));
  const from = input.from ?? (earliest < "0001-01-01" || earliest.length !== 10 ? "0001-01-01" : earliest);
  const days = daysIn(from, to);
  if (days < 1) throw ValidationError.field("from", "The from date must be a date before or equal to the to date.");
  if (days > maxDays) throw ValidationError.field("from", `The range of ${what} may span at most ${maxDays} days.`);
  return { from, to, days };
}
