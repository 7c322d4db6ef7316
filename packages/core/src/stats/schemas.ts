import { z } from "zod";
import { PER_PAGE_VALUES } from "../lists/pagination.ts";
import { IdInput } from "../validation/id-input.ts";
import { defaulted, idField, intEnumField, intField, onCreate, stringEnumField } from "../validation/fields.ts";

/** The series of CONTRACT §8 and §21 (`bots`), in the order the API documents them. */
export const STAT_NAMES = ["clicks", "clicks_hour", "country", "platform", "browser", "device", "language", "referrer", "bots", "variant"] as const;
export type StatName = (typeof STAT_NAMES)[number];

/** The series that rank values by count (the others are time series). */
export const STAT_DIMENSIONS = ["country", "platform", "browser", "device", "language", "referrer"] as const;
export type StatDimensionName = (typeof STAT_DIMENSIONS)[number];
/** The value series a link's rollups rank: the dimensions of §8 and bots by name (§21). */
export type RankedDimension = StatDimensionName | "bots" | "variant";

/** What `GET /api/v1/stats/{id}?name=` takes: the summary (§21) or one series. */
export const LINK_STATS_NAMES = ["summary", ...STAT_NAMES] as const;
/** The account-wide calls of `GET /api/v1/stats?name=` (CONTRACT §21). */
export const ACCOUNT_STATS_NAMES = ["summary", "clicks", "links", ...STAT_DIMENSIONS] as const;
export type AccountStatsName = (typeof ACCOUNT_STATS_NAMES)[number];
/** The calls of `GET /api/v1/domains/{id}/visits?name=` (orphan visits, CONTRACT §21). */
export const DOMAIN_VISITS_NAMES = ["summary", "clicks", "alias"] as const;
export type DomainVisitsName = (typeof DOMAIN_VISITS_NAMES)[number];
/** Rows of the top lists of §21 (`links`, `bots`, a domain's unknown aliases). */
export const TOP_ROWS = 100;

/**
 * Longest range of the daily series `clicks`, in days (both ends included): about ten years (CONTRACT
 * §15). The hourly series takes at most 31 days (§8); the other series take any range.
 */
export const MAX_DAILY_DAYS = 3660;
/** Longest range of the hourly series (CONTRACT §8). */
export const MAX_HOURLY_DAYS = 31;
/** The default range: the last 30 days, today included (UTC). */
export const DEFAULT_STATS_DAYS = 30;

/** True for `YYYY-MM-DD` naming a real calendar day, 0001-01-01 to 9999-12-31 (Postgres has no year 0). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value.startsWith("0000")) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

/** An optional `YYYY-MM-DD`; an empty form value (null) counts as not sent. */
function dateField(label: string) {
  const message = `The ${label} date must be a date in the format YYYY-MM-DD.`;
  return onCreate(z.string({ error: message }).refine((value) => value === "" || isCalendarDate(value), { error: message })).transform((v) => (v === "" ? undefined : v));
}

/** A date range as the stats API and page take it (`from`/`to`, UTC days, both included). */
export const StatsRangeInput = z.object({
  from: dateField("from"),
  to: dateField("to"),
});
export type StatsRangeInput = z.input<typeof StatsRangeInput>;

/**
 * `GET /api/v1/stats/{link_id}` and tRPC `stats.get`. Without `per_page` the whole series is one page;
 * with it (10, 25, 50 or 100) the rows are paged in their order (docs/statistics.md).
 */
export const GetStatsInput = z.object({
  link_id: idField("link id"),
  name: stringEnumField("name", STAT_NAMES),
  ...StatsRangeInput.shape,
  page: defaulted(intField("page", { min: 1, max: 1_000_000 }), 1),
  per_page: onCreate(intEnumField("per page", PER_PAGE_VALUES)),
});
export type GetStatsInput = z.input<typeof GetStatsInput>;

/** `GET /api/v1/stats/{link_id}` as REST takes it: the summary or a series (then `GetStatsInput` decides). */
export const LinkStatsQueryInput = GetStatsInput.extend({ name: stringEnumField("name", LINK_STATS_NAMES) });
export type LinkStatsQueryInput = z.input<typeof LinkStatsQueryInput>;

/** tRPC `stats.summary` and `?name=summary`: one of the caller's links over a range. */
export const StatsSummaryInput = z.object({
  link_id: idField("link id"),
  ...StatsRangeInput.shape,
});
export type StatsSummaryInput = z.input<typeof StatsSummaryInput>;

/** `GET /api/v1/stats?name=…` and tRPC `stats.account`: every link of the caller at once. */
export const AccountStatsInput = z.object({
  name: stringEnumField("name", ACCOUNT_STATS_NAMES),
  ...StatsRangeInput.shape,
  page: defaulted(intField("page", { min: 1, max: 1_000_000 }), 1),
  per_page: onCreate(intEnumField("per page", PER_PAGE_VALUES)),
});
export type AccountStatsInput = z.input<typeof AccountStatsInput>;

/** `GET /api/v1/domains/{id}/visits?name=…` and tRPC `domains.visits`: one of the caller's domains. */
export const DomainVisitsInput = z.object({
  ...IdInput.shape,
  name: stringEnumField("name", DOMAIN_VISITS_NAMES),
  ...StatsRangeInput.shape,
  page: defaulted(intField("page", { min: 1, max: 1_000_000 }), 1),
  per_page: onCreate(intEnumField("per page", PER_PAGE_VALUES)),
});
export type DomainVisitsInput = z.input<typeof DomainVisitsInput>;
