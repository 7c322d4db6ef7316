import { ConflictError, ForbiddenError } from "../errors.ts";
import type { Db } from "@shortener/db";
import { countOwners } from "./workspace.ts";
import type { WorkspaceRole } from "./roles.ts";

/**
 * Who may change whom (CONTRACT §24): admins manage viewers, editors and admins; only an owner makes
 * an owner (handing the workspace over) or changes or removes one.
 */
export function assertMayTouch(actorRole: WorkspaceRole, targetRole: WorkspaceRole, newRole?: WorkspaceRole): void {
  if ((targetRole === "owner" || newRole === "owner") && actorRole !== "owner") {
    throw new ForbiddenError(`This needs the owner role in this workspace: only an owner makes an owner or changes or removes one; you are ${actorRole === "admin" ? "an admin" : `a ${actorRole}`}.`);
  }
}

/**
 * The owner `userId` may stop being one (demoted, removed, leaving) only if another owner stays, and
 * never in their own personal workspace. Read under `lockWorkspace`.
 */
export async function assertOwnerMayGo(
  db: Db,
  workspace: { personalUserId: number | null },
  workspaceId: number,
  userId: number,
  targetRole: WorkspaceRole,
  verb: "demoted" | "removed" | "leave",
): Promise<void> {
  if (workspace.personalUserId === userId) throw new ConflictError("A personal workspace's own user is always its owner: they cannot leave it or be demoted or removed.");
  if (targetRole !== "owner") return;
  if ((await countOwners(db, workspaceId)) > 1) return;
  throw new ConflictError(
    verb === "leave" ? "The last owner cannot leave the workspace: make another member owner first, or delete the workspace." : `The last owner cannot be ${verb}: make another member owner first.`,
  );
}
