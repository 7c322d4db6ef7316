import { randomBytes } from "node:crypto";
import { and, desc, eq, gt, lte, sql } from "drizzle-orm";
import { sessions, users } from "@shortener/db";
import type { Actor, SystemCtx } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { sha256 } from "../secrets/hash.ts";

/** A session lives this long from sign-in (CONTRACT §19: 30 days); it is not extended by use. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** A live session as the API sees it: who acts, and the CSRF token its mutations must echo. */
export type SessionAuth = Actor & { sessionId: number; csrfToken: string; expiresAt: Date };

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

/** A new session of `userId`: the token (for the cookie, shown once; stored as a hash) and its CSRF token. */
export async function createSession(ctx: SystemCtx, userId: number, userAgent?: string | null): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await ctx.db.insert(sessions).values({ userId, tokenHash: sha256(token), csrfToken, createdAt: now, expiresAt, userAgent: sessionUserAgent(userAgent), lastSeenAt: now });
  return { token, csrfToken, expiresAt };
}

/** The live session behind a cookie's token: one indexed read. Null for unknown, revoked or expired ones. */
export async function findSession(ctx: SystemCtx, token: string): Promise<SessionAuth | null> {
  if (token.length < 16 || token.length > 128) return null;
  const now = ctx.now();
  const [row] = await ctx.db
    .select({ sessionId: sessions.id, userId: users.id, role: users.role, csrfToken: sessions.csrfToken, expiresAt: sessions.expiresAt, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256(token)), gt(sessions.expiresAt, now)))
    .limit(1);
  if (!row) return null;
  const { lastSeenAt, ...session } = row;
  if (!lastSeenAt || now.getTime() - lastSeenAt.getTime() >= SESSION_SEEN_EVERY_MS) {
    await ctx.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.sessionId));
  }
  return session;
}

/** The user's live sessions, the most recently used first (at most `SESSION_LIST_MAX`). */
export async function listUserSessions(ctx: SystemCtx, userId: number): Promise<SessionRow[]> {
  return ctx.db
    .select({ id: sessions.id, userAgent: sessions.userAgent, createdAt: sessions.createdAt, lastSeenAt: sessions.lastSeenAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, ctx.now())))
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
