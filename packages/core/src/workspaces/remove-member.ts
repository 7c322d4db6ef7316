import { and, eq } from "drizzle-orm";
import { workspaceMembers } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { notifyChange } from "../changes/changes.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { assertMayTouch, assertOwnerMayGo } from "./member-rules.ts";
import { requireRole } from "./roles.ts";
import { assertActingIn, findMember, lockWorkspace } from "./workspace.ts";

/**
 * Removes a member (admins; an owner, owners only), or — `userId` being the actor — leaves the
 * workspace (any member). The last owner can do neither (409), nor can anyone leave their personal
 * workspace. What the member made stays the workspace's; their API keys of this workspace stop working
 * at once (a key acts with its maker's membership), and their dashboard sessions acting here fall back
 * to their personal workspace.
 */
export async function removeMember({ ctx, workspaceId, userId }: { ctx: Ctx; workspaceId: number; userId: number }): Promise<{ id: number }> {
  const { id } = parseInput(IdInput, { id: workspaceId });
  const { id: memberId } = parseInput(IdInput, { id: userId });
  assertActingIn(ctx, id);
  const isLeaving = memberId === ctx.actor.userId;
  if (!isLeaving) requireRole(ctx.actor, "admin");
  return withTransaction(ctx, async (tx) => {
    const workspace = await lockWorkspace(tx.db, id);
    const member = await findMember(tx.db, id, memberId);
    if (!member) throw new NotFoundError("Member");
    if (!isLeaving) assertMayTouch(tx.actor.workspaceRole, member.role);
    await assertOwnerMayGo(tx.db, workspace, id, memberId, member.role, isLeaving ? "leave" : "removed");
    await tx.db.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, memberId)));
    await recordAudit(tx, { action: isLeaving ? "member.left" : "member.removed", objectType: "member", objectId: memberId, before: { role: member.role } });
    await notifyChange(tx.db, { kind: "keys", userId: memberId });
    return { id: memberId };
  });
}
