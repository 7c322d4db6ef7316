import { asc, count, eq } from "drizzle-orm";
import { users, workspaceMembers } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { ListWorkspaceItemsInput } from "./schemas.ts";
import { assertActingIn, type Member } from "./workspace.ts";

/** The members of the workspace the actor acts in (every member may see who else is), in the order they joined. */
export async function listMembers({ ctx, workspaceId, input }: { ctx: Ctx; workspaceId: number; input: ListWorkspaceItemsInput }): Promise<Page<Member>> {
  const { id } = parseInput(IdInput, { id: workspaceId });
  assertActingIn(ctx, id);
  const params = parseInput(ListWorkspaceItemsInput, input);
  const of = eq(workspaceMembers.workspaceId, id);
  const [data, [total]] = await Promise.all([
    ctx.db
      .select({ userId: users.id, name: users.name, email: users.email, role: workspaceMembers.role, joinedAt: workspaceMembers.createdAt })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(of)
      .orderBy(asc(workspaceMembers.createdAt), asc(users.id))
      .limit(params.per_page)
      .offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(workspaceMembers).where(of),
  ]);
  return { data, total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}
