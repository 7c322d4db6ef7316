import { eq } from "drizzle-orm";
import { webhooks, type WebhookEventType } from "@shortener/db";
import { webhookAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import type { Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { randomBase62 } from "../secrets/random.ts";
import { withinUserCap } from "../users/user-cap.ts";
import { addError, parseFields, throwIfErrors } from "../validation/fields.ts";
import { refusedTargetReason } from "./addresses.ts";
import { CreateWebhookShape, type CreateWebhookInput } from "./schemas.ts";
import { checkEventScopes, MAX_WEBHOOKS_PER_USER, webhookColumns, type Webhook } from "./webhook.ts";

/** Every webhook secret starts with this, so a leaked one is easy to recognise. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

export type WebhookTargetOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: private, loopback and link-local targets are accepted. */
  allowPrivateTargets?: boolean;
};

/**
 * Creates a webhook (CONTRACT §18) with a new random signing secret, returned here and never again.
 * A URL whose host is a non-public address literal or a `localhost` name is a 422 unless private
 * targets are allowed; names are checked after DNS at each delivery. At most `MAX_WEBHOOKS_PER_USER`
 * a user, under concurrency too (`withinUserCap`).
 */
export async function createWebhook({ ctx, input, options = {} }: { ctx: Ctx; input: CreateWebhookInput; options?: WebhookTargetOptions }): Promise<{ webhook: Webhook; secret: string }> {
  const { values, errors } = parseFields(CreateWebhookShape, input);
  if (values.url && !options.allowPrivateTargets) {
    const refused = refusedTargetReason(values.url);
    if (refused) addError(errors, "url", refused);
  }
  if (values.events) checkEventScopes(ctx.actor.bounds, values.events as WebhookEventType[], errors);
  throwIfErrors(errors);
  const cap = {
    table: webhooks,
    held: eq(webhooks.workspaceId, ctx.actor.workspaceId),
    max: MAX_WEBHOOKS_PER_USER,
    refusal: () => ValidationError.field("url", `You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks: delete one first.`),
  };
  return withinUserCap(ctx, cap, async (tx) => {
    const secret = `${WEBHOOK_SECRET_PREFIX}${randomBase62(40)}`;
    const now = tx.now();
    const [row] = await tx.db
      .insert(webhooks)
      .values({
        workspaceId: tx.actor.workspaceId,
        url: values.url as string,
        events: values.events as WebhookEventType[],
        secret,
        disabled: values.disabled === 1,
        createdAt: now,
        updatedAt: now,
      })
      .returning(webhookColumns);
    if (!row) throw new Error("insert returned no row");
    // The secret is logged as "[redacted]": the entry says one was made, never what it is.
    await recordAudit(tx, { action: "webhook.created", objectType: "webhook", objectId: row.id, after: webhookAuditView(row, { hasSecret: true }) });
    return { webhook: row, secret };
  });
}
