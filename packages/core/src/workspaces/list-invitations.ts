import { count, desc, eq } from "drizzle-orm";
import { workspaceInvitations } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { requireRole } from "./roles.ts";
import { ListWorkspaceItemsInput } from "./schemas.ts";
import { assertActingIn, invitationColumns, type Invitation } from "./workspace.ts";

/** The workspace's invitations, newest first (admins): waiting, accepted and expired; never their tokens. */
export async function listInvitations({ ctx, workspaceId, input }: { ctx: Ctx; workspaceId: number; input: ListWorkspaceItemsInput }): Promise<Page<Invitation>> {
  const { id } = parseInput(IdInput, { id: workspaceId });
  assertActingIn(ctx, id);
  const params = parseInput(ListWorkspaceItemsInput, input);
  requireRole(ctx.actor, "admin");
  const of = eq(workspaceInvitations.workspaceId, id);
  const [data, [total]] = await Promise.all([
    ctx.db.select(invitationColumns).from(workspaceInvitations).where(of).orderBy(desc(workspaceInvitations.id)).limit(params.per_page).offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(workspaceInvitations).where(of),
  ]);
  return { data, total: total?.n ?? 0, page: params.page, perPage: params.per_page };
}
