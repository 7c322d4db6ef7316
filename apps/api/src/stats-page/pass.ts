import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The stats page's password pass (CONTRACT §8, privacy 2), built like the visitor side's link-password
 * cookie (apps/redirect/src/password.ts): an HMAC of the link id and its current privacy-password hash
 * under the service secret. A changed password changes the hash, so every earlier cookie stops matching.
 */
export function statsCookieName(linkId: number): string {
  return `stats_pass_${linkId}`;
}

export function signStatsPass(secret: string, linkId: number, privacyPasswordHash: string): string {
  return createHmac("sha256", secret).update(`stats\n${linkId}\n${privacyPasswordHash}`).digest("base64url");
}

export function hasValidStatsPass(cookieHeader: string | undefined, secret: string, linkId: number, privacyPasswordHash: string): boolean {
  const value = readCookie(cookieHeader, statsCookieName(linkId));
  if (!value) return false;
  const expected = Buffer.from(signStatsPass(secret, linkId, privacyPasswordHash));
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `Set-Cookie` for the pass: HttpOnly, scoped to this link's stats path, a day long. */
export function statsPassCookie(linkId: number, value: string, isSecure: boolean): string {
  return `${statsCookieName(linkId)}=${value}; Path=/stats/${linkId}; Max-Age=86400; HttpOnly; SameSite=Lax${isSecure ? "; Secure" : ""}`;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
