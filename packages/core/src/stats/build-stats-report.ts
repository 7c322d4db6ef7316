import type { SystemCtx } from "../context.ts";
import { parseInput } from "../validation/fields.ts";
import { resolveRange, type StatsRange } from "./range.ts";
import { readDailyClicks, readDimensions, readHourlyClicks, readHourOfDay, type StatRow } from "./read-series.ts";
import { MAX_HOURLY_DAYS, MAX_STATS_DAYS, STAT_DIMENSIONS, StatsRangeInput, type StatName } from "./schemas.ts";

/** Every series of one link over one range: what the public stats page shows. */
export type StatsReport = {
  range: StatsRange;
  /** Clicks in the range. */
  total: number;
  /** Every series of CONTRACT §8; `clicks_hour` is null when the range is longer than 31 days. */
  series: Record<StatName, StatRow[] | null> & { clicks: StatRow[] };
  /** Clicks by UTC hour of the day (00 first), summed over the range. */
  hourOfDay: number[];
};

/**
 * All the statistics of a link for its public page. No owner check: the caller has already decided the
 * visitor may see them (the link's privacy setting, docs/statistics.md).
 */
export async function buildStatsReport({ ctx, linkId, input }: { ctx: SystemCtx; linkId: number; input: StatsRangeInput }): Promise<StatsReport> {
  const p = parseInput(StatsRangeInput, input);
  const range = resolveRange(p, ctx.now(), MAX_STATS_DAYS);
  const hasHourly = range.days <= MAX_HOURLY_DAYS;
  const [clicks, hourly, hourOfDay, dimensions] = await Promise.all([
    readDailyClicks(ctx.db, linkId, range),
    hasHourly ? readHourlyClicks(ctx.db, linkId, range) : Promise.resolve(null),
    readHourOfDay(ctx.db, linkId, range),
    readDimensions(ctx.db, linkId, range, STAT_DIMENSIONS),
  ]);
  return {
    range,
    total: clicks.reduce((sum, r) => sum + r.count, 0),
    series: { clicks, clicks_hour: hourly, ...dimensions },
    hourOfDay,
  };
}
