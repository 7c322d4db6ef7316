import { randomBytes } from "node:crypto";
import { and, count, eq, gt, isNull, sql } from "drizzle-orm";
import { users, workspaceInvitations, workspaceMembers } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { hasRole, requireRole } from "./roles.ts";
import { CreateInvitationInput } from "./schemas.ts";
import { assertActingIn, invitationColumns, lockWorkspace, type Invitation } from "./workspace.ts";

/** An invitation can be accepted for this long (CONTRACT §24: 7 days). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** Most invitations a workspace may have waiting (CONTRACT §15: every list a caller grows is capped). */
export const MAX_PENDING_INVITATIONS = 100;

/** What a new invitation gives its inviter, this once: the token of its link, and who and where for the mail. */
export type CreatedInvitation = { invitation: Invitation; token: string; workspaceName: string; inviter: { name: string; email: string } };

/**
 * A one-time invitation into the workspace (admins): its role at most the inviter's own, an optional
 * email (to mail it; someone already a member there is a 422), 7 days to accept. The token (256 random
 * bits) is returned here only; the database keeps its SHA-256.
 */
export async function createInvitation({ ctx, workspaceId, input }: { ctx: Ctx; workspaceId: number; input: CreateInvitationInput }): Promise<CreatedInvitation> {
  const { id } = parseInput(IdInput, { id: workspaceId });
  assertActingIn(ctx, id);
  const data = parseInput(CreateInvitationInput, input);
  requireRole(ctx.actor, "admin");
  if (!hasRole(ctx.actor.workspaceRole, data.role)) throw ValidationError.field("role", `The role must not be above your own (${ctx.actor.workspaceRole}).`);
  return withTransaction(ctx, async (tx) => {
    const workspace = await lockWorkspace(tx.db, id);
    const now = tx.now();
    if (data.email) {
      const [member] = await tx.db
        .select({ id: users.id })
        .from(workspaceMembers)
        .innerJoin(users, eq(users.id, workspaceMembers.userId))
        .where(and(eq(workspaceMembers.workspaceId, id), sql`lower(${users.email}) = ${data.email}`))
        .limit(1);
      if (member) throw ValidationError.field("email", `${data.email} is already a member of this workspace.`);
    }
    const [pending] = await tx.db
      .select({ n: count() })
      .from(workspaceInvitations)
      .where(and(eq(workspaceInvitations.workspaceId, id), isNull(workspaceInvitations.acceptedAt), gt(workspaceInvitations.expiresAt, now)));
    if ((pending?.n ?? 0) >= MAX_PENDING_INVITATIONS) throw ValidationError.field("email", `A workspace cannot have more than ${MAX_PENDING_INVITATIONS} invitations waiting; revoke one first.`);
    const token = randomBytes(32).toString("base64url");
    const [invitation] = await tx.db
      .insert(workspaceInvitations)
      .values({
        workspaceId: id,
        tokenHash: sha256(token),
        role: data.role,
        email: data.email ?? null,
        createdBy: tx.actor.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      })
      .returning(invitationColumns);
    if (!invitation) throw new Error("insert returned no row");
    const [inviter] = await tx.db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, tx.actor.userId));
    await recordAudit(tx, {
      action: "invitation.created",
      objectType: "invitation",
      objectId: invitation.id,
      after: { role: invitation.role, email: invitation.email, expires_at: invitation.expiresAt.toISOString() },
    });
    return { invitation, token, workspaceName: workspace.name, inviter: inviter ?? { name: "", email: "" } };
  });
}
