/*
 * Targeting's words (CONTRACT §4 `target_type`): the types, and the group of entries each one reads.
 * Code says `TARGET_TYPES.country`, never `1`. What each type needs of a visitor, and the rules, stay in
 * core (packages/core/src/targeting/).
 */

export const TARGET_TYPES = { none: 0, country: 1, platform: 2, language: 3, rotation: 4 } as const;
export type TargetType = (typeof TARGET_TYPES)[keyof typeof TARGET_TYPES];

/** Every target type, in order: what the input schemas accept. */
export const TARGET_TYPE_VALUES = [TARGET_TYPES.none, TARGET_TYPES.country, TARGET_TYPES.platform, TARGET_TYPES.language, TARGET_TYPES.rotation] as const;

/** The entry lists of a link, one per target type but `none`. */
export type TargetGroup = "country" | "platform" | "language" | "rotation";
export const TARGET_GROUPS: readonly TargetGroup[] = ["country", "platform", "language", "rotation"];

/** The group a target type reads its entries from (none for `none`). */
export const GROUP_OF_TYPE: Readonly<Record<number, TargetGroup | undefined>> = {
  [TARGET_TYPES.country]: "country",
  [TARGET_TYPES.platform]: "platform",
  [TARGET_TYPES.language]: "language",
  [TARGET_TYPES.rotation]: "rotation",
};

/** The platforms a link can target, spelled as the contract spells them. */
export const PLATFORMS = ["iOS", "Android", "Windows", "OS X", "Linux", "Ubuntu", "Chrome OS"] as const;
export type Platform = (typeof PLATFORMS)[number];
