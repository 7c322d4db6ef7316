import { and, eq } from "drizzle-orm";
import { users, workspaceMembers } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { notifyChange } from "../changes/changes.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { assertMayTouch, assertOwnerMayGo } from "./member-rules.ts";
import { requireRole } from "./roles.ts";
import { ChangeMemberRoleInput } from "./schemas.ts";
import { assertActingIn, lockWorkspace, type Member } from "./workspace.ts";

/**
 * Gives a member another role (admins; making an owner — handing the workspace over — or changing an
 * owner, owners only). The last owner cannot be demoted (409). The member's API keys carry the new
 * role at once: the key caches drop in every process.
 */
export async function changeMemberRole({ ctx, workspaceId, userId, input }: { ctx: Ctx; workspaceId: number; userId: number; input: ChangeMemberRoleInput }): Promise<Member> {
  const { id } = parseInput(IdInput, { id: workspaceId });
  const { id: memberId } = parseInput(IdInput, { id: userId });
  assertActingIn(ctx, id);
  const { role } = parseInput(ChangeMemberRoleInput, input);
  requireRole(ctx.actor, "admin");
  return withTransaction(ctx, async (tx) => {
    const workspace = await lockWorkspace(tx.db, id);
    const [member] = await tx.db
      .select({ userId: users.id, name: users.name, email: users.email, role: workspaceMembers.role, joinedAt: workspaceMembers.createdAt })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, memberId)));
    if (!member) throw new NotFoundError("Member");
    assertMayTouch(tx.actor.workspaceRole, member.role, role);
    if (member.role === role) return member;
    if (role !== "owner") await assertOwnerMayGo(tx.db, workspace, id, memberId, member.role, "demoted");
    await tx.db
      .update(workspaceMembers)
      .set({ role })
      .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, memberId)));
    await recordAudit(tx, { action: "member.role_changed", objectType: "member", objectId: memberId, before: { role: member.role }, after: { role } });
    await notifyChange(tx.db, { kind: "keys", userId: memberId });
    return { ...member, role };
  });
}
