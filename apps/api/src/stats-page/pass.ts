import { issuePass, isValidPass, passCookieHeader, readCookie } from "@shortener/web-guard";

/**
 * The stats page's password pass (CONTRACT §8, privacy 2): a signed pass (web-guard) like the visitor
 * side's link-password cookie, over "stats", the link id and its current privacy-password hash, with its
 * own expiry (§15), so it never opens a link, a changed password voids it, and it ends after a day.
 */
export function statsCookieName(linkId: number): string {
  return `stats_pass_${linkId}`;
}

type StatsPassFor = { secret: string; linkId: number; privacyPasswordHash: string; now: Date };

const forStats = (pass: StatsPassFor) => ({ secret: pass.secret, subject: `stats\n${pass.linkId}`, passwordHash: pass.privacyPasswordHash, now: pass.now });

export function hasValidStatsPass(cookieHeader: string | undefined, pass: StatsPassFor): boolean {
  return isValidPass(readCookie(cookieHeader, statsCookieName(pass.linkId)), forStats(pass));
}

/** `Set-Cookie` for a new pass: HttpOnly, scoped to this link's stats path, a day long. */
export function statsPassCookie(pass: StatsPassFor & { isSecure: boolean }): string {
  return passCookieHeader(statsCookieName(pass.linkId), issuePass(forStats(pass)), `/stats/${pass.linkId}`, pass.isSecure);
}
