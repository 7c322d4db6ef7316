import { and, eq } from "drizzle-orm";
import { webhooks, type WebhookEventType } from "@shortener/db";
import { webhookAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import { withTransaction, type Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { addError, parseFields, throwIfErrors } from "../validation/fields.ts";
import { refusedTargetReason } from "./addresses.ts";
import type { WebhookTargetOptions } from "./create-webhook.ts";
import { UpdateWebhookShape, type UpdateWebhookInput } from "./schemas.ts";
import { checkEventScopes, findOwnedWebhook, webhookColumns, type Webhook } from "./webhook.ts";

/**
 * Changes the sent fields of the caller's webhook. A new URL, or enabling it again, starts its failure
 * count afresh (`failing_since` cleared); its pending deliveries go to the URL it has when each is sent.
 */
export async function updateWebhook({ ctx, id, input, options = {} }: { ctx: Ctx; id: number; input: UpdateWebhookInput; options?: WebhookTargetOptions }): Promise<Webhook> {
  const existing = await findOwnedWebhook(ctx.db, ctx.actor.workspaceId, id);
  if (!existing) throw new NotFoundError("Webhook");
  const { values, errors } = parseFields(UpdateWebhookShape, input);
  if (values.url && !options.allowPrivateTargets) {
    const refused = refusedTargetReason(values.url);
    if (refused) addError(errors, "url", refused);
  }
  // New events, or a new URL for the old ones: the caller must be able to read what will be sent there.
  if (values.url !== undefined || values.events !== undefined) checkEventScopes(ctx.actor.bounds, (values.events as WebhookEventType[] | undefined) ?? existing.events, errors);
  throwIfErrors(errors);
  const isFreshStart = (values.url !== undefined && values.url !== existing.url) || (values.disabled === 0 && existing.disabled);
  return withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(webhooks)
      .set({
        ...(values.url !== undefined ? { url: values.url } : {}),
        ...(values.events !== undefined ? { events: values.events } : {}),
        ...(values.disabled !== undefined ? { disabled: values.disabled === 1 } : {}),
        ...(isFreshStart ? { failingSince: null } : {}),
        updatedAt: tx.now(),
      })
      .where(and(eq(webhooks.id, id), eq(webhooks.workspaceId, tx.actor.workspaceId)))
      .returning(webhookColumns);
    if (!row) throw new NotFoundError("Webhook");
    await recordAudit(tx, { action: "webhook.updated", objectType: "webhook", objectId: id, before: webhookAuditView(existing), after: webhookAuditView(row) });
    return row;
  });
}
