/**
 * The analytics view's pure parts (no React): UTC days, the daily series with every day present, the
 * axes' ticks, the range presets and the range in the address bar. Tested in apps/web/test/series.test.ts.
 */

/** A UTC day, `YYYY-MM-DD`. */
export type Day = string;

/** One day of the chart: humans (the API's `count`), unique visitors and bots. */
export type DayPoint = { day: Day; humans: number; unique: number; bots: number };

/** A daily row as the API sends it (`stats.get`/`stats.account` `clicks`, `domains.visits` `clicks`). */
export type DailyRow = { value: string; count: number; unique?: number | undefined; bots?: number | undefined };

export type Range = { from: Day; to: Day };

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The longest range the daily series may ask for (the API's limit for `clicks`, CONTRACT §15). */
export const MAX_RANGE_DAYS = 3660;

/** The presets of the range picker, in days (CONTRACT §21: 7, 30, 90 days or a chosen range). */
export const RANGE_PRESETS = [7, 30, 90] as const;
export type Preset = (typeof RANGE_PRESETS)[number];
export const DEFAULT_PRESET: Preset = 30;

/** The UTC day of a moment. */
export function dayOf(moment: Date): Day {
  return moment.toISOString().slice(0, 10);
}

/** The day's midnight UTC in milliseconds, or null if `day` is not a real `YYYY-MM-DD` day (2026-02-30, 0000-01-01). */
export function dayMs(day: string): number | null {
  const m = DAY_PATTERN.exec(day);
  if (!m) return null;
  const [year, month, date] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || date < 1) return null;
  // setUTCFullYear, not Date.UTC (which maps years 0–99 to 1900–1999); a real day reads back as itself.
  const back = new Date(0);
  back.setUTCFullYear(year, month - 1, date);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== date) return null;
  return back.getTime();
}

/** `day` plus `n` days (n may be negative). `day` must be valid. */
export function addDays(day: Day, n: number): Day {
  const ms = dayMs(day);
  if (ms === null) throw new RangeError(`not a day: ${day}`);
  const next = new Date(ms + n * DAY_MS);
  return next.toISOString().slice(0, 10);
}

/** How many days from `from` to `to`, both included (0 when `to` is before `from`). */
export function daysInRange({ from, to }: Range): number {
  const a = dayMs(from);
  const b = dayMs(to);
  if (a === null || b === null || b < a) return 0;
  return Math.round((b - a) / DAY_MS) + 1;
}

/** Every day of the range, oldest first; [] for an invalid or reversed range, at most MAX_RANGE_DAYS. */
export function daysOf(range: Range): Day[] {
  const count = Math.min(daysInRange(range), MAX_RANGE_DAYS);
  const start = dayMs(range.from) ?? 0;
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
}

const finite = (n: number | undefined): number => (typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * The chart's series: one point for EVERY day of the range (a day the API left out, or sent as 0, is
 * drawn as 0), rows outside the range ignored, a day sent twice added up, and nonsense (negative, NaN)
 * read as 0.
 */
export function fillDays(rows: readonly DailyRow[], range: Range): DayPoint[] {
  const byDay = new Map<Day, DayPoint>();
  const days = daysOf(range);
  for (const day of days) byDay.set(day, { day, humans: 0, unique: 0, bots: 0 });
  for (const row of rows) {
    const point = byDay.get(row.value.slice(0, 10));
    if (!point) continue;
    point.humans += finite(row.count);
    point.unique += finite(row.unique);
    point.bots += finite(row.bots);
  }
  return days.map((day) => byDay.get(day) ?? { day, humans: 0, unique: 0, bots: 0 });
}

/** The totals of a series. */
export function totalsOf(points: readonly DayPoint[]): { humans: number; unique: number; bots: number } {
  return points.reduce((t, p) => ({ humans: t.humans + p.humans, unique: t.unique + p.unique, bots: t.bots + p.bots }), { humans: 0, unique: 0, bots: 0 });
}

/**
 * The y axis's ticks for counts up to `max`: whole numbers from 0 in a "nice" step (1, 2 or 5 × 10ⁿ), the
 * last one at or above `max`, at most `maxTicks + 1` of them. An empty chart (max 0) gets 0 and 1.
 */
export function countTicks(max: number, maxTicks = 4): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 0;
  if (top === 0) return [0, 1];
  const raw = top / Math.max(1, maxTicks);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude);
  const ticks: number[] = [];
  for (let v = 0; v < top + step; v += step) {
    ticks.push(v);
    if (v >= top) break;
  }
  return ticks;
}

/**
 * Which days get a label on the x axis: at most `maxLabels`, evenly spaced, counted back from the last day
 * (today, usually), so the newest day is always labelled. Indexes into the series, oldest first.
 */
