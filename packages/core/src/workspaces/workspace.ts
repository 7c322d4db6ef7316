import { and, eq, sql } from "drizzle-orm";
import { workspaceInvitations, workspaceMembers, workspaces, type Db } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import type { WorkspaceRole } from "./roles.ts";

/** A workspace as a member sees it: with their role there (CONTRACT §24). */
export type Workspace = { id: number; name: string; isPersonal: boolean; requireSso: boolean; role: WorkspaceRole; createdAt: Date; updatedAt: Date };

export const workspaceColumns = {
  id: workspaces.id,
  name: workspaces.name,
  isPersonal: sql<boolean>`${workspaces.personalUserId} is not null`.mapWith(Boolean),
  requireSso: workspaces.requireSso,
  createdAt: workspaces.createdAt,
  updatedAt: workspaces.updatedAt,
};

/** A member as the workspace's members see them. */
export type Member = { userId: number; name: string; email: string; role: WorkspaceRole; joinedAt: Date };

/** An invitation as admins see it: never its token, which only its creation returns. */
export type Invitation = {
  id: number;
  workspaceId: number;
  role: WorkspaceRole;
  email: string | null;
  createdBy: number | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: number | null;
};

export const invitationColumns = {
  id: workspaceInvitations.id,
  workspaceId: workspaceInvitations.workspaceId,
  role: workspaceInvitations.role,
  email: workspaceInvitations.email,
  createdBy: workspaceInvitations.createdBy,
  createdAt: workspaceInvitations.createdAt,
  expiresAt: workspaceInvitations.expiresAt,
  acceptedAt: workspaceInvitations.acceptedAt,
  acceptedBy: workspaceInvitations.acceptedBy,
};

/**
 * The workspace `id` is the one the actor acts in: a key acts in its own workspace, a dashboard session
 * in the one switched to (docs/adr/0044-workspaces.md). Any other id — another workspace, or one of the
 * caller's own that they are not acting in — is a 404, exactly as another workspace's links are (§1).
 */
export function assertActingIn(ctx: Ctx, id: number): void {
  if (id !== ctx.actor.workspaceId) throw new NotFoundError("Workspace");
}

/**
 * Locks the workspace's row for the rest of the transaction (`FOR UPDATE`): member changes queue behind
 * each other, so two owners demoting each other at once cannot leave the workspace without an owner.
 * Returns its name and whose personal workspace it is.
 */
export async function lockWorkspace(db: Db, id: number): Promise<{ name: string; personalUserId: number | null; requireSso: boolean }> {
  const [row] = await db.select({ name: workspaces.name, personalUserId: workspaces.personalUserId, requireSso: workspaces.requireSso }).from(workspaces).where(eq(workspaces.id, id)).for("update");
  if (!row) throw new NotFoundError("Workspace");
  return row;
}

/** The member `userId` of workspace `workspaceId`, or null. */
export async function findMember(db: Db, workspaceId: number, userId: number): Promise<{ role: WorkspaceRole } | null> {
  const [row] = await db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
    .limit(1);
  return row ?? null;
}

/** How many owners the workspace has (read under `lockWorkspace`). */
export async function countOwners(db: Db, workspaceId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.role, "owner")));
  return row?.n ?? 0;
}

/** The workspace as the fields the audit log records of it. */
export function auditedWorkspace(row: { name: string; requireSso: boolean }): Record<string, unknown> {
  return { name: row.name, require_sso: row.requireSso };
}
