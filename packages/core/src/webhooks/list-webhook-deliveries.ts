import { and, count, desc, eq } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, type WebhookEventType } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ListWebhookDeliveriesInput } from "./schemas.ts";
import { findOwnedWebhook } from "./webhook.ts";

/** One try of a delivery, and where the delivery stands now. */
export type WebhookAttempt = {
  id: number;
  /** The delivery's id: the payload's `id` and the `Shortener-Delivery` header. */
  deliveryId: number;
  event: WebhookEventType;
  /** 1 for the first try of the delivery. */
  number: number;
  isSuccess: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** When the delivery is tried next (after this attempt failed); null once delivered or given up. */
  nextAttemptAt: Date | null;
  deliveryStatus: "pending" | "delivered" | "failed";
  createdAt: Date;
};

/** The attempts of one of the caller's webhooks, newest first (CONTRACT §18); another user's webhook is NOT_FOUND. */
export async function listWebhookDeliveries({ ctx, id, input }: { ctx: Ctx; id: number; input: ListWebhookDeliveriesInput | undefined }): Promise<Page<WebhookAttempt>> {
  const params = parseInput(ListWebhookDeliveriesInput, input ?? {});
  if (!(await findOwnedWebhook(ctx.db, ctx.actor.workspaceId, id))) throw new NotFoundError("Webhook");
  const where = and(eq(webhookAttempts.webhookId, id), params.delivery_id !== undefined ? eq(webhookAttempts.deliveryId, params.delivery_id) : undefined);
  const [data, totals] = await Promise.all([
    ctx.db
      .select({
        id: webhookAttempts.id,
        deliveryId: webhookAttempts.deliveryId,
        event: webhookDeliveries.type,
        number: webhookAttempts.number,
        isSuccess: webhookAttempts.isSuccess,
        responseCode: webhookAttempts.responseCode,
        durationMs: webhookAttempts.durationMs,
        error: webhookAttempts.error,
        responseBody: webhookAttempts.responseBody,
        nextAttemptAt: webhookAttempts.nextAttemptAt,
        deliveryStatus: webhookDeliveries.status,
        createdAt: webhookAttempts.createdAt,
      })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(where)
      .orderBy(desc(webhookAttempts.id))
      .limit(params.per_page)
      .offset(offsetOf(params.page, params.per_page)),
    ctx.db.select({ n: count() }).from(webhookAttempts).where(where),
  ]);
  return { data, total: totals[0]?.n ?? 0, page: params.page, perPage: params.per_page };
}
