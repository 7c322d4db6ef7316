import { sql } from "drizzle-orm";
import { pgArray, queryRows, type Db } from "@shortener/db";
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
 * (the index `account_link_daily_count_idx`): the `depth` busiest links of every day are read; a link
 * had at most a day's smallest count read on a day it was not read, so each link read has a lower
 * bound (its counts read) and an upper bound (plus those cutoffs), and a link never read at most the
 * sum of the cutoffs. Let the threshold be the 100th lower bound: links whose upper bound
 * is below it cannot be among the 100, the rest are made exact by adding their counts on the days
 * they were not read (one primary-key probe of `account_link_daily` a link and day). Exact once the
 * sum of cutoffs is below the threshold and the 100th live link reaches it; otherwise the depth
 * grows, and past MAX_DAILY_DEPTH the range is added up link by link.
 */
export async function readTopLinks(db: Db, workspaceId: number, range: StatsRange): Promise<StatRow[]> {
  for (let depth = TOP_ROWS * 2; depth <= MAX_DAILY_DEPTH; depth *= 4) {
    // Added up per link in SQL (a few hundred rows, not depth × days): its counts read and the days (from `from`) it was read.
    // "nulls last" as in the index (count is never null): "desc" alone is nulls first, which sorted every row of each day.
    const rows = await queryRows<{ link_id: unknown; sum: unknown; days: string | null; cutoff: unknown }>(
      db,
      sql`with top as materialized (
            select d.i, x.link_id, x.count, x.rn
            from generate_series(0, ${range.to}::date - ${range.from}::date) as d(i),
            lateral (select link_id, count, row_number() over (order by count desc nulls last) as rn from account_link_daily
                     where workspace_id = ${workspaceId} and day = ${range.from}::date + d.i
                     order by count desc nulls last limit ${depth}) x
          )
          select link_id, sum(count) as sum, string_agg(i::text, ',') as days, null::bigint as cutoff from top group by link_id
          union all
          select null, null, i::text, count from top where rn = ${depth}`,
    );
    // Each day read to its depth has a cutoff: the smallest count read; a link not read that day had at most that.
    const cutoffs = new Map<number, number>();
    const seen = new Map<number, { sum: number; days: Set<number> }>();
    for (const r of rows) {
      if (r.link_id === null) cutoffs.set(Number(r.days), Number(r.cutoff));
      else seen.set(Number(r.link_id), { sum: Number(r.sum), days: new Set((r.days ?? "").split(",").map(Number)) });
    }
    const bound = [...cutoffs.values()].reduce((a, b) => a + b, 0);
    // Lower bound: the counts read; upper bound: plus the cutoff of every day it was not read.
    const lower = [...seen.values()].map((l) => l.sum).sort((a, b) => b - a);
    const threshold = bound === 0 ? 0 : (lower[TOP_ROWS - 1] ?? 0);
    if (bound > 0 && threshold <= bound) continue;
    const survivors: number[] = [];
    // The survivors' days not read that had a cutoff (a day read to its end holds none of their clicks).
    const missing: { links: number[]; days: number[] } = { links: [], days: [] };
    for (const [linkId, l] of seen) {
      let upper = l.sum;
      for (const [day, cutoff] of cutoffs) if (!l.days.has(day)) upper += cutoff;
      if (upper < threshold) continue;
      survivors.push(linkId);
      for (const day of cutoffs.keys()) {
        if (l.days.has(day)) continue;
        missing.links.push(linkId);
        missing.days.push(day);
      }
    }
    const totals = survivors.length
      ? await queryRows<{ id: unknown; missing: unknown; name: string; alias: string }>(
          db,
          sql`select k.id, coalesce(m.count, 0) as missing, k.name, k.alias
              from unnest(${pgArray(survivors)}::int[]) as s(id)
              -- One primary-key lookup a link (limit 1 keeps it one: a join would read every link of the account).
              join lateral (select l.id, l.alias, d.name from links l join domains d on d.id = l.domain_id
                            where l.id = s.id and l.workspace_id = ${workspaceId} limit 1) k on true
              left join (select p.link_id, sum(a.count) as count
                         from unnest(${pgArray(missing.links)}::int[], ${pgArray(missing.days)}::int[]) as p(link_id, i)
                         join account_link_daily a on a.workspace_id = ${workspaceId} and a.day = ${range.from}::date + p.i and a.link_id = p.link_id
                         group by p.link_id) m on m.link_id = s.id`,
        )
      : [];
    const live = totals
      .map((r) => ({ id: Number(r.id), count: (seen.get(Number(r.id))?.sum ?? 0) + Number(r.missing), name: r.name, alias: r.alias }))
      .filter((r) => r.count > 0)
      .sort(ranked);
    // Exact when nothing left out can reach the 100th live link: every link dropped had less than the threshold.
    if (bound === 0 || (live.length >= TOP_ROWS && (live[TOP_ROWS - 1]?.count ?? 0) >= threshold)) return live.slice(0, TOP_ROWS).map(toRow);
  }
  return readTopLinksByScan(db, workspaceId, range);
}

/** The whole range added up link by link, ranked; only the best candidates are joined to the links. */
async function readTopLinksByScan(db: Db, workspaceId: number, range: StatsRange): Promise<StatRow[]> {
  for (let candidates = TOP_ROWS * 2; ; candidates *= 8) {
    // Only the candidates are joined to the links.
    const rows = await queryRows<{ id: unknown; count: unknown; name: string | null; alias: string | null }>(
      db,
      sql`with ranked as (
            select link_id, sum(count) as count from account_link_daily
            where workspace_id = ${workspaceId} and day between ${range.from}::date and ${range.to}::date
            group by link_id
            order by 2 desc, 1
            limit ${candidates}
          )
          select r.link_id as id, r.count, k.name, k.alias
          from ranked r
          left join lateral (select l.alias, d.name from links l join domains d on d.id = l.domain_id
                             where l.id = r.link_id and l.workspace_id = ${workspaceId} limit 1) k on true
          where r.count > 0
          order by r.count desc, r.link_id`,
    );
    const live = rows.filter((r): r is typeof r & { name: string; alias: string } => r.name !== null && r.alias !== null);
    if (live.length >= TOP_ROWS || rows.length < candidates) {
      return live.slice(0, TOP_ROWS).map((r) => toRow({ id: Number(r.id), count: Number(r.count), name: r.name, alias: r.alias }));
    }
  }
}

/**
 * CONTRACT §21: every link of the caller at once, from `account_stats_daily` (an index range per
 * dimension, whatever the number of links) and, for `links`, `account_link_daily`. `summary` as for
 * one link; `clicks` a row a day with `unique` and `bots`; `links` the top 100 links; the breakdowns
 * as §8.
 */
export async function getAccountStats({ ctx, input }: { ctx: Ctx; input: AccountStatsInput }): Promise<AccountStats> {
  const p = parseInput(AccountStatsInput, input);
  const range = seriesRange(p.name, p, ctx.now());
  const scope = { workspaceId: ctx.actor.workspaceId };
  if (p.name === "summary") return { kind: "summary", range, ...(await readAccountSummary(ctx.db, scope, range, ctx.now())) };
  const rows = p.name === "links" ? await readTopLinks(ctx.db, scope.workspaceId, range) : await readSeries(ctx.db, scope, p.name, range);
  return { kind: "list", ...pageOf(rows, p.page, p.per_page), name: p.name, range };
}
