import { and, eq } from "drizzle-orm";
import { webhooks } from "@shortener/db";
import { webhookAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { webhookColumns } from "./webhook.ts";

/** Deletes the caller's webhook with its deliveries and their attempts (foreign keys cascade). */
export async function deleteWebhook({ ctx, id }: { ctx: Ctx; id: number }): Promise<{ id: number }> {
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .delete(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, tx.actor.workspaceId)))
      .returning(webhookColumns);
    if (!row) throw new NotFoundError("Webhook");
    await recordAudit(tx, { action: "webhook.deleted", objectType: "webhook", objectId: row.id, before: webhookAuditView(row) });
    return { id: row.id };
  });
}
