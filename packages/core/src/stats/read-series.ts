import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "@shortener/db";
import { eachDay, type StatsRange } from "./range.ts";
import type { RankedDimension } from "./schemas.ts";

/**
 * One row of a series: a day, an hour or a dimension's value, and its clicks (humans). Daily rows add
 * the day's `unique` visitors and `bots`, hourly rows `bots`, top links the link's `id` and what its
 * short URL is made of (the adapter makes `value` the `short_url`, CONTRACT §21).
 */
export type StatRow = { value: string; count: number; unique?: number; bots?: number; id?: number; link?: { domainName: string; alias: string } };

/** The label of clicks whose value is not known (stored as ''). */
export const UNKNOWN_VALUE = "Unknown";

const HOURS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0"));

/**
 * Whose daily rollups a read covers: one link's (`link_stats_daily`) or a whole account's
 * (`account_stats_daily`, one index range per dimension whatever the number of links). A bare number is a link.
 */
export type RollupScope = number | { workspaceId: number };

/** `from <rollups> where <owner> = id`: the table and key of a scope (constants only, never input). */
function rollupsOf(scope: RollupScope): SQL {
  return typeof scope === "number" ? sql`from link_stats_daily where link_id = ${scope}` : sql`from account_stats_daily where workspace_id = ${scope.workspaceId}`;
}

function inRange(range: StatsRange): SQL {
  return sql`day between ${range.from}::date and ${range.to}::date`;
}

/** Humans (`count`), unique visitors and bots a day from the rollups, every day of the range included (0s too). */
export async function readDailyClicks(db: Db, scope: RollupScope, range: StatsRange): Promise<StatRow[]> {
  const rows = await queryRows<{ dimension: "clicks" | "unique" | "bots"; day: string; count: unknown }>(
    db,
    sql`select dimension, day::text as day, sum(count) as count ${rollupsOf(scope)}
        and dimension in ('clicks', 'unique', 'bots') and ${inRange(range)}
        group by 1, 2`,
  );
  const byDay = new Map<string, { clicks: number; unique: number; bots: number }>();
  for (const r of rows) {
    const day = byDay.get(r.day) ?? { clicks: 0, unique: 0, bots: 0 };
    day[r.dimension] = Number(r.count);
    byDay.set(r.day, day);
  }
  return eachDay(range).map((value) => {
    const day = byDay.get(value);
    return { value, count: day?.clicks ?? 0, unique: day?.unique ?? 0, bots: day?.bots ?? 0 };
  });
}

/** Humans (`count`) and bots an hour (`YYYY-MM-DDTHH:00Z`) from a link's hourly rollups, every hour of the range included. */
export async function readHourlyClicks(db: Db, linkId: number, range: StatsRange): Promise<StatRow[]> {
  const rows = await queryRows<{ dimension: "clicks_hour" | "bots_hour"; day: string; hour: string; count: unknown }>(
    db,
    sql`select dimension, day::text as day, value as hour, count ${rollupsOf(linkId)}
        and dimension in ('clicks_hour', 'bots_hour') and ${inRange(range)}`,
  );
  const humans = new Map<string, number>();
  const bots = new Map<string, number>();
  for (const r of rows) (r.dimension === "clicks_hour" ? humans : bots).set(`${r.day}T${r.hour}`, Number(r.count));
  return eachDay(range).flatMap((day) => HOURS.map((h) => ({ value: `${day}T${h}:00Z`, count: humans.get(`${day}T${h}`) ?? 0, bots: bots.get(`${day}T${h}`) ?? 0 })));
}

/** Clicks by UTC hour of the day (24 numbers, 00 first), summed over the range. */
export async function readHourOfDay(db: Db, linkId: number, range: StatsRange): Promise<number[]> {
  const rows = await queryRows<{ hour: string; count: unknown }>(
    db,
    sql`select value as hour, sum(count) as count ${rollupsOf(linkId)}
        and dimension = 'clicks_hour' and ${inRange(range)}
        group by value`,
  );
  const byHour = new Map(rows.map((r) => [r.hour, Number(r.count)]));
  return HOURS.map((h) => byHour.get(h) ?? 0);
}

/**
 * Humans, unique visitors and bots over the whole range (the summary's counts, CONTRACT §21), and how
 * many of those clicks were carried over from another service (`imported`, CONTRACT §23).
 */
