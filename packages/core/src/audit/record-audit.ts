import { eq } from "drizzle-orm";
import { auditLog, workspaces, type AuditValue, type Db } from "@shortener/db";
import type { Ctx } from "../context.ts";

/** What an audit entry's `changes` holds: each changed field, before and after (absent on a create's before or a delete's after). */
export type AuditChanges = Record<string, { before?: AuditValue; after?: AuditValue }>;

/**
 * Fields whose values never reach the audit log (CONTRACT §24), by the API's field names: a set secret
 * is written as "[redacted]", an unset one as null. The views of audit/audit-views.ts carry a secret as
 * a boolean (set or not), never its value; this list is what turns it into "[redacted]".
 */
export const AUDIT_SECRET_FIELDS: ReadonlySet<string> = new Set([
  "password",
  "current_password",
  "password_hash",
  "privacy_password",
  "privacy_password_hash",
  "secret",
  "api_key",
  "key",
  "key_hash",
  "token",
  "token_hash",
]);

export const REDACTED = "[redacted]";

/**
 * Values that are secrets whatever field carries them: an API key (`shk_…`), a webhook secret
 * (`whsec_…`), a password hash (`scrypt$…`). A second net under the field list: such a value is
 * written as "[redacted]" wherever it appears in an entry.
 */
const SECRET_VALUE = /^(?:shk_|whsec_|scrypt\$)/;

function scrub(value: unknown): unknown {
  if (typeof value === "string") return SECRET_VALUE.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map(scrub);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, AUDIT_SECRET_FIELDS.has(k) ? redact(v) : scrub(v)]));
  return value;
}

/** A secret field's value as the log keeps it: "[redacted]" when set (any value but null, undefined, false, ""), else null. */
function redact(value: unknown): string | null {
  return value === null || value === undefined || value === false || value === "" ? null : REDACTED;
}

/**
 * The fields that differ between `before` and `after` (either may be null: a create, a delete), with
 * secrets redacted. `secretsChanged` names secret fields that changed although their views agree (a
 * password replaced by another: both are "set").
 */
export function auditChanges(before: Record<string, unknown> | null | undefined, after: Record<string, unknown> | null | undefined, secretsChanged: readonly string[] = []): AuditChanges {
  const changes: AuditChanges = {};
  // A create's entry (no before) is its after, field by field: the same as the loop below, without the key set.
  if (before == null) {
    if (after == null) return changes;
    for (const key of Object.keys(after)) changes[key] = { after: AUDIT_SECRET_FIELDS.has(key) ? redact(after[key]) : ((scrub(after[key]) ?? null) as AuditValue) };
    return changes;
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    const had = before != null && key in before;
    const has = after != null && key in after;
    const b = had ? before[key] : undefined;
    const a = has ? after[key] : undefined;
    const isSecret = AUDIT_SECRET_FIELDS.has(key);
    if (had && has && JSON.stringify(b) === JSON.stringify(a) && !(isSecret && secretsChanged.includes(key))) continue;
    const entry: { before?: AuditValue; after?: AuditValue } = {};
    // The views hold API field values only (audit-views.ts): scrubbed, they are AuditValues.
    if (had) entry.before = isSecret ? redact(b) : ((scrub(b) ?? null) as AuditValue);
    if (has) entry.after = isSecret ? redact(a) : ((scrub(a) ?? null) as AuditValue);
    changes[key] = entry;
  }
  return changes;
}

export type AuditEntry = {
  /** What was done, `object.verb`: `link.created`, `link.bulk_updated`, `import.finished`… */
  action: string;
  objectType: string;
  objectId: string | number | null;
  /** The object before and after, in the API's field names (audit/audit-views.ts); null or absent on a create's before or a delete's after. */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Secret fields that changed although their views agree (a password replaced by another). */
  secretsChanged?: readonly string[];
  /** The log it goes to; the actor's workspace when absent (an account's own changes go to the personal workspace). */
  workspaceId?: number;
};

/** Who made a change, as an entry records it; null fields when unknown (the worker finishing an import has no request). */
export type AuditActor = { userId: number | null; keyId: number | null; sessionId: number | null; clientGroup: string | null };

/** The row of one entry, ready to insert. */
function auditRow(workspaceId: number, actor: AuditActor, at: Date, entry: AuditEntry) {
  return {
    workspaceId,
    actorUserId: actor.userId,
    actorKeyId: actor.keyId,
    actorSessionId: actor.sessionId,
    action: entry.action,
    objectType: entry.objectType,
    objectId: entry.objectId === null ? null : String(entry.objectId),
    changes: auditChanges(entry.before, entry.after, entry.secretsChanged),
    clientGroup: actor.clientGroup,
    createdAt: at,
  };
}

/** The actor of a context: the user, the key or session they came with, their client group (apps/api fills `via`). */
export function auditActorOf(ctx: Ctx): AuditActor {
  const { actor } = ctx;
  return { userId: actor.userId, keyId: actor.via?.keyId ?? null, sessionId: actor.via?.sessionId ?? null, clientGroup: actor.via?.clientGroup ?? null };
}

/**
 * Writes the audit entries of a change (CONTRACT §24), one row each, in one statement. Call it with the
 * context of the change's own transaction, so the entries commit with the change or not at all. The
 * actor — user, key or session, client group — comes from `ctx.actor`.
 */
export async function recordAudit(ctx: Ctx, entries: AuditEntry | readonly AuditEntry[]): Promise<void> {
  const list = Array.isArray(entries) ? (entries as readonly AuditEntry[]) : [entries as AuditEntry];
  if (!list.length) return;
  const actor = auditActorOf(ctx);
  const at = ctx.now();
  await ctx.db.insert(auditLog).values(list.map((entry) => auditRow(entry.workspaceId ?? ctx.actor.workspaceId, actor, at, entry)));
}

/** An entry written without a request (the worker finishing an import): the workspace and actor given, at `at`. */
export async function recordSystemAudit(db: Db, at: Date, workspaceId: number, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values(auditRow(workspaceId, actor, at, entry));
}

/** The personal workspace of a user: where the changes of their account (password, users an admin makes) are logged. */
export async function personalWorkspaceId(db: Db, userId: number): Promise<number | undefined> {
  const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.personalUserId, userId)).limit(1);
  return row?.id;
}
