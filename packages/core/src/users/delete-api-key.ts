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
import { namedKeyColumns, toApiKey } from "./named-key.ts";

/**
 * Deletes one of the caller's named keys: it stops working at once, in every process (the key caches
 * drop on the change notice), and so do the dashboard sessions it opened. Someone else's key, a deleted
 * one or a key of §9 is a 404.
 */
export async function deleteApiKey({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  const { id: keyId } = parseInput(IdInput, { id });
  return withTransaction(ctx, async (tx) => {
    const revoked = await tx.db
      .update(apiKeys)
      .set({ revokedAt: tx.now() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, tx.actor.userId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt)))
      .returning({ ...namedKeyColumns, workspaceId: apiKeys.workspaceId });
    const [key] = revoked;
    if (!key) throw new NotFoundError("API key");
    // In the key's workspace's log (a key belongs to one), whichever workspace the caller acts in.
    await recordAudit(tx, { action: "api_key.deleted", objectType: "api_key", objectId: keyId, before: apiKeyAuditView(toApiKey(key)), workspaceId: key.workspaceId });
    await endSessionsOfKeys(tx.db, [keyId]);
    await notifyChange(tx.db, { kind: "keys", userId: tx.actor.userId });
    return { id: keyId };
  });
}
