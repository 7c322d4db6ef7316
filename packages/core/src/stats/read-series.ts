import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@shortener/db";
import { eachDay, type StatsRange } from "./range.ts";
import { STAT_DIMENSIONS, type StatDimensionName, type StatName } from "./schemas.ts";

/** One row of a series: a day, an hour or a dimension's value, and its clicks. */
export type StatRow = { value: string; count: number };

/** The label of clicks whose value is not known (stored as ''). */
export const UNKNOWN_VALUE = "Unknown";

const HOURS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0"));

/** Clicks a day from the rollups, every day of the range included (0 when there were none). */
export async function readDailyClicks(db: Db, linkId: number, range: StatsRange): Promise<StatRow[]> {
  const rows = await queryRows<{ day: string; count: unknown }>(
    db,
    sql`select day::text as day, count from link_stats_daily
        where link_id = ${linkId} and dimension = 'clicks' and day between ${range.from}::date and ${range.to}::date`,
  );
  const byDay = new Map(rows.map((r) => [r.day, Number(r.count)]));
  return eachDay(range).map((day) => ({ value: day, count: byDay.get(day) ?? 0 }));
}

/** Clicks an hour (`YYYY-MM-DDTHH:00Z`) from the hourly rollups, every hour of the range included. */
export async function readHourlyClicks(db: Db, linkId: number, range: StatsRange): Promise<StatRow[]> {
  const rows = await queryRows<{ day: string; hour: string; count: unknown }>(
    db,
    sql`select day::text as day, value as hour, count from link_stats_daily
        where link_id = ${linkId} and dimension = 'clicks_hour' and day between ${range.from}::date and ${range.to}::date`,
  );
  const byHour = new Map(rows.map((r) => [`${r.day}T${r.hour}`, Number(r.count)]));
  return eachDay(range).flatMap((day) => HOURS.map((h) => ({ value: `${day}T${h}:00Z`, count: byHour.get(`${day}T${h}`) ?? 0 })));
}

/** Clicks by UTC hour of the day (24 numbers, 00 first), summed over the range. */
export async function readHourOfDay(db: Db, linkId: number, range: StatsRange): Promise<number[]> {
  const rows = await queryRows<{ hour: string; count: unknown }>(
    db,
    sql`select value as hour, sum(count) as count from link_stats_daily
        where link_id = ${linkId} and dimension = 'clicks_hour' and day between ${range.from}::date and ${range.to}::date
        group by value`,
  );
  const byHour = new Map(rows.map((r) => [r.hour, Number(r.count)]));
  return HOURS.map((h) => byHour.get(h) ?? 0);
}

/**
 * Each dimension's values over the range, ranked: by count descending, ties by value (byte order, so
 * both drivers agree). Unknown values ('' in the rollups) are "Unknown".
 */
export async function readDimensions(db: Db, linkId: number, range: StatsRange, dimensions: readonly StatDimensionName[]): Promise<Record<StatDimensionName, StatRow[]>> {
  const result = Object.fromEntries(STAT_DIMENSIONS.map((d) => [d, [] as StatRow[]])) as Record<StatDimensionName, StatRow[]>;
  if (!dimensions.length) return result;
  const rows = await queryRows<{ dimension: StatDimensionName; value: string; count: unknown }>(
    db,
    sql`select dimension, value, count from (${summed(linkId, range, dimensions)}) ranked
        order by dimension, count desc, value collate "C"`,
  );
  for (const r of rows) result[r.dimension].push({ value: r.value, count: Number(r.count) });
  return result;
}

/** The values of a dimension beyond its top ones, added up: how many values, and their clicks. */
export type FoldedValues = { values: number; count: number };

/**
 * Like `readDimensions`, but each dimension keeps only its `top` values; the rest are added up in the
 * database (the rows sent over stay few however many values there are) and come back as `folded`.
 */
export async function readTopDimensions(
  db: Db,
  linkId: number,
  range: StatsRange,
  dimensions: readonly StatDimensionName[],
  top: number,
): Promise<{ rows: Record<StatDimensionName, StatRow[]>; folded: Record<StatDimensionName, FoldedValues | null> }> {
  const rows = Object.fromEntries(STAT_DIMENSIONS.map((d) => [d, [] as StatRow[]])) as Record<StatDimensionName, StatRow[]>;
  const folded = Object.fromEntries(STAT_DIMENSIONS.map((d) => [d, null])) as Record<StatDimensionName, FoldedValues | null>;
  if (!dimensions.length) return { rows, folded };
  const result = await queryRows<{ dimension: StatDimensionName; rank: unknown; value: string; count: unknown; n: unknown }>(
    db,
    sql`select dimension, rank, min(value) as value, sum(count) as count, count(*) as n
        from (
          select dimension, value, count, least(row_number() over (partition by dimension order by count desc, value collate "C"), ${top + 1}) as rank
          from (${summed(linkId, range, dimensions)}) summed
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
function summed(linkId: number, range: StatsRange, dimensions: readonly StatDimensionName[]) {
  const list = sql.join(
    dimensions.map((d) => sql`${d}`),
    sql`, `,
  );
  return sql`select dimension, coalesce(nullif(value, ''), ${UNKNOWN_VALUE}) as value, sum(count) as count
             from link_stats_daily
             where link_id = ${linkId} and dimension in (${list}) and day between ${range.from}::date and ${range.to}::date
             group by 1, 2`;
}

/** All clicks of the range, from the daily totals. */
export async function readTotal(db: Db, linkId: number, range: StatsRange): Promise<number> {
  const [row] = await queryRows<{ total: unknown }>(
    db,
    sql`select coalesce(sum(count), 0) as total from link_stats_daily
        where link_id = ${linkId} and dimension = 'clicks' and day between ${range.from}::date and ${range.to}::date`,
  );
  return Number(row?.total ?? 0);
}

/** One named series of CONTRACT §8 over the range, whole. */
export async function readSeries(db: Db, linkId: number, name: StatName, range: StatsRange): Promise<StatRow[]> {
  if (name === "clicks") return readDailyClicks(db, linkId, range);
  if (name === "clicks_hour") return readHourlyClicks(db, linkId, range);
  return (await readDimensions(db, linkId, range, [name]))[name];
}
