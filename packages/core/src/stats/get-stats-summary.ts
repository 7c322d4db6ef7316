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
export type StatsSummary = {
  range: StatsRange;
  clicks: number;
  uniqueVisitors: number;
  bots: number;
  /** How many of `clicks` were carried over from another service (CONTRACT §23): in the days the source reported. */
  importedClicks: number;
  firstClickAt: Date | null;
  lastClickAt: Date | null;
};

const HOUR_MS = 3_600_000;

/**
 * The first and last click of some links in a range of days (docs/adr/0042-account-wide-statistics.md):
 * the raw clicks' `(link_id, created_at)` index gives the exact moments while they are kept; the hourly
 * rollups say which hours had clicks, and stay after `CLICK_RETENTION_DAYS` dropped the raw rows. The
 * raw moment is taken when it falls in the rollups' first (or last) hour; otherwise — the raw clicks
 * of that hour are gone — the start of that hour is the answer.
 */
async function readFirstLast(db: Db, linkIds: readonly number[], from: string, to: string): Promise<{ first: Date | null; last: Date | null }> {
  // One ordered index probe a link for each end (never a scan of the range's clicks), over the raw
  // clicks' (link_id, created_at) index and the rollups' primary key.
  const ids = sql`unnest(${`{${linkIds.join(",")}}`}::int[]) as l(id)`;
  const lower = `${from}T00:00:00Z`;
  const upper = `${addDays(to, 1)}T00:00:00Z`;
  const raw = (order: SQL) =>
    sql`select c.created_at from ${ids}, lateral (select created_at from clicks where link_id = l.id and created_at >= ${lower}::timestamptz and created_at < ${upper}::timestamptz order by ${order} limit 1) c`;
  const hour = (order: SQL) =>
    sql`select h.day::text || 'T' || h.value as hour from ${ids}, lateral (select day, value from link_stats_daily where link_id = l.id and dimension = 'clicks_hour' and day between ${from}::date and ${to}::date order by ${order} limit 1) h`;
  const [row] = await queryRows<{ raw_first: unknown; raw_last: unknown; first_hour: string | null; last_hour: string | null }>(
    db,
    sql`select
          (select min(created_at) from (${raw(sql`created_at`)}) f) as raw_first,
          (select max(created_at) from (${raw(sql`created_at desc`)}) f) as raw_last,
          (select min(hour) from (${hour(sql`day, value`)}) f) as first_hour,
          (select max(hour) from (${hour(sql`day desc, value desc`)}) f) as last_hour`,
  );
  const rawFirst = row?.raw_first == null ? null : new Date(row.raw_first as string | Date);
  const rawLast = row?.raw_last == null ? null : new Date(row.raw_last as string | Date);
  const hourFirst = row?.first_hour ? new Date(`${row.first_hour}:00:00.000Z`) : null;
  const hourLast = row?.last_hour ? new Date(`${row.last_hour}:00:00.000Z`) : null;
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
  const [totals, moments] = await Promise.all([readTotals(ctx.db, linkId, range), readFirstLast(ctx.db, [linkId], range.from, range.to)]);
  return {
    range,
    clicks: totals.clicks,
    uniqueVisitors: totals.unique,
    bots: totals.bots,
    importedClicks: totals.imported,
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
 * the first (and the last) day with clicks (that day's rows of `account_link_daily`), read as for one
 * link — exact while the raw clicks are kept. When that day had more than ACCOUNT_PROBED_LINKS links
 * clicked, or its links are gone (deleted since), the answer is the bound of that day: its start for
 * the first click, its end (or now, for today) for the last.
 */
export async function readAccountSummary(db: Db, scope: RollupScope & { workspaceId: number }, range: StatsRange, now: Date): Promise<Omit<StatsSummary, "range">> {
  const totals = await readTotals(db, scope, range);
  if (!totals.clicks) return { clicks: 0, uniqueVisitors: totals.unique, bots: totals.bots, importedClicks: 0, firstClickAt: null, lastClickAt: null };
  const [days] = await queryRows<{ first: string | null; last: string | null }>(
    db,
    sql`select min(day)::text as first, max(day)::text as last from account_stats_daily
        where workspace_id = ${scope.workspaceId} and dimension = 'clicks' and count > 0 and day between ${range.from}::date and ${range.to}::date`,
  );
  const momentOf = async (day: string | null | undefined, end: "first" | "last"): Promise<Date | null> => {
    if (!day) return null;
    const bound = end === "first" ? new Date(`${day}T00:00:00.000Z`) : new Date(Math.min(now.getTime(), Date.parse(`${addDays(day, 1)}T00:00:00.000Z`) - 1));
    const links = await queryRows<{ link_id: unknown }>(
      db,
      sql`select link_id from account_link_daily where workspace_id = ${scope.workspaceId} and day = ${day}::date limit ${ACCOUNT_PROBED_LINKS + 1}`,
    );
    if (!links.length || links.length > ACCOUNT_PROBED_LINKS) return bound;
    const ids = links.map((l) => Number(l.link_id));
    return (await readFirstLast(db, ids, day, day))[end] ?? bound;
  };
  const [firstClickAt, lastClickAt] = await Promise.all([momentOf(days?.first, "first"), momentOf(days?.last, "last")]);
  return { clicks: totals.clicks, uniqueVisitors: totals.unique, bots: totals.bots, importedClicks: totals.imported, firstClickAt, lastClickAt };
}
