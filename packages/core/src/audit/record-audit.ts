import { auditLog } from "@shortener/db";
import type { Ctx } from "../context.ts";

/** What an audit entry's `changes` holds: each changed field, before and after (absent on a create's before or a delete's after). */
export type AuditChanges = Record<string, { before?: unknown; after?: unknown }>;

/** Fields whose values never reach the audit log: they are written as "[redacted]" (CONTRACT §24). */
export const AUDIT_SECRET_FIELDS: ReadonlySet<string> = new Set([
  "password",
  "passwordHash",
  "password_hash",
  "privacy_password",
  "privacyPasswordHash",
  "privacy_password_hash",
  "secret",
  "api_key",
  "apiKey",
  "token",
  "tokenHash",
  "token_hash",
  "keyHash",
  "key_hash",
]);

export const REDACTED = "[redacted]";

/** The fields that differ between `before` and `after` (either may be null: a create, a delete), secrets redacted. */
export function auditChanges(before: Record<string, unknown> | null | undefined, after: Record<string, unknown> | null | undefined): AuditChanges {
  const changes: AuditChanges = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    const had = before != null && key in before;
    const has = after != null && key in after;
    const b = had ? before[key] : undefined;
    const a = has ? after[key] : undefined;
    if (had && has && JSON.stringify(b) === JSON.stringify(a)) continue;
    const secret = AUDIT_SECRET_FIELDS.has(key);
    const entry: { before?: unknown; after?: unknown } = {};
    if (had) entry.before = secret && b != null ? REDACTED : (b ?? null);
    if (has) entry.after = secret && a != null ? REDACTED : (a ?? null);
    changes[key] = entry;
  }
  return changes;
}

export type AuditEntry = {
  /** What was done, `object.verb`: `link.created`, `link.updated`, `member.removed`… */
  action: string;
  objectType: string;
  objectId: string | number | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
};

/**
 * Writes one audit entry for a change (CONTRACT §24). Call it with the context of the change's own
 * transaction, so the entry commits with the change or not at all. The actor — user, key or session,
 * client group — comes from `ctx.actor`.
 */
export async function recordAudit(ctx: Ctx, entry: AuditEntry): Promise<void> {
  const { actor } = ctx;
  await ctx.db.insert(auditLog).values({
    workspaceId: actor.workspaceId,
    actorUserId: actor.userId,
    actorKeyId: actor.via?.keyId ?? null,
    actorSessionId: actor.via?.sessionId ?? null,
    action: entry.action,
    objectType: entry.objectType,
    objectId: entry.objectId === null ? null : String(entry.objectId),
    changes: auditChanges(entry.before, entry.after),
    clientGroup: actor.via?.clientGroup ?? null,
    createdAt: ctx.now(),
  });
}
