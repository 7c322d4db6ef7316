import { randomBytes } from "node:crypto";
import { and, desc, eq, gt, inArray, isNull, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { apiKeys, sessions, users, workspaceMembers, workspaces, type Db } from "@shortener/db";
import type { Actor, SystemCtx, WorkspaceRole } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";
import { API_KEY_SCOPES, type Bounds, type Scope } from "../users/scopes.ts";

/** A session lives this long from sign-in (CONTRACT §19: 30 days); it is not extended by use. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A live session as the API sees it: who acts, within which bounds (the opening key's scopes and expiry;
 * every scope and no end for a password sign-in), the key that opened it (null: the password), and the
 * CSRF token its mutations must echo (docs/adr/0033-session-bounds.md).
 */
export type SessionAuth = Actor & { sessionId: number; csrfToken: string; expiresAt: Date; apiKeyId: number | null; bounds: Bounds; isSso: boolean };

/** The key a session is opened with: its id, its scopes (null: every scope, a key of §9) and its expiry. */
export type SessionKey = { id: number; scopes: Scope[] | null; expiresAt: Date | null };

/**
 * A session is live while its own time runs and, when a key opened it, while that key does: not revoked
 * (deleted or rotated) and not expired. Checked at every use, next to the foreign key's cascade.
 */
function isOpenerLive(now: Date): SQL {
  return or(isNull(sessions.apiKeyId), and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)))) as SQL;
}

/** A session's last use is written at most this often (one write a minute per session, not per request). */
export const SESSION_SEEN_EVERY_MS = 60_000;

/** The most of a User-Agent a session keeps: enough to tell a browser and a system apart. */
const USER_AGENT_MAX = 300;

/** How many sessions a user's list shows: the most recently used. */
export const SESSION_LIST_MAX = 100;

/** A session as its owner sees it in the list of signed-in devices. */
export type SessionRow = { id: number; userAgent: string | null; createdAt: Date; lastSeenAt: Date | null; expiresAt: Date };

/**
 * A User-Agent header as a session keeps it: control characters (NUL among them, which Postgres refuses
 * in text) become spaces, runs of spaces one, cut to 300 characters; null when nothing is left.
 */
export function sessionUserAgent(header: string | undefined | null): string | null {
  if (typeof header !== "string") return null;
  const cleaned = header
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, USER_AGENT_MAX)
    .trim();
  return cleaned || null;
}

/**
 * A new session of `userId`: the token (for the cookie, shown once; stored as a hash) and its CSRF token.
 * Opened with a key (`key`), it keeps the key's id and scopes and ends no later than the key does.
 * `isSso`: opened through single sign-on, so it may act in workspaces that require it (docs/sso.md).
 */
export async function createSession(
  ctx: SystemCtx,
  userId: number,
  userAgent?: string | null,
  key: SessionKey | null = null,
  options: { isSso?: boolean } = {},
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = ctx.now();
  const lifetimeEnd = now.getTime() + SESSION_LIFETIME_MS;
  const expiresAt = new Date(key?.expiresAt ? Math.min(lifetimeEnd, key.expiresAt.getTime()) : lifetimeEnd);
  await ctx.db.insert(sessions).values({
    userId,
    tokenHash: sha256(token),
    csrfToken,
    createdAt: now,
    expiresAt,
    userAgent: sessionUserAgent(userAgent),
    lastSeenAt: now,
    apiKeyId: key?.id ?? null,
    scopes: key?.scopes ?? null,
    isSso: options.isSso ?? false,
  });
  return { token, csrfToken, expiresAt };
}

/** The workspace a session acts in, next to the user's personal one in `findSession`'s read. */
const actingWorkspace = alias(workspaces, "acting_workspace");

/**
 * The live session behind a cookie's token: one indexed read. Null for unknown, revoked or expired ones.
 * A session not opened through single sign-on never acts in a workspace that requires it (CONTRACT §24):
 * it falls back to the user's personal workspace, and a key's session ends. The instance admin is the
 * exception, the break-glass way in while the identity provider is down (docs/sso.md).
 */
