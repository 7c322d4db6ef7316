import type { Webhook, WebhookAttempt } from "@shortener/core";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A webhook as REST and tRPC answer it (CONTRACT §18); `secret` only on create. */
export function webhookJson(w: Webhook) {
  return {
    id: w.id,
    url: w.url,
    events: [...w.events],
    disabled: w.disabled ? (1 as const) : (0 as const),
    failing_since: iso(w.failingSince),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** The created webhook with its signing secret, shown this once. */
export function createdWebhookJson(w: Webhook, secret: string) {
  return { ...webhookJson(w), secret };
}

/** One attempt of `GET /webhooks/{id}/deliveries`. */
export function webhookAttemptJson(a: WebhookAttempt) {
  return {
    id: a.id,
    delivery_id: a.deliveryId,
    event: a.event,
    attempt: a.number,
    status: a.isSuccess ? ("succeeded" as const) : ("failed" as const),
    response_code: a.responseCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_body: a.responseBody,
    next_try_at: iso(a.nextAttemptAt),
    delivery_status: a.deliveryStatus,
    created_at: a.createdAt.toISOString(),
  };
}
