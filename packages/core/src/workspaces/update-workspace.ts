import { eq } from "drizzle-orm";
import { workspaces } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { requireRole } from "./roles.ts";
import { UpdateWorkspaceInput } from "./schemas.ts";
import { assertActingIn, auditedWorkspace, lockWorkspace, workspaceColumns, type Workspace } from "./workspace.ts";

/**
 * Renames the workspace or sets `require_sso` (admins, CONTRACT §24): only the fields sent change. With
 * `require_sso` on, only sessions opened through single sign-on may switch to it; it cannot be turned on
 * where single sign-on is not configured (`isSsoConfigured`), or no member but the admin could get in.
 */
export async function updateWorkspace({ ctx, id, input, isSsoConfigured }: { ctx: Ctx; id: number; input: UpdateWorkspaceInput; isSsoConfigured: boolean }): Promise<Workspace> {
  const { id: workspaceId } = parseInput(IdInput, { id });
  assertActingIn(ctx, workspaceId);
  const data = parseInput(UpdateWorkspaceInput, input);
  requireRole(ctx.actor, "admin");
  if (data.require_sso === true && !isSsoConfigured)
    throw ValidationError.field("require_sso", "Single sign-on is not configured on this service (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET): no member could sign in.");
  return withTransaction(ctx, async (tx) => {
    const before = await lockWorkspace(tx.db, workspaceId);
    const changes = { ...(data.name !== undefined ? { name: data.name } : {}), ...(data.require_sso !== undefined ? { requireSso: data.require_sso } : {}) };
    const [row] = await tx.db
      .update(workspaces)
      .set({ ...changes, updatedAt: tx.now() })
      .where(eq(workspaces.id, workspaceId))
      .returning(workspaceColumns);
    if (!row) throw new Error("update returned no row");
    if (Object.keys(changes).length)
      await recordAudit(tx, { action: "workspace.updated", objectType: "workspace", objectId: workspaceId, before: auditedWorkspace(before), after: auditedWorkspace(row) });
    return { ...row, role: tx.actor.workspaceRole };
  });
}
