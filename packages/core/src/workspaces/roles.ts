import { WORKSPACE_ROLES, type WorkspaceRole } from "@shortener/db";
import { ForbiddenError } from "../errors.ts";

export { WORKSPACE_ROLES, type WorkspaceRole };

/** Each role's rank: every role has the rights of the ones below it (CONTRACT §24). */
const RANK: Record<WorkspaceRole, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

/** Whether `have` is at least `need` (`viewer < editor < admin < owner`). */
export function hasRole(have: WorkspaceRole, need: WorkspaceRole): boolean {
  return RANK[have] >= RANK[need];
}

/** The weaker of two roles: what a key carries when its maker's role is lower than asked. */
export function lowerRole(a: WorkspaceRole, b: WorkspaceRole): WorkspaceRole {
  return RANK[a] <= RANK[b] ? a : b;
}

/** `a viewer`, `an editor`, `an admin`, `an owner`. */
export function withArticle(role: WorkspaceRole): string {
  return `${/^[aeiou]/.test(role) ? "an" : "a"} ${role}`;
}

/** The sentence of a 403 for a role too low, the same on REST and tRPC and in core. */
export function roleRefusal(need: WorkspaceRole, have: WorkspaceRole): string {
  return `This needs the ${need} role in this workspace; you are ${withArticle(have)}.`;
}

/** Throws `403 forbidden` naming the role needed unless the actor's role in its workspace is at least `need`. */
export function requireRole(actor: { workspaceRole: WorkspaceRole }, need: WorkspaceRole): void {
  if (!hasRole(actor.workspaceRole, need)) throw new ForbiddenError(roleRefusal(need, actor.workspaceRole));
}
