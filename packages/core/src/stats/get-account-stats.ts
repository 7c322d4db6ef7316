import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { parseInput } from "../validation/fields.ts";
import { pageOf, readSeries, seriesRange, type StatsPage } from "./get-stats.ts";
import { readAccountSummary, type StatsSummary } from "./get-stats-summary.ts";
import type { StatsRange } from "./range.ts";
import type { StatRow } from "./read-series.ts";
import { AccountStatsInput, TOP_ROWS, type AccountStatsName } from "./schemas.ts";

/** An account-wide answer: the summary, or one page of a series (CONTRACT §21). */
export type AccountStats = ({ kind: "summary" } & StatsSummary) | ({ kind: "list" } & StatsPage<Exclude<AccountStatsName, "summary">>);

type LinkTotal = { id: number; count: number; name: string; alias: string };

const toRow = (r: LinkTotal): StatRow => ({ value: `${r.name}/${r.alias}`, id: r.id, count: r.count, link: { domainName: r.name, alias: r.alias } });
const ranked = (a: LinkTotal, b: LinkTotal) => b.count - a.count || a.id - b.id;

/** The most rows a day the threshold reads before `readTopLinks` adds the whole range up instead. */
const MAX_DAILY_DEPTH = 4_800;

/**
 * `links`: the caller's live links ranked by clicks in the range (ties by id), the top 100; `value` is
 * the short URL (docs/adr/0042-account-wide-statistics.md). A threshold over each day's busiest links
 * (the partial index `account_stats_daily_link_count_idx`): the `depth` busiest links of every day are
 * read; a link had at most a day's smallest count read on a day it was not read, so each link read
 * has a lower bound (its counts read) and an upper bound (plus those cutoffs), and a link never read
 * at most the sum of the cutoffs. Let the threshold be the 100th lower bound: links whose upper bound
 * is below it cannot be among the 100, the rest are added up exactly from their own rollups. Exact
 * once the sum of cutoffs is below the threshold and the 100th live link reaches it; otherwise the
 * depth grows, and past MAX_DAILY_DEPTH the range is added up link by link.
 */
export async function readTopLinks(db: Db, userId: number, range: StatsRange): Promise<StatRow[]> {
  for (let depth = TOP_ROWS * 2; depth <= MAX_DAILY_DEPTH; depth *= 4) {
    // One round trip: each day's busiest links, the bounds, the links that can reach the 100th, and
    // their exact totals; only those few rows come back.
    const rows = await queryRows<{ bound: unknown; threshold: unknown; id: unknown; count: unknown; name: string | null; alias: string | null }>(
      db,
      sql`with top as (
            select d.day::date as day, x.value, x.count, x.rn
            from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') as d(day),
            lateral (select value, count, row_number() over (order by count desc) as rn from account_stats_daily
                     where user_id = ${userId} and dimension = 'link' and day = d.day::date
                     order by count desc limit ${depth}) x
          ),
          cut as (select day, count as cutoff from top where rn = ${depth}),
          b as (select coalesce(sum(cutoff), 0) as bound from cut),
          seen as (
            select t.value, sum(t.count) as lower, coalesce(sum(c.cutoff), 0) as seen_cut
            from top t left join cut c on c.day = t.day
            group by t.value
          ),
          th as (
            select case when (select bound from b) = 0 then 0
                        else coalesce((select lower from seen order by lower desc offset ${TOP_ROWS - 1} limit 1), 0) end as threshold
          ),
          survivors as (
            select case when s.value ~ '^[1-9][0-9]{0,8}$' then s.value::int end as id
            from seen s, b, th
            where s.lower + b.bound - s.seen_cut >= th.threshold and (b.bound = 0 or th.threshold > b.bound)
          )
          select (select bound from b) as bound, (select threshold from th) as threshold, k.id, t.count, k.name, k.alias
          from (select 1) one
          left join lateral (
            select link_id, sum(count) as count from link_stats_daily
            where link_id in (select id from survivors where id is not null) and dimension = 'clicks'
              and day between ${range.from}::date and ${range.to}::date
            group by link_id
          ) t on true
          -- One primary-key lookup a survivor (limit 1 keeps it one: a join would read every link of the account).
          left join lateral (
            select l.id, l.alias, dm.name from links l join domains dm on dm.id = l.domain_id
            where l.id = t.link_id and l.user_id = ${userId}
            limit 1
          ) k on true`,
    );
    const bound = Number(rows[0]?.bound ?? 0);
    const threshold = Number(rows[0]?.threshold ?? 0);
    // Not settled at this depth: a link never read could still reach the 100th.
    if (bound > 0 && threshold <= bound) continue;
    const live = rows
      .filter((r): r is typeof r & { name: string; alias: string } => r.name !== null && r.alias !== null && Number(r.count) > 0)
      .map((r) => ({ id: Number(r.id), count: Number(r.count), name: r.name, alias: r.alias }))
      .sort(ranked);
    // Exact when nothing left out can reach the 100th live link: every link left out had less than the threshold.
    if (bound === 0 || (live.length >= TOP_ROWS && (live[TOP_ROWS - 1]?.count ?? 0) >= threshold)) return live.slice(0, TOP_ROWS).map(toRow);
  }
  return readTopLinksByScan(db, userId, range);
}

