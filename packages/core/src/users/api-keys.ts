import { and, eq, gt, isNull, or } from "drizzle-orm";
import { apiKeys, users, workspaceMembers, type Db } from "@shortener/db";
import type { Actor, SystemCtx } from "../context.ts";
import { sha256 } from "../secrets/hash.ts";
import { randomBase62 } from "../secrets/random.ts";
import { API_KEY_SCOPES, type Scope } from "./scopes.ts";

/** Every key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = "shk_";
/** How many leading characters of a key are kept in clear, to tell keys apart (CONTRACT §17). */
export const API_KEY_PREFIX_LENGTH = 8;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

/** Stores `token` (only its hash) as a full-scope key of `userId` in `workspaceId` (CONTRACT §9, §24); returns the token. */
export async function issueApiKey(db: Db, userId: number, workspaceId: number, token: string = generateApiKey()): Promise<string> {
  await db.insert(apiKeys).values({ userId, workspaceId, keyHash: sha256(token), prefix: token.slice(0, API_KEY_PREFIX_LENGTH) });
  return token;
}

/** The key behind a request: its user, what it may do (every scope for the keys of §9) and when it stops working. */
export type Authenticated = Actor & { keyId: number; scopes: readonly Scope[]; expiresAt: Date | null };

/** The condition that picks the live key whose secret is `token`: its hash, not revoked, not expired by `ctx.now()`. */
export function liveKeyWhere(ctx: SystemCtx, token: string) {
  return and(eq(apiKeys.keyHash, sha256(token)), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, ctx.now())));
}

/**
 * Finds the live key behind a bearer token: one indexed read by hash. Null for unknown, revoked or
 * expired keys (expired by `ctx.now()`; a caller that keeps keys in memory checks `expiresAt` again).
 */
export async function authenticateApiKey(ctx: SystemCtx, token: string): Promise<Authenticated | null> {
  if (token.length < 16 || token.length > 256) return null;
  const [row] = await ctx.db
    .select({ keyId: apiKeys.id, userId: users.id, role: users.role, workspaceId: apiKeys.workspaceId, workspaceRole: workspaceMembers.role, scopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    // A key acts with its maker's role in its workspace, at most; a maker who left it leaves a dead key.
    .innerJoin(workspaceMembers, and(eq(workspaceMembers.workspaceId, apiKeys.workspaceId), eq(workspaceMembers.userId, apiKeys.userId)))
    .where(liveKeyWhere(ctx, token))
    .limit(1);
  if (!row) return null;
  const scopes = row.scopes ? API_KEY_SCOPES.filter((scope) => row.scopes?.includes(scope)) : API_KEY_SCOPES;
  return { keyId: row.keyId, userId: row.userId, role: row.role, workspaceId: row.workspaceId, workspaceRole: row.workspaceRole, scopes, expiresAt: row.expiresAt };
}

/** Whether `auth` has expired by `now` (a key kept in memory since it was looked up). */
export function isKeyExpired(auth: Pick<Authenticated, "expiresAt">, now: Date): boolean {
  return auth.expiresAt !== null && auth.expiresAt.getTime() <= now.getTime();
}

/** Writes when a key was last used; the API calls it at most once a minute per key (apps/api key-cache). */
export async function recordKeyUse(ctx: SystemCtx, keyId: number): Promise<void> {
  await ctx.db.update(apiKeys).set({ lastUsedAt: ctx.now() }).where(eq(apiKeys.id, keyId));
}
