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
 * the candidates, added up exactly from their own rollups; a link outside them had at most each day's
 * `depth`-th count on every day, so at most the sum of those. Once that sum is below the 100th
 * candidate's total, no other link can enter: the answer is exact. Otherwise the depth grows, and past
 * MAX_DAILY_DEPTH the range is added up link by link.
 */
export async function readTopLinks(db: Db, userId: number, range: StatsRange): Promise<StatRow[]> {
  for (let depth = TOP_ROWS * 2; depth <= MAX_DAILY_DEPTH; depth *= 4) {
    const days = await queryRows<{ value: string; count: unknown; rn: unknown }>(
      db,
      sql`select x.value, x.count, x.rn
          from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') as d(day),
          lateral (select value, count, row_number() over (order by count desc) as rn from account_stats_daily
                   where user_id = ${userId} and dimension = 'link' and day = d.day::date
                   order by count desc limit ${depth}) x`,
    );
    // The bound of a link outside the candidates: each full day's last (smallest) count read, added up.
    let bound = 0;
    const candidates = new Set<string>();
    for (const r of days) {
      candidates.add(r.value);
      if (Number(r.rn) === depth) bound += Number(r.count);
    }
    const ids = [...candidates].filter((v) => /^[1-9]\d{0,8}$/.test(v));
    const totals = ids.length
      ? await queryRows<{ id: unknown; count: unknown; name: string; alias: string }>(
          db,
          sql`select l.id, s.count, d.name, l.alias
              from (select link_id, sum(count) as count from link_stats_daily
                    where link_id = any(${`{${ids.join(",")}}`}::int[]) and dimension = 'clicks' and day between ${range.from}::date and ${range.to}::date
                    group by link_id) s
              join links l on l.id = s.link_id and l.user_id = ${userId}
              join domains d on d.id = l.domain_id
              where s.count > 0`,
        )
      : [];
    const live = totals.map((r) => ({ id: Number(r.id), count: Number(r.count), name: r.name, alias: r.alias })).sort(ranked);
    const hundredth = live.length >= TOP_ROWS ? (live[TOP_ROWS - 1]?.count ?? 0) : 0;
    if (bound === 0 || bound < hundredth) return live.slice(0, TOP_ROWS).map(toRow);
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
