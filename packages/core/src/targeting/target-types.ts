import type { TargetEntry } from "@shortener/db";

/*
 * Targeting's vocabulary (CONTRACT §4 `target_type`): the types, the group of entries each one reads,
 * and which facts about a visitor each one needs. Code says `TARGET_TYPES.country`, never `1`.
 */

export const TARGET_TYPES = { none: 0, country: 1, platform: 2, language: 3, rotation: 4 } as const;
export type TargetType = (typeof TARGET_TYPES)[keyof typeof TARGET_TYPES];

/** Every target type, in order: what the input schemas accept. */
export const TARGET_TYPE_VALUES = [TARGET_TYPES.none, TARGET_TYPES.country, TARGET_TYPES.platform, TARGET_TYPES.language, TARGET_TYPES.rotation] as const;

/** A link's targeting as stored: its type and one entry list per group (null when it has none). */
export type LinkTargets = {
  targetType: number;
  countryTarget: TargetEntry[] | null;
  platformTarget: TargetEntry[] | null;
  languageTarget: TargetEntry[] | null;
  rotationTarget: TargetEntry[] | null;
};

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

/**
 * What `chooseDestination` reads of a visitor for a target type: the visitor side gathers only these
 * (a GeoIP lookup, `Accept-Language` parsing, a turn of the rotation) unless it needs them anyway.
 */
export type VisitorFacts = { country: boolean; platform: boolean; languages: boolean; rotation: boolean };

const NO_FACTS: VisitorFacts = { country: false, platform: false, languages: false, rotation: false };
const FACTS_OF_TYPE: Readonly<Record<number, VisitorFacts | undefined>> = {
  [TARGET_TYPES.country]: { ...NO_FACTS, country: true },
  [TARGET_TYPES.platform]: { ...NO_FACTS, platform: true },
  [TARGET_TYPES.language]: { ...NO_FACTS, languages: true },
  [TARGET_TYPES.rotation]: { ...NO_FACTS, rotation: true },
};

export function visitorFactsFor(targetType: number): VisitorFacts {
  return FACTS_OF_TYPE[targetType] ?? NO_FACTS;
}
