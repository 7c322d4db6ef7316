import { randomBytes } from "node:crypto";
import { and, eq, gt, lte } from "drizzle-orm";
import { sessions, users } from "@shortener/db";
import type { Actor, SystemCtx } from "../context.ts";
import { sha256 } from "../secrets/hash.ts";

/** A session lives this long from sign-in (CONTRACT §19: 30 days); it is not extended by use. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** A live session as the API sees it: who acts, and the CSRF token its mutations must echo. */
export type SessionAuth = Actor & { sessionId: number; csrfToken: string; expiresAt: Date };

/** A new session of `userId`: the token (for the cookie, shown once; stored as a hash) and its CSRF token. */
export async function createSession(ctx: SystemCtx, userId: number): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(24).toString("base64url");
  const expiresAt = new Date(ctx.now().getTime() + SESSION_LIFETIME_MS);
  await ctx.db.insert(sessions).values({ userId, tokenHash: sha256(token), csrfToken, createdAt: ctx.now(), expiresAt });
  return { token, csrfToken, expiresAt };
}

/** The live session behind a cookie's token: one indexed read. Null for unknown, revoked or expired ones. */
export async function findSession(ctx: SystemCtx, token: string): Promise<SessionAuth | null> {
  if (token.length < 16 || token.length > 128) return null;
  const [row] = await ctx.db
    .select({ sessionId: sessions.id, userId: users.id, role: users.role, csrfToken: sessions.csrfToken, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256(token)), gt(sessions.expiresAt, ctx.now())))
    .limit(1);
  return row ?? null;
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
