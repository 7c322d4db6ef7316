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

/**
 * `links`: the caller's live links ranked by clicks in the range (ties by id), the top 100; `value` is
 * the short URL. Read from the account's `link` rows; the best candidates are joined to the links, and
 * more are read only when deleted links push live ones out (docs/adr/0042-account-wide-statistics.md).
 */
export async function readTopLinks(db: Db, userId: number, range: StatsRange): Promise<StatRow[]> {
  for (let candidates = TOP_ROWS * 2; ; candidates *= 8) {
    // Ranked on the rollups' text values (digits: by length, then bytes, is by number); only the
    // candidates are cast and joined, so the work grows with the rows of the range, not with the links.
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
    const live = rows.filter((r) => r.name !== null && r.alias !== null);
    if (live.length >= TOP_ROWS || rows.length < candidates) {
      return live.slice(0, TOP_ROWS).map((r) => ({ value: `${r.name}/${r.alias}`, id: Number(r.id), count: Number(r.count), link: { domainName: r.name ?? "", alias: r.alias ?? "" } }));
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
