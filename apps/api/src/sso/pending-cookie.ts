import { createHmac, timingSafeEqual } from "node:crypto";
import { readCookie } from "@shortener/web-guard";
import type { PendingSignIn } from "./oidc-client.ts";

/**
 * A single sign-on in progress, between the start and the callback (docs/adr/0046-single-sign-on.md):
 * its state, nonce, PKCE verifier and redirect URI in a cookie `shortener_sso=<payload>.<HMAC>` that
 * only the service can have written (signed with SECRET), HttpOnly, SameSite=Lax (the provider's
 * redirect back is a top-level GET, which Lax lets through), on the callback's path only, for 10
 * minutes. The callback clears it whatever happens, so it serves one callback.
 */
export const PENDING_COOKIE = "shortener_sso";
export const PENDING_PATH = "/app/session/sso";
export const PENDING_LIFETIME_MS = 10 * 60_000;

/** The most a cookie value may be here: well under browsers' 4 KiB per cookie. */
const MAX_VALUE = 2_048;

function mac(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(`sso-pending\n${payload}`).digest("base64url");
}

function attributes(maxAgeS: number, isSecure: boolean): string {
  return `Path=${PENDING_PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

export function pendingCookie(secret: string, pending: PendingSignIn, now: Date, isSecure: boolean): string {
  const payload = Buffer.from(JSON.stringify({ ...pending, exp: now.getTime() + PENDING_LIFETIME_MS })).toString("base64url");
  return `${PENDING_COOKIE}=${payload}.${mac(secret, payload)}; ${attributes(PENDING_LIFETIME_MS / 1000, isSecure)}`;
}

export function clearedPendingCookie(isSecure: boolean): string {
  return `${PENDING_COOKIE}=; ${attributes(0, isSecure)}`;
}

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= 1_024;

/** The pending sign-in of a request's cookie, if its signature holds and its 10 minutes are not over; else null. */
export function readPending(cookieHeader: string | undefined, secret: string, now: Date): PendingSignIn | null {
  const value = readCookie(cookieHeader, PENDING_COOKIE);
  if (!value || value.length > MAX_VALUE) return null;
  const dot = value.lastIndexOf(".");
  const payload = value.slice(0, dot);
  const sent = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(secret, payload));
  if (dot < 1 || sent.length !== expected.length || !timingSafeEqual(sent, expected)) return null;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof data.exp !== "number" || data.exp <= now.getTime()) return null;
  const { state, nonce, verifier, redirectUri } = data;
  if (!isText(state) || !isText(nonce) || !isText(verifier) || !isText(redirectUri)) return null;
  return { state, nonce, verifier, redirectUri };
}
