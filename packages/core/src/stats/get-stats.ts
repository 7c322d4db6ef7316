import { and, eq } from "drizzle-orm";
import { links } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import type { Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { resolveRange, type StatsRange } from "./range.ts";
import { readSeries, type StatRow } from "./read-series.ts";
import { GetStatsInput, MAX_DAILY_DAYS, MAX_HOURLY_DAYS, type StatName } from "./schemas.ts";

/** One page of a series, with the range it covers. */
export type StatsPage = Page<StatRow> & { name: StatName; range: StatsRange };

/**
 * CONTRACT §8: one series of one of the caller's links (another user's link is NOT_FOUND, as a missing
 * one), read from the daily rollups. Without `per_page` the whole series is the one page. Only the time
 * series, which have a row per hour or day, have a longest range (§15).
 */
export async function getStats({ ctx, input }: { ctx: Ctx; input: GetStatsInput }): Promise<StatsPage> {
  const p = parseInput(GetStatsInput, input);
  const range =
    p.name === "clicks_hour" ? resolveRange(p, ctx.now(), MAX_HOURLY_DAYS, "clicks_hour") : p.name === "clicks" ? resolveRange(p, ctx.now(), MAX_DAILY_DAYS, "clicks") : resolveRange(p, ctx.now());
  const [link] = await ctx.db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.id, p.link_id), eq(links.userId, ctx.actor.userId)))
    .limit(1);
  if (!link) throw new NotFoundError("Link");
  const rows = await readSeries(ctx.db, link.id, p.name, range);
  const perPage = p.per_page ?? Math.max(1, rows.length);
  const offset = (p.page - 1) * perPage;
  return { data: rows.slice(offset, offset + perPage), total: rows.length, page: p.page, perPage, name: p.name, range };
}
