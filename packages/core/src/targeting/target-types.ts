import type { TargetEntry } from "@shortener/db";
import { TARGET_TYPES } from "@shortener/vocabulary";

/*
 * Targeting (CONTRACT §4 `target_type`): the words (the types, the group of entries each one reads) are
 * @shortener/vocabulary's, shared with the dashboard; which facts about a visitor each type needs is here.
 * Code says `TARGET_TYPES.country`, never `1`.
 */

export { GROUP_OF_TYPE, TARGET_GROUPS, TARGET_TYPE_VALUES, TARGET_TYPES, type TargetGroup, type TargetType } from "@shortener/vocabulary";

/** A link's targeting as stored: its type and one entry list per group (null when it has none). */
export type LinkTargets = {
  targetType: number;
  countryTarget: TargetEntry[] | null;
  platformTarget: TargetEntry[] | null;
  languageTarget: TargetEntry[] | null;
  rotationTarget: TargetEntry[] | null;
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
