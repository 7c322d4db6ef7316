/** A link's status (CONTRACT §6): 1 Active, 2 Expired, 3 Disabled. The rule that decides it is core's `linkStatus`. */
export const LINK_STATUS = { active: 1, expired: 2, disabled: 3 } as const;
export type LinkStatus = (typeof LINK_STATUS)[keyof typeof LINK_STATUS];

/** Each status as people read it (the dashboard's badges and filter). */
export const LINK_STATUS_NAMES: Readonly<Record<LinkStatus, string>> = { 1: "Active", 2: "Expired", 3: "Disabled" };
