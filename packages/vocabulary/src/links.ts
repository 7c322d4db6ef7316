/** A link's status (CONTRACT §6): 1 Active, 2 Expired, 3 Disabled. The rule that decides it is core's `linkStatus`. */
export const LINK_STATUS = { active: 1, expired: 2, disabled: 3 } as const;
export type LinkStatus = (typeof LINK_STATUS)[keyof typeof LINK_STATUS];

/** Each status as people read it (the dashboard's badges and filter). */
export const LINK_STATUS_NAMES: Readonly<Record<LinkStatus, string>> = { 1: "Active", 2: "Expired", 3: "Disabled" };

/**
 * The fields of a link's create and update (CONTRACT §3, §4), in the order the contract lists them: the
 * dashboard's form places the API's messages by them, and the fuzz test aims at them. An import file's
 * columns are another list (names of domains instead of ids, stored hashes, no targeting).
 */
export const LINK_FIELDS = [
  "url",
  "domain_id",
  "alias",
  "title",
  "password",
  "space_id",
  "pixel_ids",
  "tags",
  "og_title",
  "og_description",
  "og_image",
  "disabled",
  "privacy",
  "privacy_password",
  "expiration_url",
  "expiration_date",
  "expiration_time",
  "expiration_clicks",
  "target_type",
  "country",
  "platform",
  "language",
  "rotation",
] as const;
export type LinkField = (typeof LINK_FIELDS)[number];

/**
 * A link destination's health (CONTRACT §25), as the worker last found it: `ok`, `broken` (with the
 * reason), or `unchecked` (not looked at yet, the url changed since, or not checkable). The rules are the
 * worker's (apps/worker/src/health/).
 */
export const LINK_HEALTH = ["ok", "broken", "unchecked"] as const;
export type LinkHealth = (typeof LINK_HEALTH)[number];
