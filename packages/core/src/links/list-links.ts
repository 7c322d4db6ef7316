import { and, asc, count, desc, eq, exists, ilike, sql } from "drizzle-orm";
import { linkCounts, linkPixels, links } from "@shortener/db";
import type { Ctx } from "../context.ts";
import type { Page } from "../shared/pagination.ts";
import { offsetOf } from "../shared/pagination.ts";
import { escapeLike } from "../shared/sql.ts";
import { parseInput } from "../shared/validation.ts";
import { loadLinks, type Link } from "./load-links.ts";
import { ListLinksInput, type ListLinksInput as ListInput } from "./schemas.ts";
import { linkStatusSql } from "./status.ts";

const SORT_COLUMNS = { id: links.id, clicks: links.clicks, title: links.title, alias: links.alias, url: links.url } as const;
const SEARCH_COLUMNS = { title: links.title, alias: links.alias, url: links.url } as const;

/** CONTRACT §5: the caller's links, filtered, sorted with ties broken by id, one page at a time. */
export async function listLinks({ ctx, input }: { ctx: Ctx; input: ListInput | undefined }): Promise<Page<Link>> {
  const p = parseInput(ListLinksInput, input ?? {});
  const now = ctx.now();
  const where = and(
    eq(links.userId, ctx.actor.userId),
    p.search ? ilike(SEARCH_COLUMNS[p.search_by], `%${escapeLike(p.search)}%`) : undefined,
    p.status ? sql`${linkStatusSql(now)} = ${p.status}` : undefined,
    p.space_id ? eq(links.spaceId, p.space_id) : undefined,
    p.domain_id ? eq(links.domainId, p.domain_id) : undefined,
    p.pixel_id
      ? exists(ctx.db.select({ one: sql`1` }).from(linkPixels).where(and(eq(linkPixels.linkId, links.id), eq(linkPixels.pixelId, p.pixel_id))))
      : undefined,
  );
  const order = p.sort === "asc" ? asc : desc;
  const isUnfiltered = !p.search && !p.status && !p.space_id && !p.domain_id && !p.pixel_id;
  const page = { where, orderBy: [order(SORT_COLUMNS[p.sort_by]), order(links.id)], limit: p.per_page, offset: offsetOf(p.page, p.per_page) };
  if (isUnfiltered) {
    // All of a user's links: the trigger-kept counter instead of counting them.
    const [data, [counted]] = await Promise.all([
      loadLinks(ctx.db, now, page),
      ctx.db.select({ n: sql<number>`coalesce(sum(${linkCounts.n}), 0)::int` }).from(linkCounts).where(eq(linkCounts.userId, ctx.actor.userId)),
    ]);
    return { data, total: Number(counted?.n ?? 0), page: p.page, perPage: p.per_page };
  }
  const data = await loadLinks(ctx.db, now, { ...page, withTotal: true });
  // A page past the end has no row to carry the total: count separately (rare).
  const total = data.total ?? (p.page > 1 ? ((await ctx.db.select({ n: count() }).from(links).where(where))[0]?.n ?? 0) : 0);
  return { data: [...data], total, page: p.page, perPage: p.per_page };
}
