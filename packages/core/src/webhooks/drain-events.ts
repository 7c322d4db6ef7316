import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import { withTransaction, type SystemCtx } from "../context.ts";

/** With nothing else, the advisory lock that lets one drain run at a time (across processes). */
const DRAIN_LOCK = 727_004;

/**
 * Moves up to `limit` events from the outbox into deliveries: one per enabled webhook of the event's
 * user that subscribes to its type, queued at once. Events nobody wants any more are dropped. One drain
 * runs at a time, so a webhook's deliveries are numbered in the order their events were drained.
 * Returns how many events were taken and which webhooks got deliveries.
 */
export async function drainWebhookEvents(ctx: SystemCtx, options: { limit?: number } = {}): Promise<{ events: number; webhookIds: number[] }> {
  const now = ctx.now().toISOString();
  return withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql`select pg_advisory_xact_lock(${DRAIN_LOCK})`);
    const [row] = await queryRows<{ events: number | string; webhook_ids: number[] | null }>(
      tx.db,
      sql`
        with taken as (
          delete from webhook_events
          where id in (select id from webhook_events order by id limit ${options.limit ?? 1000})
          returning id, workspace_id, type, data, created_at
        ), made as (
          insert into webhook_deliveries (webhook_id, event_id, type, data, event_at, next_attempt_at, created_at)
          select w.id, t.id, t.type, t.data, t.created_at, ${now}::timestamptz, ${now}::timestamptz
          from taken t join webhooks w on w.workspace_id = t.workspace_id and not w.disabled and t.type = any(w.events)
          order by t.id, w.id
          returning webhook_id
        )
        select (select count(*) from taken) as events, (select array_agg(distinct webhook_id) from made) as webhook_ids`,
    );
    return { events: Number(row?.events ?? 0), webhookIds: (row?.webhook_ids ?? []).map(Number) };
  });
}