export async function findSession(ctx: SystemCtx, token: string): Promise<SessionAuth | null> {
  if (token.length < 16 || token.length > 128) return null;
  const now = ctx.now();
  const [row] = await ctx.db
    .select({
      sessionId: sessions.id,
      userId: users.id,
      role: users.role,
      csrfToken: sessions.csrfToken,
      expiresAt: sessions.expiresAt,
      lastSeenAt: sessions.lastSeenAt,
      apiKeyId: sessions.apiKeyId,
      scopes: sessions.scopes,
      keyExpiresAt: apiKeys.expiresAt,
      personalWorkspaceId: workspaces.id,
      memberOf: workspaceMembers.workspaceId,
      workspaceRole: workspaceMembers.role,
      isSso: sessions.isSso,
      isSsoRequiredThere: actingWorkspace.requireSso,
      isSsoRequiredInPersonal: workspaces.requireSso,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(apiKeys, eq(apiKeys.id, sessions.apiKeyId))
    .leftJoin(workspaces, eq(workspaces.personalUserId, users.id))
    // The workspace it acts in (CONTRACT §24): its opening key's, else the one switched to, else the
    // user's personal one; with the user's role there.
    .leftJoin(workspaceMembers, and(eq(workspaceMembers.userId, users.id), eq(workspaceMembers.workspaceId, sql`coalesce(${apiKeys.workspaceId}, ${sessions.workspaceId}, ${workspaces.id})`)))
    .leftJoin(actingWorkspace, eq(actingWorkspace.id, workspaceMembers.workspaceId))
    .where(and(eq(sessions.tokenHash, sha256(token)), gt(sessions.expiresAt, now), isOpenerLive(now)))
    .limit(1);
  if (!row) return null;
  const { lastSeenAt, scopes, keyExpiresAt, personalWorkspaceId, memberOf, workspaceRole, isSsoRequiredThere, isSsoRequiredInPersonal, ...session } = row;
  const mayActWhereSsoRequired = session.isSso || session.role === "admin";
  // No longer a member of the workspace switched to, or it requires single sign-on of a session that did
  // not use it: back to the personal one; a key's session ends.
  let acting: { workspaceId: number; workspaceRole: WorkspaceRole } | null =
    memberOf !== null && workspaceRole !== null && (mayActWhereSsoRequired || !isSsoRequiredThere) ? { workspaceId: memberOf, workspaceRole } : null;
  if (!acting && session.apiKeyId === null && personalWorkspaceId !== null && (mayActWhereSsoRequired || !isSsoRequiredInPersonal))
    acting = { workspaceId: personalWorkspaceId, workspaceRole: "owner" };
  if (!acting) return null;
  if (!lastSeenAt || now.getTime() - lastSeenAt.getTime() >= SESSION_SEEN_EVERY_MS) {
    await ctx.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.sessionId));
  }
  const bounds: Bounds = { scopes: scopes ? API_KEY_SCOPES.filter((scope) => scopes.includes(scope)) : API_KEY_SCOPES, expiresAt: keyExpiresAt ?? null };
  return { ...session, ...acting, bounds };
}

/**
 * Ends the sessions opened with any of `keyIds` (a key deleted or rotated away), but `keepSessionId`,
 * which moves to `successorKeyId` when one is given (the session that rotated its own key).
 */
export async function endSessionsOfKeys(db: Db, keyIds: number[], keep: { sessionId: number; successorKeyId: number } | null = null): Promise<void> {
  if (!keyIds.length) return;
  const ofKeys = inArray(sessions.apiKeyId, keyIds);
  if (keep)
    await db
      .update(sessions)
      .set({ apiKeyId: keep.successorKeyId })
      .where(and(eq(sessions.id, keep.sessionId), ofKeys));
  await db.delete(sessions).where(ofKeys);
}

/** Ends every session of `userId` but `keepSessionId` (a password change: the other devices sign in again). */
export async function endOtherSessions(db: Db, userId: number, keepSessionId: number | null): Promise<void> {
  await db.delete(sessions).where(and(eq(sessions.userId, userId), keepSessionId === null ? undefined : ne(sessions.id, keepSessionId)));
}

/** The user's live sessions, the most recently used first (at most `SESSION_LIST_MAX`). */
export async function listUserSessions(ctx: SystemCtx, userId: number): Promise<SessionRow[]> {
  const now = ctx.now();
  return ctx.db
    .select({ id: sessions.id, userAgent: sessions.userAgent, createdAt: sessions.createdAt, lastSeenAt: sessions.lastSeenAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .leftJoin(apiKeys, eq(apiKeys.id, sessions.apiKeyId))
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now), isOpenerLive(now)))
    .orderBy(desc(sql`coalesce(${sessions.lastSeenAt}, ${sessions.createdAt})`), desc(sessions.id))
    .limit(SESSION_LIST_MAX);
}

/** Signs one of the user's sessions out, by its id: the device using it is signed out on its next request. Another user's session, or one gone already, is a 404. */
export async function deleteUserSession(ctx: SystemCtx, userId: number, sessionId: number): Promise<{ id: number }> {
  const deleted = await ctx.db
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
    .returning({ id: sessions.id });
  if (!deleted.length) throw new NotFoundError("Session");
  return { id: sessionId };
}

/** Signs one session out (its token); unknown tokens are ignored. Expired sessions of the user go too. */
export async function deleteSession(ctx: SystemCtx, token: string): Promise<void> {
  const [row] = await ctx.db
    .delete(sessions)
    .where(eq(sessions.tokenHash, sha256(token)))
    .returning({ userId: sessions.userId });
  if (row) await ctx.db.delete(sessions).where(and(eq(sessions.userId, row.userId), lte(sessions.expiresAt, ctx.now())));
}

/** "Sign out everywhere": every session of the user; returns how many there were. */
export async function deleteUserSessions(ctx: SystemCtx, userId: number): Promise<number> {
  const deleted = await ctx.db.delete(sessions).where(eq(sessions.userId, userId)).returning({ id: sessions.id });
  return deleted.length;
}
