import type { AuditRecord } from "@shortener/core";

/** An object id as the API shows it: an integer when it is one (CONTRACT §1), else the stored text. */
function objectIdJson(id: string | null): number | string | null {
  return id !== null && /^[1-9]\d{0,15}$/.test(id) ? Number(id) : id;
}

/** One audit entry as REST and tRPC answer it (CONTRACT §24, docs/audit.md). */
export function auditEntryJson(e: AuditRecord) {
  return {
    id: e.id,
    action: e.action,
    object_type: e.objectType,
    object_id: objectIdJson(e.objectId),
    actor_user_id: e.actorUserId,
    actor_key_id: e.actorKeyId,
    actor_session_id: e.actorSessionId,
    client_group: e.clientGroup,
    changes: e.changes,
    created_at: e.createdAt.toISOString(),
  };
}

/** The CSV columns of the audit export: the entry's fields, `changes` as its JSON text. */
export const AUDIT_CSV_COLUMNS = ["id", "created_at", "action", "object_type", "object_id", "actor_user_id", "actor_key_id", "actor_session_id", "client_group", "changes"] as const;

/** One entry as the cells of a CSV row, in `AUDIT_CSV_COLUMNS` order; null as an empty cell. */
export function auditCsvCells(e: AuditRecord): string[] {
  const json = auditEntryJson(e);
  return AUDIT_CSV_COLUMNS.map((column) => {
    const value = json[column];
    if (value === null) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  });
}
