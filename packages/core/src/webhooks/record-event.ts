import { eq, sql, type SQL } from "drizzle-orm";
import { importJobs, queryRows, type Db, type WebhookEventType } from "@shortener/db";
import type { Ctx, SystemCtx } from "../context.ts";
import { findRowErrors, importJobColumns, JOB_ERRORS_SHOWN } from "../imports/import-job.ts";
import type { Link } from "../links/link-columns.ts";

/** The condition "one of the user's enabled webhooks subscribes to `type`", for user id expression `user`. */
export function subscribedSql(user: SQL, type: WebhookEventType): SQL {
  return sql`exists (select 1 from webhooks w where w.workspace_id = ${user} and not w.disabled and ${type}::text = any(w.events))`;
}

/** Whether any enabled webhook of the user subscribes to `type`. */
export async function hasSubscribers(db: Db, workspaceId: number, type: WebhookEventType): Promise<boolean> {
  const [row] = await queryRows<{ ok: boolean }>(db, sql`select ${subscribedSql(sql`${workspaceId}::int`, type)} as ok`);
  return row?.ok === true;
}

/**
 * Writes an event to the outbox (`webhook_events`), in the caller's transaction, if one of the user's
 * enabled webhooks subscribes to its type; the worker fans it out into deliveries. `data` is stored as
 * the JSON text it renders to, so its keys keep their order.
 */
export async function recordEvent(db: Db, event: { workspaceId: number; type: WebhookEventType; data: unknown; at: Date }): Promise<void> {
  await db.execute(sql`
    insert into webhook_events (workspace_id, type, data, created_at)
    select ${event.workspaceId}::int, ${event.type}, ${JSON.stringify(event.data)}::json, ${event.at.toISOString()}::timestamptz
    where ${subscribedSql(sql`${event.workspaceId}::int`, event.type)}`);
}

/** `link.created` / `link.updated` / `link.deleted` with the link as the API shows it, when the context renders events. */
export async function recordLinkEvent(ctx: Ctx, type: "link.created" | "link.updated" | "link.deleted", link: Link): Promise<void> {
  if (!ctx.events) return;
  await recordEvent(ctx.db, { workspaceId: link.workspaceId, type, data: ctx.events.link(link), at: ctx.now() });
}

/** `import.completed` with the job as `GET /imports/{id}` shows it (its first 1,000 row errors included), once the job has finished. */
export async function recordImportEvent(ctx: SystemCtx, jobId: number): Promise<void> {
  if (!ctx.events) return;
  const [job] = await ctx.db.select(importJobColumns).from(importJobs).where(eq(importJobs.id, jobId));
  if (!job || !(await hasSubscribers(ctx.db, job.workspaceId, "import.completed"))) return;
  const errors = await findRowErrors(ctx.db, jobId, JOB_ERRORS_SHOWN);
  const data = ctx.events.importJob({ ...job, errors: errors.map(({ line, field, message }) => ({ line, field, message })) });
  await recordEvent(ctx.db, { workspaceId: job.workspaceId, type: "import.completed", data, at: ctx.now() });
}