export async function readTotals(db: Db, scope: RollupScope, range: StatsRange): Promise<{ clicks: number; unique: number; bots: number; imported: number }> {
  const rows = await queryRows<{ dimension: "clicks" | "unique" | "bots" | "imported"; count: unknown }>(
    db,
    sql`select dimension, sum(count) as count ${rollupsOf(scope)}
        and dimension in ('clicks', 'unique', 'bots', 'imported') and ${inRange(range)}
        group by 1`,
  );
  const totals = { clicks: 0, unique: 0, bots: 0, imported: 0 };
  for (const r of rows) totals[r.dimension] = Number(r.count);
  return totals;
}

/**
 * Each dimension's values over the range, ranked: by count descending, ties by value (byte order, so
 * both drivers agree). Unknown values ('' in the rollups) are "Unknown".
 */
export async function readDimensions(db: Db, scope: RollupScope, range: StatsRange, dimensions: readonly RankedDimension[]): Promise<Partial<Record<RankedDimension, StatRow[]>>> {
  const result: Partial<Record<RankedDimension, StatRow[]>> = Object.fromEntries(dimensions.map((d) => [d, [] as StatRow[]]));
  if (!dimensions.length) return result;
  const rows = await queryRows<{ dimension: RankedDimension; value: string; count: unknown }>(
    db,
    sql`select dimension, value, count from (${summed(scope, range, dimensions)}) ranked
        order by dimension, count desc, value collate "C"`,
  );
  for (const r of rows) result[r.dimension]?.push({ value: r.value, count: Number(r.count) });
  return result;
}

/** The values of a dimension beyond its top ones, added up: how many values, and their clicks. */
export type FoldedValues = { values: number; count: number };

/**
 * Like `readDimensions`, but each dimension keeps only its `top` values; the rest are added up in the
 * database (the rows sent over stay few however many values there are) and come back as `folded`.
 */
export async function readTopDimensions<D extends RankedDimension>(
  db: Db,
  scope: RollupScope,
  range: StatsRange,
  dimensions: readonly D[],
  top: number,
): Promise<{ rows: Record<D, StatRow[]>; folded: Record<D, FoldedValues | null> }> {
  const rows = Object.fromEntries(dimensions.map((d) => [d, [] as StatRow[]])) as Record<D, StatRow[]>;
  const folded = Object.fromEntries(dimensions.map((d) => [d, null])) as Record<D, FoldedValues | null>;
  if (!dimensions.length) return { rows, folded };
  const result = await queryRows<{ dimension: D; rank: unknown; value: string; count: unknown; n: unknown }>(
    db,
    sql`select dimension, rank, min(value) as value, sum(count) as count, count(*) as n
        from (
          select dimension, value, count, least(row_number() over (partition by dimension order by count desc, value collate "C"), ${top + 1}) as rank
          from (${summed(scope, range, dimensions)}) summed
        ) ranked
        group by dimension, rank
        order by dimension, rank`,
  );
  for (const r of result) {
    if (Number(r.rank) <= top) rows[r.dimension].push({ value: r.value, count: Number(r.count) });
    else folded[r.dimension] = { values: Number(r.n), count: Number(r.count) };
  }
  return { rows, folded };
}

/** Clicks per (dimension, value) over the range, unknown values named. */
function summed(scope: RollupScope, range: StatsRange, dimensions: readonly RankedDimension[]): SQL {
  const list = sql.join(
    dimensions.map((d) => sql`${d}`),
    sql`, `,
  );
  return sql`select dimension, coalesce(nullif(value, ''), ${UNKNOWN_VALUE}) as value, sum(count) as count
             ${rollupsOf(scope)} and dimension in (${list}) and ${inRange(range)}
             group by 1, 2`;
}

/** All clicks (humans) of the range, from the daily totals. */
export async function readTotal(db: Db, scope: RollupScope, range: StatsRange): Promise<number> {
  const [row] = await queryRows<{ total: unknown }>(
    db,
    sql`select coalesce(sum(count), 0) as total ${rollupsOf(scope)}
        and dimension = 'clicks' and ${inRange(range)}`,
  );
  return Number(row?.total ?? 0);
}
