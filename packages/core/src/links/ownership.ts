import type { FieldErrors } from "../errors.ts";
import { addError } from "../validation/fields.ts";

/** The domain, space and pixels a link would hold (absent or null: none sent). */
export type OwnedRefs = { domainId?: number | undefined; spaceId?: number | null | undefined; pixelIds?: readonly number[] | null | undefined };

/**
 * Which of them the caller owns, as a loader found them: the create and update path's query
 * (`checkReferences`, the ids it found among the sent ones) or an import's preloaded scope
 * (`ownedInScope`, every id the user owns).
 */
export type Owned = { domainIds: { has(id: number): boolean }; spaceIds: { has(id: number): boolean }; pixelIds: { has(id: number): boolean } };

/**
 * The one ownership rule of a link's references (CONTRACT §4, §12): a domain, space or pixel that is not
 * the caller's is a field error, with the same words wherever a link is made.
 */
export function checkOwnership(refs: OwnedRefs, owned: Owned, errors: FieldErrors): void {
  if (refs.domainId !== undefined && !owned.domainIds.has(refs.domainId)) addError(errors, "domain_id", "The selected domain id is invalid.");
  if (refs.spaceId && !owned.spaceIds.has(refs.spaceId)) addError(errors, "space_id", "The selected space id is invalid.");
  if (refs.pixelIds?.some((id) => !owned.pixelIds.has(id))) addError(errors, "pixel_ids", "The selected pixel ids are invalid.");
}