export function dayTicks(count: number, maxLabels: number): number[] {
  if (count <= 0) return [];
  const labels = Math.max(1, Math.floor(maxLabels));
  const step = Math.max(1, Math.ceil(count / labels));
  const ticks: number[] = [];
  for (let i = count - 1; i >= 0; i -= step) ticks.unshift(i);
  return ticks;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A short label for a day: `26 Nov`, with the year (`26 Nov 2025`) when asked. */
export function dayLabel(day: Day, withYear = false): string {
  const ms = dayMs(day);
  if (ms === null) return day;
  const d = new Date(ms);
  const label = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()] ?? ""}`;
  return withYear ? `${label} ${d.getUTCFullYear()}` : label;
}

/** `1234567` → `1,234,567`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** A share of a total as a percentage: whole from 10 % up (and 0 %), one decimal below (9.95 % → "10%", 6.94 % → "6.9%"). */
export function formatShare(count: number, total: number): string {
  const share = total > 0 && Number.isFinite(count) ? (Math.max(0, count) / total) * 100 : 0;
  const tenths = Math.round(share * 10) / 10;
  return tenths >= 10 || tenths === 0 ? `${Math.round(share)}%` : `${tenths.toFixed(1)}%`;
}

/** The last `days` days up to `today` (UTC), both included. */
export function presetRange(days: number, today: Date): Range {
  const to = dayOf(today);
  return { from: addDays(to, -(Math.max(1, Math.floor(days)) - 1)), to };
}

/** What the address bar says about the range: a preset (`?days=7`) or a chosen range (`?from=…&to=…`). */
export type RangeChoice = { range: Range; preset: Preset | null; error: string | null };

/**
 * The range from the screen's search parameters: `from` and `to` (a chosen range), else `days` (a preset),
 * else the default 30 days. A chosen range that is malformed, reversed or longer than MAX_RANGE_DAYS gives
 * the default range and a sentence saying why, so the page never asks the API for a range it refuses.
 */
export function rangeFromSearch(params: URLSearchParams, today: Date): RangeChoice {
  const from = params.get("from");
  const to = params.get("to");
  if (from || to) {
    const fallback = presetRange(DEFAULT_PRESET, today);
    const error = rangeError({ from: from ?? "", to: to ?? "" });
    if (error) return { range: fallback, preset: DEFAULT_PRESET, error };
    return { range: { from: from ?? "", to: to ?? "" }, preset: null, error: null };
  }
  const days = Number(params.get("days"));
  const preset = RANGE_PRESETS.find((p) => p === days) ?? DEFAULT_PRESET;
  return { range: presetRange(preset, today), preset, error: null };
}

/** Why a chosen range cannot be shown, or null when it can. */
export function rangeError({ from, to }: Range): string | null {
  if (dayMs(from) === null) return "Choose a valid start day (YYYY-MM-DD).";
  if (dayMs(to) === null) return "Choose a valid end day (YYYY-MM-DD).";
  const days = daysInRange({ from, to });
  if (days === 0) return "The start day must not be after the end day.";
  if (days > MAX_RANGE_DAYS) return `Choose at most ${formatCount(MAX_RANGE_DAYS)} days.`;
  return null;
}

/** The search parameters for a preset or a chosen range (the other keys of `params` kept). */
export function searchForRange(params: URLSearchParams, choice: { preset: Preset } | { range: Range }): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete("from");
  next.delete("to");
  next.delete("days");
  if ("preset" in choice) {
    if (choice.preset !== DEFAULT_PRESET) next.set("days", String(choice.preset));
  } else {
    next.set("from", choice.range.from);
    next.set("to", choice.range.to);
  }
  return next;
}

/** A line of the chart: which field of a day it draws, its name, and its look (docs/adr/0043-dashboard-analytics.md). */
export type ChartSeries = { key: "humans" | "unique" | "bots"; label: string; tone: "humans" | "unique" | "bots" };

/** The chart's description for screen readers: the range, each series' total and the busiest day. */
export function describeChart(points: readonly DayPoint[], series: readonly ChartSeries[]): string {
  if (points.length === 0) return "No days to show.";
  const first = points[0]?.day ?? "";
  const last = points.at(-1)?.day ?? "";
  const totals = totalsOf(points);
  const main = series[0]?.key ?? "humans";
  const busiest = points.reduce((best, p) => (p[main] > best[main] ? p : best), points[0] ?? { day: "", humans: 0, unique: 0, bots: 0 });
  const sums = series.map((s) => `${formatCount(totals[s.key])} ${s.label.toLowerCase()}`).join(", ");
  const peak = busiest[main] > 0 ? ` Busiest day: ${dayLabel(busiest.day, true)} with ${formatCount(busiest[main])} ${series[0]?.label.toLowerCase() ?? ""}.` : "";
  return `${points.length} days from ${dayLabel(first, true)} to ${dayLabel(last, true)}: ${sums}.${peak}`;
}
