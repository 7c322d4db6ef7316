import { sql } from "drizzle-orm";
import { queryRows, type WebhookEventType } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

/** A delivery waiting to be sent, with what its body is made of. */
export type PendingDelivery = {
  id: number;
  type: WebhookEventType;
  /** The event's `data`, as JSON text. */
  data: string;
  eventAt: Date;
  /** Tries so far. */
  attempts: number;
  nextAttemptAt: Date;
  queuedAt: Date;
};

/** Where a webhook is sent, and its first pending deliveries in order. */
export type WebhookQueue = { url: string; secret: string; disabled: boolean; deliveries: PendingDelivery[] };

const toDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/** A webhook's target and its oldest `limit` pending deliveries, oldest first; null when the webhook is gone. */
export async function findPendingDeliveries(ctx: SystemCtx, webhookId: number, limit: number): Promise<WebhookQueue | null> {
  const rows = await queryRows<{
    url: string;
    secret: string;
    disabled: boolean;
    id: number | string | null;
    type: WebhookEventType | null;
    data: string | null;
    event_at: Date | string | null;
    attempts: number | null;
    next_attempt_at: Date | string | null;
    created_at: Date | string | null;
  }>(
    ctx.db,
    sql`
      select w.url, w.secret, w.disabled, d.id, d.type, d.data, d.event_at, d.attempts, d.next_attempt_at, d.created_at
      from webhooks w
      left join lateral (
        select id, type, data::text as data, event_at, attempts, next_attempt_at, created_at
        from webhook_deliveries
        where webhook_id = w.id and status = 'pending'
        order by id
        limit ${limit}
      ) d on true
      where w.id = ${webhookId}
      order by d.id`,
  );
  const first = rows[0];
  if (!first) return null;
  const deliveries: PendingDelivery[] = [];
  for (const r of rows) {
    if (r.id === null || r.type === null || r.data === null || r.event_at === null || r.created_at === null) continue;
    deliveries.push({
      id: Number(r.id),
      type: r.type,
      data: r.data,
      eventAt: toDate(r.event_at),
      attempts: Number(r.attempts ?? 0),
      nextAttemptAt: toDate(r.next_attempt_at ?? r.created_at),
      queuedAt: toDate(r.created_at),
    });
  }
  return { url: first.url, secret: first.secret, disabled: first.disabled, deliveries };
}

/**
 * Enabled webhooks whose oldest pending delivery is due at `now` (the sweep: wake-ups lost with a
 * crashed worker, or never sent), soonest first.
 */
export async function findDueWebhooks(ctx: SystemCtx, options: { limit?: number } = {}): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    ctx.db,
    sql`
      select w.id
      from webhooks w
      join lateral (
        select next_attempt_at from webhook_deliveries d
        where d.webhook_id = w.id and d.status = 'pending'
        order by d.id
        limit 1
      ) head on true
      where not w.disabled and head.next_attempt_at <= ${ctx.now().toISOString()}::timestamptz
      order by head.next_attempt_at
      limit ${options.limit ?? 100}`,
  );
  return rows.map((r) => Number(r.id));
}

/** Drops delivered and failed deliveries (with their attempts) that finished before `before`. */
export async function pruneWebhookDeliveries(ctx: SystemCtx, before: Date, limit = 10_000): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    ctx.db,
    sql`
      delete from webhook_deliveries
      where id in (select id from webhook_deliveries where status <> 'pending' and finished_at < ${before.toISOString()}::timestamptz limit ${limit})
      returning id`,
  );
  return rows.length;
}