/** The whole range added up link by link, ranked; only the best candidates are joined to the links. */
async function readTopLinksByScan(db: Db, userId: number, range: StatsRange): Promise<StatRow[]> {
  for (let candidates = TOP_ROWS * 2; ; candidates *= 8) {
    // Ranked on the rollups' text values (digits: by length, then bytes, is by number); only the
    // candidates are cast and joined.
    const rows = await queryRows<{ id: unknown; count: unknown; name: string | null; alias: string | null }>(
      db,
      sql`with ranked as (
            select value, sum(count) as count from account_stats_daily
            where user_id = ${userId} and dimension = 'link' and day between ${range.from}::date and ${range.to}::date
            group by value
            order by 2 desc, length(value), value collate "C"
            limit ${candidates}
          )
          select case when r.value ~ '^[1-9][0-9]{0,8}$' then r.value::int end as id, r.count, d.name, l.alias
          from ranked r
          left join links l on l.id = (case when r.value ~ '^[1-9][0-9]{0,8}$' then r.value::int end) and l.user_id = ${userId}
          left join domains d on d.id = l.domain_id
          where r.count > 0
          order by r.count desc, length(r.value), r.value collate "C"`,
    );
    const live = rows.filter((r): r is typeof r & { name: string; alias: string } => r.name !== null && r.alias !== null);
    if (live.length >= TOP_ROWS || rows.length < candidates) {
      return live.slice(0, TOP_ROWS).map((r) => toRow({ id: Number(r.id), count: Number(r.count), name: r.name, alias: r.alias }));
    }
  }
}

/**
 * CONTRACT §21: every link of the caller at once, from `account_stats_daily` (an index range per
 * dimension, whatever the number of links). `summary` as for one link; `clicks` a row a day with
 * `unique` and `bots`; `links` the top 100 links; the breakdowns as §8.
 */
export async function getAccountStats({ ctx, input }: { ctx: Ctx; input: AccountStatsInput }): Promise<AccountStats> {
  const p = parseInput(AccountStatsInput, input);
  const range = seriesRange(p.name, p, ctx.now());
  const scope = { userId: ctx.actor.userId };
  if (p.name === "summary") return { kind: "summary", range, ...(await readAccountSummary(ctx.db, scope, range, ctx.now())) };
  const rows = p.name === "links" ? await readTopLinks(ctx.db, scope.userId, range) : await readSeries(ctx.db, scope, p.name, range);
  return { kind: "list", ...pageOf(rows, p.page, p.per_page), name: p.name, range };
}
