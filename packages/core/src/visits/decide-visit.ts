import { isLinkExpired } from "../links/status.ts";
import type { VisitLink } from "./visit-link.ts";

/** Steps 4–6 of CONTRACT §7, in order, for a link in memory. */
export type VisitGate = "disabled" | "expired" | "password" | "open";

export function gateVisit(link: VisitLink, now: Date, options: { hasPasswordPass: boolean }): VisitGate {
  if (link.disabled) return "disabled";
  if (isLinkExpired(link, now)) return "expired";
  if (link.passwordHash && !options.hasPasswordPass) return "password";
  return "open";
}

/** True when the link admits a bounded number of visitors: those are counted in the database first. */
export function isClickLimited(link: Pick<VisitLink, "expirationClicks">): boolean {
  return link.expirationClicks > 0;
}
