import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { apiKeys, users } from "@shortener/db";
import { apiKeyAuditView } from "../audit/audit-views.ts";
import { recordAudit } from "../audit/record-audit.ts";
import type { Ctx } from "../context.ts";
import { ValidationError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";
import { parseInput } from "../validation/fields.ts";
import { API_KEY_PREFIX_LENGTH, generateApiKey } from "./api-keys.ts";
import { CreateApiKeyInput, MAX_NAMED_KEYS_PER_USER } from "./key-schemas.ts";
import { requireRole } from "../workspaces/roles.ts";
import { namedKeyColumns, toApiKey, type ApiKey } from "./named-key.ts";
import type { Bounds, Scope } from "./scopes.ts";
import { withinUserCap } from "./user-cap.ts";

/**
 * A new key never holds more than the caller: every scope asked for is one the caller has, and a caller
 * that expires makes only keys that expire no later (an absent `expires_at` would be "never"). A 422 on
 * the field, so the form shows what to change.
 */
function checkWithinBounds(bounds: Bounds | undefined, scopes: readonly Scope[], expiresAt: Date | null): void {
  if (!bounds) return;
  const beyond = scopes.filter((scope) => !bounds.scopes.includes(scope));
  const fields: Record<string, string[]> = {};
  if (beyond.length) fields.scopes = [`You cannot give a key scopes you do not have: ${beyond.join(", ")}.`];
  if (bounds.expiresAt && (!expiresAt || expiresAt.getTime() > bounds.expiresAt.getTime())) {
    fields.expires_at = [`The key must expire by ${bounds.expiresAt.toISOString()}, when your own access ends.`];
  }
  if (Object.keys(fields).length) throw new ValidationError(fields);
}

/**
 * A new named key of the caller in the workspace they act in (admins, CONTRACT §24), with the scopes
 * asked for (CONTRACT §17); it acts with its maker's role there, whatever that becomes. The secret is returned here
 * only; the database keeps its SHA-256 hash and its first 8 characters. At most
 * `MAX_NAMED_KEYS_PER_USER` live keys a user, under concurrency too (`withinUserCap`); `expires_at`
 * must lie in the future. A caller with bounds (a scoped or expiring key, or a session opened with one)
 * makes only keys within them: its scopes at most, and an expiry no later than its own
 * (docs/adr/0033-session-bounds.md).
 */
export async function createApiKey({ ctx, input }: { ctx: Ctx; input: CreateApiKeyInput }): Promise<{ apiKey: ApiKey; secret: string }> {
  const data = parseInput(CreateApiKeyInput, input);
  requireRole(ctx.actor, "admin");
  const expiresAt = data.expires_at ? new Date(data.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= ctx.now().getTime()) throw ValidationError.field("expires_at", "The expires at must be a date in the future.");
  checkWithinBounds(ctx.actor.bounds, data.scopes, expiresAt);
  const cap = {
    table: apiKeys,
    held: and(eq(apiKeys.userId, ctx.actor.userId), isNotNull(apiKeys.name), isNull(apiKeys.revokedAt)),
    max: MAX_NAMED_KEYS_PER_USER,
    refusal: () => ValidationError.field("name", `You cannot have more than ${MAX_NAMED_KEYS_PER_USER} API keys; delete one first.`),
  };
  return withinUserCap(ctx, cap, async (tx) => {
    const secret = generateApiKey();
    const [row] = await tx.db
      .insert(apiKeys)
      .values({
        userId: tx.actor.userId,
        workspaceId: tx.actor.workspaceId,
        keyHash: sha256(secret),
        prefix: secret.slice(0, API_KEY_PREFIX_LENGTH),
        name: data.name,
        scopes: data.scopes,
        expiresAt,
        createdAt: tx.now(),
      })
      .returning(namedKeyColumns);
    if (!row) throw new Error("insert returned no row");
    const [maker] = await tx.db.select({ makerName: users.name, makerEmail: users.email }).from(users).where(eq(users.id, tx.actor.userId));
    if (!maker) throw new Error("the acting user vanished");
    const apiKey = toApiKey({ ...row, ...maker });
    // Never the key, its hash or its prefix: its name, scopes and expiry.
    await recordAudit(tx, { action: "api_key.created", objectType: "api_key", objectId: apiKey.id, after: apiKeyAuditView(apiKey) });
    return { apiKey, secret };
  });
}
