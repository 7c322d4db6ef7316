import { createHmac, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { findSession, SESSION_LIFETIME_MS, type Authenticated, type SessionAuth } from "@shortener/core";
import { readCookie } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError, unauthenticated } from "../errors.ts";
import type { RateLimiter } from "./rate-limit.ts";

/**
 * Dashboard sessions on the wire (CONTRACT §19, docs/adr/0028-dashboard.md): a cookie
 * `shortener_session=<token>.<HMAC>` (HttpOnly, SameSite=Lax, Path=/, 30 days, Secure over HTTPS),
 * and a CSRF token bound to the session that every request other than GET/HEAD sends back in the
 * `x-csrf-token` header.
 */
export const SESSION_COOKIE = "shortener_session";
export const CSRF_HEADER = "x-csrf-token";

const SIGNED = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, token: string): string {
  return createHmac("sha256", secret).update(`session\n${token}`).digest("base64url");
}

function isEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The session token of a request's cookie if its signature holds (no database read), else undefined. */
export function sessionToken(request: FastifyRequest, secret: string): string | undefined {
  const match = SIGNED.exec(readCookie(request.headers.cookie, SESSION_COOKIE) ?? "");
  if (!match?.[1] || !match[2]) return undefined;
  return isEqual(match[2], mac(secret, match[1])) ? match[1] : undefined;
}

/** Whether the request came over HTTPS (directly, or through a trusted proxy's X-Forwarded-Proto). */
export function isHttps(request: FastifyRequest): boolean {
  return request.protocol === "https";
}

export function sessionCookie(secret: string, token: string, isSecure: boolean): string {
  return `${SESSION_COOKIE}=${token}.${mac(secret, token)}; Path=/; Max-Age=${Math.floor(SESSION_LIFETIME_MS / 1000)}; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

export function clearedSessionCookie(isSecure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

/** Whether a request changes something: every method but GET and HEAD needs the CSRF header. */
const isSafeMethod = (method: string) => method === "GET" || method === "HEAD";

/** The session of a request, or null for a request that has no session cookie. */
export type SessionGuard = (request: FastifyRequest, reply: FastifyReply, cost?: number) => Promise<{ auth: Authenticated; session: SessionAuth } | null>;

/**
 * Authenticates a request by its session cookie: null when it has none (the caller falls back to the
 * bearer key); a 401 when the cookie is forged, unknown, revoked or expired; a 403 when a mutation's
 * `x-csrf-token` is missing or not the session's. Then the request limit of §10, per session, like a key.
 */
export function createSessionGuard(deps: ApiDeps, limiter: RateLimiter): SessionGuard {
  const sys = { db: deps.database.db, now: deps.now };
  return async (request, reply, cost = 1) => {
    if (readCookie(request.headers.cookie, SESSION_COOKIE) === undefined) return null;
    const token = sessionToken(request, deps.config.secret);
    const session = token ? await findSession(sys, token) : null;
    if (!session) throw unauthenticated();
    if (!isSafeMethod(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== "string" || !isEqual(sent, session.csrfToken)) throw new HttpError(403, "forbidden", "The CSRF token is missing or wrong: send the x-csrf-token header.");
    }
    // Sessions count against the limit in their own buckets (negative ids never collide with keys').
    // A session acts within its bounds: the scopes and expiry of the key that opened it, or every scope
    // after a password sign-in (docs/adr/0033-session-bounds.md).
    const auth: Authenticated = {
      userId: session.userId,
      role: session.role,
      workspaceId: session.workspaceId,
      workspaceRole: session.workspaceRole,
      keyId: -session.sessionId,
      scopes: session.bounds.scopes,
      expiresAt: session.bounds.expiresAt,
    };
    await limiter.consumeKey(request, reply, auth.keyId, cost);
    request.auth = auth;
    return { auth, session };
  };
}
