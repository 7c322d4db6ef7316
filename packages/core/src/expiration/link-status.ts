import { sql, type Placeholder, type SQL } from "drizzle-orm";
import { links } from "@shortener/db";
import { LINK_STATUS, type LinkStatus } from "@shortener/vocabulary";
import { isClickLimitReached } from "./click-limit.ts";

/** CONTRACT §6. 1 Active, 2 Expired, 3 Disabled (the words: @shortener/vocabulary; the rule: here). */
export { LINK_STATUS, type LinkStatus };

export type StatusFields = { disabled: boolean; endsAt: Date | null; expirationClicks: number; clicks: number };

/** Expired: past its `ends_at`, or as many visitors let through as `expiration_clicks` allows (click-limit.ts). */
export function isLinkExpired(link: Omit<StatusFields, "disabled">, now: Date): boolean {
  return (link.endsAt !== null && link.endsAt.getTime() <= now.getTime()) || isClickLimitReached(link);
}

/** The status of a link in memory (the visitor side). `linkStatusSql` is the same rule for queries. */
export function linkStatus(link: StatusFields, now: Date): LinkStatus {
  if (link.disabled) return LINK_STATUS.disabled;
  if (isLinkExpired(link, now)) return LINK_STATUS.expired;
  return LINK_STATUS.active;
}

/**
 * The same rule as `linkStatus`, as SQL, for the `status` field and the `status` filter of lists. A test
 * runs both over the same table of cases on both databases. `now` may be a placeholder (an ISO string) of a
 * prepared statement.
 */
export function linkStatusSql(now: Date | Placeholder): SQL<number> {
  const at = now instanceof Date ? now.toISOString() : now;
  return sql<number>`(case when ${links.disabled} then 3 when (${links.endsAt} is not null and ${links.endsAt} <= ${at}::timestamptz) or (${links.expirationClicks} > 0 and ${links.clicks} >= ${links.expirationClicks}) then 2 else 1 end)::int`;
}
