import { and, eq, isNull } from "drizzle-orm";
import { workspaceInvitations } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { requireRole } from "./roles.ts";
import { assertActingIn } from "./workspace.ts";

/**
 * Revokes an invitation that is still waiting (admins): it is deleted, so its link answers "unknown or
 * revoked". An accepted one, another workspace's or one gone already: 404.
 */
export async function revokeInvitation({ ctx, workspaceId, id }: { ctx: Ctx; workspaceId: number; id: number }): Promise<{ id: number }> {
  const { id: wsId } = parseInput(IdInput, { id: workspaceId });
  const { id: invitationId } = parseInput(IdInput, { id });
  assertActingIn(ctx, wsId);
  requireRole(ctx.actor, "admin");
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(workspaceInvitations)
      .where(and(eq(workspaceInvitations.id, invitationId), eq(workspaceInvitations.workspaceId, wsId), isNull(workspaceInvitations.acceptedAt)))
      .returning({ role: workspaceInvitations.role, email: workspaceInvitations.email });
    if (!row) throw new NotFoundError("Invitation");
    await recordAudit(tx, { action: "invitation.revoked", objectType: "invitation", objectId: invitationId, before: { role: row.role, email: row.email } });
    return { id: invitationId };
  });
}
