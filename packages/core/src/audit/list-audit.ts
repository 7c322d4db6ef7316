import { and, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { auditLog } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { ForbiddenError, ValidationError } from "../errors.ts";
import { offsetOf, type Page } from "../lists/pagination.ts";
import { parseInput } from "../validation/fields.ts";
import { ExportAuditInput, ListAuditInput } from "./schemas.ts";
import type { AuditChanges } from "./record-audit.ts";

/** One entry of the audit log as core returns it (CONTRACT §24). */
export type AuditRecord = {
  id: number;
  action: string;
  objectType: string;
  objectId: string | null;
  actorUserId: number | null;
  actorKeyId: number | null;
  actorSessionId: number | null;
  clientGroup: string | null;
  changes: AuditChanges;
  createdAt: Date;
};

const auditColumns = {
  id: auditLog.id,
  action: auditLog.action,
  objectType: auditLog.objectType,
  objectId: auditLog.objectId,
  actorUserId: auditLog.actorUserId,
  actorKeyId: auditLog.actorKeyId,
  actorSessionId: auditLog.actorSessionId,
  clientGroup: auditLog.clientGroup,
  changes: auditLog.changes,
  createdAt: auditLog.createdAt,
};

/** At most this many entries are read at once by the CSV export. */
export const AUDIT_EXPORT_PAGE = 1000;

/** The log is read by the workspace's admins and owners only (CONTRACT §24): a viewer or editor is refused. */
export function assertAuditReader(ctx: Ctx): void {
  if (ctx.actor.workspaceRole !== "admin" && ctx.actor.workspaceRole !== "owner") throw new ForbiddenError("The audit log is for the workspace's admins and owners.");
}

const DAY_MS = 86_400_000;

/** `from` as a moment: a day starts at 00:00 UTC. */
function startOf(value: string): Date {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
}

/** The moment after `to`: a day includes all of it, a date and time itself. */
function endAfter(value: string): Date {
  return value.length === 10 ? new Date(Date.parse(`${value}T00:00:00Z`) + DAY_MS) : new Date(Date.parse(value) + 1);
}

/** The filters as one condition over the caller's workspace; `object_id` needs `object_type`, and `from` may not be after `to` (422s). */
function auditWhere(ctx: Ctx, p: z.output<typeof ExportAuditInput>): SQL | undefined {
  if (p.object_id !== undefined && p.object_type === undefined) throw ValidationError.field("object_id", "The object id needs an object type (object_type).");
  const from = p.from === undefined ? undefined : startOf(p.from);
  const to = p.to === undefined ? undefined : endAfter(p.to);
  if (from && to && from.getTime() >= to.getTime()) throw ValidationError.field("from", "The from must be before or equal to the to.");
  return and(
    eq(auditLog.workspaceId, ctx.actor.workspaceId),
    p.actor === undefined ? undefined : eq(auditLog.actorUserId, p.actor),
    p.object_type === undefined ? undefined : eq(auditLog.objectType, p.object_type),
    p.object_id === undefined ? undefined : eq(auditLog.objectId, String(p.object_id)),
    p.action === undefined ? undefined : eq(auditLog.action, p.action),
    from ? gte(auditLog.createdAt, from) : undefined,
    to ? lt(auditLog.createdAt, to) : undefined,
  );
}

function toRecord(row: Omit<AuditRecord, "changes"> & { changes: AuditRecord["changes"] | null }): AuditRecord {
  return { ...row, changes: row.changes ?? {} };
}

/** A page of the workspace's audit log, newest first, with the filters of `ListAuditInput` (CONTRACT §24). Admins and owners only. */
export async function listAudit({ ctx, input }: { ctx: Ctx; input: ListAuditInput }): Promise<Page<AuditRecord>> {
  assertAuditReader(ctx);
  const p = parseInput(ListAuditInput, input);
  const where = auditWhere(ctx, p);
  const [rows, [total]] = await Promise.all([
    ctx.db.select(auditColumns).from(auditLog).where(where).orderBy(desc(auditLog.id)).limit(p.per_page).offset(offsetOf(p.page, p.per_page)),
    ctx.db.select({ n: count() }).from(auditLog).where(where),
  ]);
  return { data: rows.map(toRecord), total: total?.n ?? 0, page: p.page, perPage: p.per_page };
}

/**
 * Every entry the filters match, newest first, as pages read one at a time as the consumer asks (an
 * indexed keyset walk down the ids): a stream that holds one page however long the log. The role and
 * the filters are checked before the first page (a refusal or a 422 before anything is sent).
 */
export async function streamAuditExport({ ctx, input }: { ctx: Ctx; input: ExportAuditInput }): Promise<AsyncGenerator<AuditRecord[]>> {
  assertAuditReader(ctx);
  const p = parseInput(ExportAuditInput, input);
  const where = auditWhere(ctx, p);
  const page = (before: number | undefined) =>
    ctx.db
      .select(auditColumns)
      .from(auditLog)
      .where(before === undefined ? where : and(where, lt(auditLog.id, before)))
      .orderBy(desc(auditLog.id))
      .limit(AUDIT_EXPORT_PAGE);
  const first = await page(undefined);
  return (async function* () {
    let rows = first;
    for (;;) {
      if (rows.length) yield rows.map(toRecord);
      const last = rows[rows.length - 1];
      if (!last || rows.length < AUDIT_EXPORT_PAGE) return;
      rows = await page(last.id);
    }
  })();
}
