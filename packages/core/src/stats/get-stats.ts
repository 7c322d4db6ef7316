import { and, eq } from "drizzle-orm";
import { links, type Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import type { Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { resolveRange, type StatsRange } from "./range.ts";
import { readDailyClicks, readDimensions, readHourlyClicks, readTopDimensions, type RollupScope, type StatRow } from "./read-series.ts";
import { GetStatsInput, MAX_DAILY_DAYS, MAX_HOURLY_DAYS, TOP_ROWS, type StatDimensionName, type StatName } from "./schemas.ts";

/** The label of the row adding up the values past a top list (CONTRACT §15, §21). */
export const OTHER_VALUE = "Other";

/** One page of a series, with the range it covers. */
export type StatsPage<N extends string = StatName> = Page<StatRow> & { name: N; range: StatsRange };

/**
 * The range of a series: the daily and hourly ones have a longest range (§8, §15), the others take any.
 * The one home of that rule for links, accounts and domains.
 */
export function seriesRange(name: string, input: { from?: string | undefined; to?: string | undefined }, now: Date): StatsRange {
  if (name === "clicks_hour") return resolveRange(input, now, MAX_HOURLY_DAYS, "clicks_hour");
  if (name === "clicks") return resolveRange(input, now, MAX_DAILY_DAYS, "clicks");
  return resolveRange(input, now);
}

/** The caller's link, or NOT_FOUND exactly as a missing one (CONTRACT §1). */
export async function ownLinkId(ctx: Ctx, linkId: number): Promise<number> {
  const [link] = await ctx.db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.id, linkId), eq(links.workspaceId, ctx.actor.workspaceId)))
    .limit(1);
  if (!link) throw new NotFoundError("Link");
  return link.id;
}

/** `bots`: bot names ranked, the top 100 and then one "Other" row adding up the rest (CONTRACT §21). */
export async function readBots(db: Db, scope: RollupScope, range: StatsRange): Promise<StatRow[]> {
  const { rows, folded } = await readTopDimensions(db, scope, range, ["bots"], TOP_ROWS);
  return folded.bots ? [...rows.bots, { value: OTHER_VALUE, count: folded.bots.count }] : rows.bots;
}

/** One series of a link or an account (no hours for an account), whole. */
export async function readSeries(db: Db, scope: RollupScope, name: StatName, range: StatsRange): Promise<StatRow[]> {
  if (name === "clicks") return readDailyClicks(db, scope, range);
  if (name === "clicks_hour") {
    if (typeof scope !== "number") throw new Error("An account has no hourly series.");
    return readHourlyClicks(db, scope, range);
  }
  if (name === "bots") return readBots(db, scope, range);
  return (await readDimensions(db, scope, range, [name]))[name as StatDimensionName] ?? [];
}

/** Cuts a whole series into the page asked for; without `per_page` the whole series is the one page. */
export function pageOf(rows: StatRow[], page: number, perPage: number | undefined): Page<StatRow> {
  const size = perPage ?? Math.max(1, rows.length);
  const offset = (page - 1) * size;
  return { data: rows.slice(offset, offset + size), total: rows.length, page, perPage: size };
}

/**
 * CONTRACT §8, §21: one series of one of the caller's links (another user's link is NOT_FOUND, as a
 * missing one), read from the daily rollups. Without `per_page` the whole series is the one page. Only
 * the time series, which have a row per hour or day, have a longest range (§15).
 */
export async function getStats({ ctx, input }: { ctx: Ctx; input: GetStatsInput }): Promise<StatsPage> {
  const p = parseInput(GetStatsInput, input);
  const range = seriesRange(p.name, p, ctx.now());
  const linkId = await ownLinkId(ctx, p.link_id);
  const rows = await readSeries(ctx.db, linkId, p.name, range);
  return { ...pageOf(rows, p.page, p.per_page), name: p.name, range };
}
