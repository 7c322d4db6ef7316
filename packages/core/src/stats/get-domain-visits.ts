import { and, eq, sql } from "drizzle-orm";
import { domains, queryRows } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { pageOf, seriesRange, type StatsPage } from "./get-stats.ts";
import { eachDay, type StatsRange } from "./range.ts";
import { DomainVisitsInput, TOP_ROWS, type DomainVisitsName } from "./schemas.ts";

/** A domain's orphan visits over a range (CONTRACT §21): humans by kind, and bots of every kind. */
export type DomainVisitsSummary = { index: number; not_found: number; disabled: number; expired: number; bots: number };

/** The summary, or one page of `clicks` (a row a day) or `alias` (the top 100 unknown aliases). */
export type DomainVisits = ({ kind: "summary"; range: StatsRange } & DomainVisitsSummary) | ({ kind: "list" } & StatsPage<Exclude<DomainVisitsName, "summary">>);

/**
 * CONTRACT §21: visits to one of the caller's domains that reached no link (another user's domain is
 * NOT_FOUND, as a missing one), from `domain_visits_daily`.
 */
export async function getDomainVisits({ ctx, input }: { ctx: Ctx; input: DomainVisitsInput }): Promise<DomainVisits> {
  const p = parseInput(DomainVisitsInput, input);
  const range = seriesRange(p.name, p, ctx.now());
  const [domain] = await ctx.db
    .select({ id: domains.id })
    .from(domains)
    .where(and(eq(domains.id, p.id), eq(domains.workspaceId, ctx.actor.workspaceId)))
    .limit(1);
  if (!domain) throw new NotFoundError("Domain");
  const days = sql`domain_id = ${domain.id} and day between ${range.from}::date and ${range.to}::date`;
  if (p.name === "summary") {
    const rows = await queryRows<{ kind: keyof DomainVisitsSummary; count: unknown }>(
      ctx.db,
      sql`select kind, sum(count) as count from domain_visits_daily
          where ${days} and kind in ('index', 'not_found', 'disabled', 'expired', 'bots') group by kind`,
    );
    const summary: DomainVisitsSummary = { index: 0, not_found: 0, disabled: 0, expired: 0, bots: 0 };
    for (const r of rows) summary[r.kind] = Number(r.count);
    return { kind: "summary", range, ...summary };
  }
  if (p.name === "clicks") {
    const rows = await queryRows<{ is_bot: boolean; day: string; count: unknown }>(
      ctx.db,
      sql`select kind = 'bots' as is_bot, day::text as day, sum(count) as count from domain_visits_daily
          where ${days} and kind in ('index', 'not_found', 'disabled', 'expired', 'bots') group by 1, 2`,
    );
    const humans = new Map<string, number>();
    const bots = new Map<string, number>();
    for (const r of rows) (r.is_bot ? bots : humans).set(r.day, Number(r.count));
    const series = eachDay(range).map((day) => ({ value: day, count: humans.get(day) ?? 0, bots: bots.get(day) ?? 0 }));
    return { kind: "list", ...pageOf(series, p.page, p.per_page), name: p.name, range };
  }
  const rows = await queryRows<{ value: string; count: unknown }>(
    ctx.db,
    sql`select value, sum(count) as count from domain_visits_daily
        where ${days} and kind = 'alias' group by value
        order by 2 desc, value collate "C" limit ${TOP_ROWS}`,
  );
  const aliases = rows.map((r) => ({ value: r.value, count: Number(r.count) }));
  return { kind: "list", ...pageOf(aliases, p.page, p.per_page), name: p.name, range };
}
