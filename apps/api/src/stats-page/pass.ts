import { hasPassCookie, passCookieHeader, signPass } from "@shortener/core";

/**
 * The stats page's password pass (CONTRACT §8, privacy 2), a signed pass like the visitor side's
 * link-password cookie (core's `signPass`), over "stats", the link id and its current privacy-password
 * hash, so it never opens a link and a changed password voids it.
 */
export function statsCookieName(linkId: number): string {
  return `stats_pass_${linkId}`;
}

export function signStatsPass(secret: string, linkId: number, privacyPasswordHash: string): string {
  return signPass(secret, `stats\n${linkId}`, privacyPasswordHash);
}

export function hasValidStatsPass(cookieHeader: string | undefined, secret: string, linkId: number, privacyPasswordHash: string): boolean {
  return hasPassCookie(cookieHeader, statsCookieName(linkId), signStatsPass(secret, linkId, privacyPasswordHash));
}

/** `Set-Cookie` for the pass: HttpOnly, scoped to this link's stats path, a day long. */
export function statsPassCookie(linkId: number, value: string, isSecure: boolean): string {
  return passCookieHeader(statsCookieName(linkId), value, `/stats/${linkId}`, isSecure);
}
