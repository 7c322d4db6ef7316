import { count, eq, sql } from "drizzle-orm";
import { linkCounts, links } from "@shortener/db";
import type { Ctx } from "../context.ts";
import type { Page } from "../lists/pagination.ts";
import { offsetOf } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { isUnfiltered, linkFilterCondition } from "./link-filters.ts";
import type { Link } from "./link-columns.ts";
import { linkOrder, loadLinkPage, loadLinks } from "./load-links.ts";
import { ListLinksInput, type ListLinksInput as ListInput } from "./schemas.ts";

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
    // of the workspace, while a count alone is answered by the tag index and the page alone stops at its
    // last row. Both statements go out at once.
    const [data, counted] = await Promise.all([
      loadLinks(ctx.db, now, { where, orderBy: linkOrder(p.sort_by, p.sort), limit: p.per_page, offset }),
      ctx.db.select({ n: count() }).from(links).where(where),
    ]);
    return { data: [...data], total: counted[0]?.n ?? 0, page: p.page, perPage: p.per_page };
  }
  // The size of the filtered set comes from the same scan as the page.
  const data = await loadLinks(ctx.db, now, { where, orderBy: linkOrder(p.sort_by, p.sort), limit: p.per_page, offset, total: "window" });
  // A page past the end has no row to carry the total: count separately (rare).
  const total = data.total ?? (p.page > 1 ? ((await ctx.db.select({ n: count() }).from(links).where(where))[0]?.n ?? 0) : 0);
  return { data: [...data], total, page: p.page, perPage: p.per_page };
}
