import { isLinkExpired } from "../expiration/link-status.ts";
import type { VisitLink } from "./visit-link.ts";

/** Steps 4–6 of CONTRACT §7, in order, for a link in memory. */
export type VisitGate = "disabled" | "expired" | "password" | "open";

export function gateVisit(link: VisitLink, now: Date, options: { hasPasswordPass: boolean }): VisitGate {
  if (link.disabled) return "disabled";
  if (isLinkExpired(link, now)) return "expired";
  if (link.passwordHash && !options.hasPasswordPass) return "password";
  return "open";
}
