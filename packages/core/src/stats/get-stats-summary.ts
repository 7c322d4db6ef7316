import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { parseInput } from "../validation/fields.ts";
import { ownLinkId } from "./get-stats.ts";
import { addDays, resolveRange, type StatsRange } from "./range.ts";
import { readTotals, type RollupScope } from "./read-series.ts";
import { StatsSummaryInput } from "./schemas.ts";

/**
 * The counts of a range (CONTRACT §21): humans (`clicks`), the sum of each day's unique visitors, bots,
 * and the first and last human click in the range (null without clicks).
 */
export type StatsSummary = { range: StatsRange; clicks: number; uniqueVisitors: number; bots: number; firstClickAt: Date | null; lastClickAt: Date | null };

const HOUR_MS = 3_600_000;

/** The start of an hour of the rollups: a day and its hour '00'–'23'. */
function hourStart(day: string, hour: string): Date {
  return new Date(`${day}T${hour}:00:00.000Z`);
}

/**
 * The first and last click of some links in a range of days (docs/adr/0042-account-wide-statistics.md):
 * the raw clicks' `(link_id, created_at)` index gives the exact moments while they are kept; the hourly
 * rollups say which hours had clicks, and stay after `CLICK_RETENTION_DAYS` dropped the raw rows. The
 * raw moment is taken when it falls in the rollups' first (or last) hour; otherwise — the raw clicks
 * of that hour are gone — the start of that hour is the answer.
 */
async function readFirstLast(db: Db, ofLinks: SQL, from: string, to: string): Promise<{ first: Date | null; last: Date | null }> {
  const [row] = await queryRows<{ raw_first: unknown; raw_last: unknown; first_day: string | null; first_hour: string | null; last_day: string | null; last_hour: string | null }>(
    db,
    sql`select
          (select min(created_at) from clicks where ${ofLinks} and created_at >= ${`${from}T00:00:00Z`}::timestamptz and created_at < ${`${addDays(to, 1)}T00:00:00Z`}::timestamptz) as raw_first,
          (select max(created_at) from clicks where ${ofLinks} and created_at >= ${`${from}T00:00:00Z`}::timestamptz and created_at < ${`${addDays(to, 1)}T00:00:00Z`}::timestamptz) as raw_last,
          f.day::text as first_day, f.value as first_hour, l.day::text as last_day, l.value as last_hour
        from (select 1) one
        left join lateral (select day, value from link_stats_daily where ${ofLinks} and dimension = 'clicks_hour' and day between ${from}::date and ${to}::date
                           order by day, value limit 1) f on true
        left join lateral (select day, value from link_stats_daily where ${ofLinks} and dimension = 'clicks_hour' and day between ${from}::date and ${to}::date
                           order by day desc, value desc limit 1) l on true`,
  );
  const rawFirst = row?.raw_first == null ? null : new Date(row.raw_first as string | Date);
  const rawLast = row?.raw_last == null ? null : new Date(row.raw_last as string | Date);
  const hourFirst = row?.first_day && row.first_hour ? hourStart(row.first_day, row.first_hour) : null;
  const hourLast = row?.last_day && row.last_hour ? hourStart(row.last_day, row.last_hour) : null;
  if (!hourFirst || !hourLast) return { first: rawFirst, last: rawLast };
  return {
    first: rawFirst && rawFirst.getTime() < hourFirst.getTime() + HOUR_MS ? rawFirst : hourFirst,
    last: rawLast && rawLast.getTime() >= hourLast.getTime() ? rawLast : hourLast,
  };
}

/** The summary of one of the caller's links (CONTRACT §21): the rollups' counts, the raw clicks' moments. */
export async function getStatsSummary({ ctx, input }: { ctx: Ctx; input: StatsSummaryInput }): Promise<StatsSummary> {
  const p = parseInput(StatsSummaryInput, input);
  const range = resolveRange(p, ctx.now());
  const linkId = await ownLinkId(ctx, p.link_id);
  const [totals, moments] = await Promise.all([readTotals(ctx.db, linkId, range), readFirstLast(ctx.db, sql`link_id = ${linkId}`, range.from, range.to)]);
  return {
    range,
    clicks: totals.clicks,
    uniqueVisitors: totals.unique,
    bots: totals.bots,
    ...(totals.clicks ? { firstClickAt: moments.first, lastClickAt: moments.last } : { firstClickAt: null, lastClickAt: null }),
  };
}

/**
 * The most links of one day probed in the raw clicks for an account's first or last click; a busier
 * day gives the bounds of that day instead (docs/adr/0042-account-wide-statistics.md).
 */
export const ACCOUNT_PROBED_LINKS = 256;

/**
 * An account's summary: the counts from `account_stats_daily`; the moments from the links clicked on
 * the first (and the last) day with clicks (that day's `link` rows), read as for one link — exact while
 * the raw clicks are kept. When that day had more than ACCOUNT_PROBED_LINKS links clicked, or its links
 * are gone (deleted since), the answer is the bound of that day: its start for the first click, its end
 * (or now, for today) for the last.
 */
export async function readAccountSummary(db: Db, scope: RollupScope & { userId: number }, range: StatsRange, now: Date): Promise<Omit<StatsSummary, "range">> {
  const totals = await readTotals(db, scope, range);
  if (!totals.clicks) return { clicks: 0, uniqueVisitors: totals.unique, bots: totals.bots, firstClickAt: null, lastClickAt: null };
  const [days] = await queryRows<{ first: string | null; last: string | null }>(
    db,
    sql`select min(day)::text as first, max(day)::text as last from account_stats_daily
        where user_id = ${scope.userId} and dimension = 'clicks' and count > 0 and day between ${range.from}::date and ${range.to}::date`,
  );
  const momentOf = async (day: string | null | undefined, end: "first" | "last"): Promise<Date | null> => {
    if (!day) return null;
    const bound = end === "first" ? new Date(`${day}T00:00:00.000Z`) : new Date(Math.min(now.getTime(), Date.parse(`${addDays(day, 1)}T00:00:00.000Z`) - 1));
    const links = await queryRows<{ value: string }>(
      db,
      sql`select value from account_stats_daily where user_id = ${scope.userId} and dimension = 'link' and day = ${day}::date limit ${ACCOUNT_PROBED_LINKS + 1}`,
    );
    const ids = links.map((l) => l.value).filter((v) => /^[1-9]\d{0,8}$/.test(v));
    if (!ids.length || links.length > ACCOUNT_PROBED_LINKS) return bound;
    return (await readFirstLast(db, sql`link_id = any(${`{${ids.join(",")}}`}::int[])`, day, day))[end] ?? bound;
  };
  const [firstClickAt, lastClickAt] = await Promise.all([momentOf(days?.first, "first"), momentOf(days?.last, "last")]);
  return { clicks: totals.clicks, uniqueVisitors: totals.unique, bots: totals.bots, firstClickAt, lastClickAt };
}
