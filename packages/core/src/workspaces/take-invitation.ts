import { and, eq, isNull } from "drizzle-orm";
import { users, workspaceInvitations, workspaceMembers, workspaces, type Db } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import type { Actor, Ctx, SystemCtx } from "../context.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";
import type { WorkspaceRole } from "./roles.ts";
import { findMember } from "./workspace.ts";

export const INVITATION_UNKNOWN = "The invitation is unknown or was revoked.";
export const INVITATION_USED = "The invitation has already been used.";
export const INVITATION_EXPIRED = "The invitation has expired.";

/** An invitation as its link shows it before it is accepted: where, which role, from whom, until when. */
export type InvitationPreview = { workspaceId: number; workspaceName: string; role: WorkspaceRole; email: string | null; inviterName: string | null; expiresAt: Date };

type Waiting = InvitationPreview & { id: number };

/**
 * The waiting invitation behind `token`, locked for the transaction (`FOR UPDATE`: two people racing
 * with one link, one wins). Unknown or revoked, used, expired: a 422 on `token` naming which.
 */
export async function takeInvitation(db: Db, token: string, now: Date, options: { lock: boolean } = { lock: true }): Promise<Waiting> {
  const query = db
    .select({
      id: workspaceInvitations.id,
      workspaceId: workspaceInvitations.workspaceId,
      workspaceName: workspaces.name,
      role: workspaceInvitations.role,
      email: workspaceInvitations.email,
      inviterName: users.name,
      expiresAt: workspaceInvitations.expiresAt,
      acceptedAt: workspaceInvitations.acceptedAt,
    })
    .from(workspaceInvitations)
    .innerJoin(workspaces, eq(workspaces.id, workspaceInvitations.workspaceId))
    .leftJoin(users, eq(users.id, workspaceInvitations.createdBy))
    .where(eq(workspaceInvitations.tokenHash, sha256(token)))
    .limit(1);
  const [row] = options.lock ? await query.for("update", { of: workspaceInvitations }) : await query;
  if (!row) throw ValidationError.field("token", INVITATION_UNKNOWN);
  if (row.acceptedAt) throw ValidationError.field("token", INVITATION_USED);
  if (row.expiresAt.getTime() <= now.getTime()) throw ValidationError.field("token", INVITATION_EXPIRED);
  const { acceptedAt: _accepted, ...waiting } = row;
  return waiting;
}

/** What an invitation link shows before it is accepted (the dashboard's invitation page); a 422 as `takeInvitation` says. */
export async function previewInvitation(ctx: SystemCtx, token: string): Promise<InvitationPreview> {
  if (typeof token !== "string" || token.length < 1 || token.length > 128) throw ValidationError.field("token", INVITATION_UNKNOWN);
  const { id: _id, ...preview } = await takeInvitation(ctx.db, token, ctx.now(), { lock: false });
  return preview;
}

/**
 * Makes `userId` a member with the invitation's role and uses the invitation up, in the caller's
 * transaction, with its audit entry in the workspace joined. Already a member: 409, nothing written.
 */
export async function joinByInvitation(ctx: Ctx | SystemCtx, invitation: Waiting, user: { id: number; role: Actor["role"] }, via: Actor["via"]): Promise<void> {
  if (await findMember(ctx.db, invitation.workspaceId, user.id)) throw new ConflictError("You are already a member of this workspace.");
  const now = ctx.now();
  await ctx.db.insert(workspaceMembers).values({ workspaceId: invitation.workspaceId, userId: user.id, role: invitation.role, createdAt: now });
  await ctx.db
    .update(workspaceInvitations)
    .set({ acceptedAt: now, acceptedBy: user.id })
    .where(and(eq(workspaceInvitations.id, invitation.id), isNull(workspaceInvitations.acceptedAt)));
  const actor: Actor = { userId: user.id, role: user.role, workspaceId: invitation.workspaceId, workspaceRole: invitation.role, ...(via ? { via } : {}) };
  await recordAudit({ db: ctx.db, now: ctx.now, actor }, { action: "invitation.accepted", objectType: "invitation", objectId: invitation.id, after: { user_id: user.id, role: invitation.role } });
}
