import { asc, count, eq } from "drizzle-orm";
import { workspaceMembers, workspaces } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ListWorkspaceItemsInput } from "./schemas.ts";
import { workspaceColumns, type Workspace } from "./workspace.ts";

/** The workspaces the acting user is a member of, with their role in each: the personal one first, then by id. */
export async function listWorkspaces({ ctx, input }: { ctx: Ctx; input: ListWorkspaceItemsInput }): Promise<Page<Workspace>> {
  const params = parseInput(ListWorkspaceItemsInput, input);
  const mine = eq(workspaceMembers.userId, ctx.actor.userId);
  const [data, [total]] = await Promise.all([
    ctx.db
      .select({ ...workspaceColumns, role: workspaceMembers.role })
      .from(workspaceMembers)
      .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      .where(mine)
      .orderBy(asc(workspaces.personalUserId), asc(workspaces.id))
      .limit(params.per_page)
      .offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(workspaceMembers).where(mine),
  ]);
  return { data, total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}
