import { and, count, eq, sql, type SQL } from "drizzle-orm";
import { linkCounts, links, queryRows } from "@shortener/db";
import type { Ctx } from "../context.ts";
import type { Page } from "../lists/pagination.ts";
import { offsetOf } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { isUnfiltered, linkFilterCondition, type LinkFilters } from "./link-filters.ts";
import type { Link } from "./link-columns.ts";
import { linkOrder, loadLinkPage, loadLinks } from "./load-links.ts";
import { ListLinksInput, type ListLinksInput as ListInput } from "./schemas.ts";

/** The size of a tag-filtered list: `workspace_tags`' count for one tag alone, else a count the tag index answers. */
async function tagFilteredTotal(ctx: Ctx, workspaceId: number, p: LinkFilters, where: SQL | undefined): Promise<number> {
  const [only] = p.tag ?? [];
  if (p.tag?.length === 1 && only !== undefined && isUnfiltered({ ...p, tag: undefined })) {
    const rows = await queryRows<{ n: unknown }>(ctx.db, sql`select n from workspace_tags where workspace_id = ${workspaceId}::int and key = ${only}`);
    return Number(rows[0]?.n ?? 0);
  }
  return (await ctx.db.select({ n: count() }).from(links).where(where))[0]?.n ?? 0;
}

/** CONTRACT §5: the caller's links, filtered, sorted with ties broken by id, one page at a time. */
export async function listLinks({ ctx, input }: { ctx: Ctx; input: ListInput | undefined }): Promise<Page<Link>> {
  const p = parseInput(ListLinksInput, input ?? {});
  const now = ctx.now();
  const workspaceId = ctx.actor.workspaceId;
  const offset = offsetOf(p.page, p.per_page);
  if (isUnfiltered(p)) {
    // All of a user's links: one prepared statement, the total from the trigger-kept counter.
    const data = await loadLinkPage(ctx.db, now, { workspaceId, sortBy: p.sort_by, sort: p.sort, limit: p.per_page, offset });
    // A page past the end has no row to carry the total: read the counter separately (rare).
    const total =
      data.total ??
      Number(
        (
          await ctx.db
            .select({ n: sql<number>`coalesce(sum(${linkCounts.n}), 0)::int` })
            .from(linkCounts)
            .where(eq(linkCounts.workspaceId, workspaceId))
        )[0]?.n ?? 0,
      );
    return { data: [...data], total, page: p.page, perPage: p.per_page };
  }
  const where = await linkFilterCondition(ctx.db, workspaceId, p, now);
  if (p.tag?.length) {
    // Counted apart (ADR 0051): with `count(*) over ()` the planner walks the primary key over every link
    // of the workspace. One tag and no other filter: the trigger-kept count. Then the page: a tag few
    // links carry is read through the tag index first (the `offset 0` keeps the planner from walking
    // the primary key in search of it); a common one is met within the first rows of that walk.
    const total = await tagFilteredTotal(ctx, workspaceId, p, where);
    // Walking the primary key reads about per_page × links ÷ total rows to fill a page; the tag index
    // reads `total`. The index wins when total² < per_page × links (5,000 of 1,000,000 links for 25).
    const workspaceLinks = Number(
      (
        await ctx.db
          .select({ n: sql<number>`coalesce(sum(${linkCounts.n}), 0)` })
          .from(linkCounts)
          .where(eq(linkCounts.workspaceId, workspaceId))
      )[0]?.n ?? 0,
    );
    const pageWhere = total * total < p.per_page * workspaceLinks ? and(where, sql`${links.id} in (select ${links.id} from ${links} where ${where} offset 0)`) : where;
    const data = await loadLinks(ctx.db, now, { where: pageWhere, orderBy: linkOrder(p.sort_by, p.sort), limit: p.per_page, offset });
    return { data: [...data], total, page: p.page, perPage: p.per_page };
  }
  // The size of the filtered set comes from the same scan as the page.
  const data = await loadLinks(ctx.db, now, { where, orderBy: linkOrder(p.sort_by, p.sort), limit: p.per_page, offset, total: "window" });
  // A page past the end has no row to carry the total: count separately (rare).
  const total = data.total ?? (p.page > 1 ? ((await ctx.db.select({ n: count() }).from(links).where(where))[0]?.n ?? 0) : 0);
  return { data: [...data], total, page: p.page, perPage: p.per_page };
}
