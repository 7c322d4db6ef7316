import { sql } from "drizzle-orm";
import { isForeignKeyViolation, queryRows } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

export type AttemptRecord = {
  deliveryId: number;
  webhookId: number;
  /** 1 for the delivery's first try. */
  number: number;
  isSuccess: boolean;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  startedAt: Date;
  /** When to try again; null after a success, or to give up (the delivery fails). */
  nextAttemptAt: Date | null;
  /** A webhook failing for this long (its `failing_since` this far back) is disabled. */
  disableAfterMs: number;
};

/** Text Postgres can store: no NUL, at most `max` characters. */
function storable(text: string | null, max: number): string | null {
  if (text === null) return null;
  const cleaned = text.replaceAll("\u0000", "\ufffd");
  return cleaned.length > max ? cleaned.slice(0, max) : cleaned;
}

/**
 * Records one attempt, in one statement: the attempt row; the delivery `delivered`, still `pending`
 * until `nextAttemptAt`, or `failed`; the webhook's failure streak (cleared by a success, started by a
 * failure), and the webhook disabled once that streak is `disableAfterMs` old. Returns what became of
 * the webhook, or null when it (or the delivery) was deleted meanwhile.
 */
export async function recordWebhookAttempt(ctx: SystemCtx, attempt: AttemptRecord): Promise<{ isDisabled: boolean } | null> {
  const started = attempt.startedAt.toISOString();
  const finished = new Date(attempt.startedAt.getTime() + attempt.durationMs).toISOString();
  const next = attempt.nextAttemptAt?.toISOString() ?? null;
  const disableBefore = new Date(attempt.startedAt.getTime() - attempt.disableAfterMs).toISOString();
  const status = attempt.isSuccess ? "delivered" : next === null ? "failed" : "pending";
  try {
    const rows = await queryRows<{ disabled: boolean }>(
      ctx.db,
      sql`
        with attempt as (
          insert into webhook_attempts (delivery_id, webhook_id, number, is_success, response_code, duration_ms, error, response_body, next_attempt_at, created_at)
          values (${attempt.deliveryId}, ${attempt.webhookId}, ${attempt.number}, ${attempt.isSuccess}, ${attempt.responseCode}, ${attempt.durationMs},
            ${storable(attempt.error, 1000)}, ${storable(attempt.responseBody, 1024)}, ${next}::timestamptz, ${started}::timestamptz)
        ), delivery as (
          update webhook_deliveries
          set status = ${status}, attempts = ${attempt.number}, next_attempt_at = ${next}::timestamptz,
            finished_at = ${status === "pending" ? null : finished}::timestamptz
          where id = ${attempt.deliveryId}
        )
        update webhooks
        set failing_since = ${attempt.isSuccess ? sql`null` : sql`coalesce(failing_since, ${started}::timestamptz)`},
          disabled = disabled or ${attempt.isSuccess ? sql`false` : sql`coalesce(failing_since, ${started}::timestamptz) <= ${disableBefore}::timestamptz`}
        where id = ${attempt.webhookId}
        returning disabled`,
    );
    const row = rows[0];
    return row ? { isDisabled: row.disabled } : null;
  } catch (error) {
    if (isForeignKeyViolation(error)) return null;
    throw error;
  }
}
