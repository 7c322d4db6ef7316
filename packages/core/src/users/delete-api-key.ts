import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { apiKeys } from "@shortener/db";
import { notifyChange } from "../changes/changes.ts";
import { apiKeyAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { parseInput } from "../validation/fields.ts";
import { IdInput } from "../validation/id-input.ts";
import { endSessionsOfKeys } from "../sessions/sessions.ts";
import { requireRole } from "../workspaces/roles.ts";
import { API_KEY_SCOPES } from "./scopes.ts";

/**
 * Deletes one of the named keys of the workspace the caller acts in (admins, whoever made it, CONTRACT
 * §24): it stops working at once, in every process (the key caches drop on the change notice), and so do
 * the dashboard sessions it opened. Another workspace's key, a deleted one or a key of §9 is a 404.
 */
export async function deleteApiKey({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  const { id: keyId } = parseInput(IdInput, { id });
  requireRole(ctx.actor, "admin");
  return withTransaction(ctx, async (tx) => {
    const revoked = await tx.db
      .update(apiKeys)
      .set({ revokedAt: tx.now() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.workspaceId, tx.actor.workspaceId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, userId: apiKeys.userId, name: apiKeys.name, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt });
    const [key] = revoked;
    if (!key) throw new NotFoundError("API key");
    const before = apiKeyAuditView({ name: key.name ?? "", scopes: API_KEY_SCOPES.filter((scope) => key.scopes?.includes(scope)), expiresAt: key.expiresAt });
    await recordAudit(tx, { action: "api_key.deleted", objectType: "api_key", objectId: keyId, before });
    await endSessionsOfKeys(tx.db, [keyId]);
    await notifyChange(tx.db, { kind: "keys", userId: key.userId });
    return { id: keyId };
  });
}
