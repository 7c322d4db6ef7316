import { eq } from "drizzle-orm";
import { domains, workspaces } from "@shortener/db";
import { recordAudit } from "../audit/record-audit.ts";
import { notifyChange } from "../changes/changes.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { ConflictError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { requireRole } from "./roles.ts";
import { assertActingIn, auditedWorkspace, lockWorkspace } from "./workspace.ts";

/**
 * Deletes a shared workspace with everything it owns — links, domains, spaces, pixels, webhooks,
 * imports, API keys, invitations, memberships (foreign keys cascade) — owners only. A personal
 * workspace goes only with its user (409). Dashboard sessions acting there fall back to their user's
 * personal workspace; the key caches and the visitor side's domain caches drop what went.
 */
export async function deleteWorkspace({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  const { id: workspaceId } = parseInput(IdInput, { id });
  assertActingIn(ctx, workspaceId);
  requireRole(ctx.actor, "owner");
  return withTransaction(ctx, async (tx) => {
    const before = await lockWorkspace(tx.db, workspaceId);
    if (before.personalUserId !== null) throw new ConflictError("A personal workspace is deleted only with its user.");
    const names = await tx.db.select({ name: domains.name }).from(domains).where(eq(domains.workspaceId, workspaceId));
    await recordAudit(tx, { action: "workspace.deleted", objectType: "workspace", objectId: workspaceId, before: auditedWorkspace(before) });
    await tx.db.delete(workspaces).where(eq(workspaces.id, workspaceId));
    await notifyChange(tx.db, { kind: "keys", userId: tx.actor.userId });
    for (const { name } of names) await notifyChange(tx.db, { kind: "domain", name });
    return { id: workspaceId };
  });
}
