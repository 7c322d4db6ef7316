import type { SystemCtx } from "../context.ts";
import { parseInput } from "../validation/fields.ts";
import { OTHER_VALUE } from "./get-stats.ts";
import { resolveRange, type StatsRange } from "./range.ts";
import { readDailyClicks, readHourlyClicks, readHourOfDay, readTopDimensions, readTotals, type FoldedValues, type StatRow } from "./read-series.ts";
import { MAX_DAILY_DAYS, MAX_HOURLY_DAYS, STAT_DIMENSIONS, StatsRangeInput, type RankedDimension, type StatName } from "./schemas.ts";

/** Values of each series the public page shows; the rest are added up as one row (CONTRACT §15). */
export const PUBLIC_TOP_VALUES = 100;
export { OTHER_VALUE };

/** Every series of one link over one range: what the public stats page shows. */
export type StatsReport = {
  range: StatsRange;
  /** Clicks (humans) in the range. */
  total: number;
  /** The sum of each day's unique visitors in the range (CONTRACT §21). */
  unique: number;
  /** Visits by bots in the range, never counted as clicks. */
  bots: number;
  /**
   * Every series of CONTRACT §8 and §21. `clicks_hour` is null past 31 days and `clicks` past 3,660
   * days (a row per hour or day); the other series take any range and hold at most their top 100
   * values, then one row `{"value":"Other"}` adding up the rest.
   */
  series: Record<StatName, StatRow[] | null>;
  /** For each ranked series, the values added up in its "Other" row (null when there is none). */
  others: Record<RankedDimension, FoldedValues | null>;
  /** Clicks by UTC hour of the day (00 first), summed over the range. */
  hourOfDay: number[];
};

const RANKED: readonly RankedDimension[] = [...STAT_DIMENSIONS, "bots"];

/**
 * All the statistics of a link for its public page. No owner check: the caller has already decided the
 * visitor may see them (the link's privacy setting, docs/statistics.md). Its size is bounded whatever
 * the traffic: at most 101 rows a value series, and time series only over the ranges that cap them.
 */
export async function buildStatsReport({ ctx, linkId, input }: { ctx: SystemCtx; linkId: number; input: StatsRangeInput }): Promise<StatsReport> {
  const p = parseInput(StatsRangeInput, input);
  const range = resolveRange(p, ctx.now());
  const [totals, clicks, hourly, hourOfDay, dimensions] = await Promise.all([
    readTotals(ctx.db, linkId, range),
    range.days <= MAX_DAILY_DAYS ? readDailyClicks(ctx.db, linkId, range) : Promise.resolve(null),
    range.days <= MAX_HOURLY_DAYS ? readHourlyClicks(ctx.db, linkId, range) : Promise.resolve(null),
    readHourOfDay(ctx.db, linkId, range),
    readTopDimensions(ctx.db, linkId, range, RANKED, PUBLIC_TOP_VALUES),
  ]);
  const series = { clicks, clicks_hour: hourly } as Record<StatName, StatRow[] | null>;
  for (const d of RANKED) {
    const other = dimensions.folded[d];
    series[d] = other ? [...dimensions.rows[d], { value: OTHER_VALUE, count: other.count }] : dimensions.rows[d];
  }
  return { range, total: totals.clicks, unique: totals.unique, bots: totals.bots, series, others: dimensions.folded, hourOfDay };
}
