/*
 * Expiry by clicks (CONTRACT §4 `expiration_clicks`, §7 step 11), the rule whole: which links are
 * limited, how many of a crowd of visitors get through, and what a cached copy of the link learns from
 * it. `countLimitedClicks` applies `admitClicks` atomically in the database; a test runs both over one
 * table. `isLinkExpired` (link-status.ts) then says "expired" once the counter has reached the limit.
 */

/** The two numbers of the rule: the link's counter and its limit (0: no limit). */
export type ClickCounter = { clicks: number; expirationClicks: number };

/** The outcome of one admission: how many visitors got through, and the counter after them. */
export type Admission = { admitted: number; clicks: number };

/** True when the link admits a bounded number of visitors: each is counted in the database before it is let through. */
export function isClickLimited(link: Pick<ClickCounter, "expirationClicks">): boolean {
  return link.expirationClicks > 0;
}

/** True when a click-limited link has let through as many visitors as it admits. */
export function isClickLimitReached(link: ClickCounter): boolean {
  return isClickLimited(link) && link.clicks >= link.expirationClicks;
}

/**
 * Of `wanted` visitors arriving at once, as many get through as fit under the limit, and the counter
 * rises by that many — never past the limit; a link without a limit admits no one this way (its clicks
 * are counted afterwards, in batches). The database's copy is `countLimitedClicks`.
 */
export function admitClicks(counter: ClickCounter, wanted: number): Admission {
  if (!isClickLimited(counter) || counter.clicks >= counter.expirationClicks) return { admitted: 0, clicks: counter.clicks };
  const clicks = Math.min(counter.clicks + wanted, counter.expirationClicks);
  return { admitted: clicks - counter.clicks, clicks };
}

/**
 * Each visitor's outcome of one admission of `wanted`, in arrival order: the first `admitted` get
 * through, each with the counter after it; the rest get null — the limit is reached, the link expired.
 */
export function admittedCounts(admission: Admission, wanted: number): Array<number | null> {
  const first = admission.clicks - admission.admitted;
  return Array.from({ length: wanted }, (_, i) => (i < admission.admitted ? first + i + 1 : null));
}

/**
 * What a cached copy of a link learns from one visitor's outcome: the counter after it, or (null) that
 * the limit is reached, so `isLinkExpired` answers "expired" for the next visits without the database.
 */
export function noteAdmission(link: ClickCounter, count: number | null): void {
  link.clicks = Math.max(link.clicks, count ?? link.expirationClicks);
}
