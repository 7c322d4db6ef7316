import type { z } from "zod";
import type { FieldErrors } from "../errors.ts";
import type { LinkTargets } from "../targeting/target-types.ts";
import type { CreateLinkShape } from "./schemas.ts";
import { mergeUtm } from "./utm.ts";
import { checkDraft, resolveEndsAt } from "./validate-link.ts";

/** The fields of `CreateLinkShape` that parsed (`parseFields`, or `createFieldsParser` for import rows). */
export type CreateLinkValues = { [K in keyof typeof CreateLinkShape]?: z.output<(typeof CreateLinkShape)[K]> };

/** A new link's values, defaults filled in, its passwords still in clear: what a create or an import row writes. */
export type NewLink = LinkTargets & {
  domainId: number;
  /** Null: the write picks a random one (`randomAlias`). */
  alias: string | null;
  url: string;
  title: string | null;
  password: string | null;
  privacyPassword: string | null;
  spaceId: number | null;
  pixelIds: number[];
  /** As sent (trimmed, copies merged); the write may respell them as the workspace already does (`respellTags`). */
  tags: string[];
  /** The Open Graph preview (CONTRACT §25); null: not set. */
  ogTitle: string | null;
  ogDescription: string | null;
  ogImage: string | null;
  disabled: boolean;
  privacy: number;
  expirationUrl: string | null;
  expirationClicks: number;
  endsAt: Date | null;
};

/**
 * The one draft builder of a new link, for the API's create and the import alike: the rules that need
 * no database (the expiration moment, the cross-field rules of CONTRACT §4) add their failures to
 * `errors`, and the link's values come back with every default filled in. The values mean something
 * only while `errors` stays empty; the checks against the database are the caller's.
 */
export function draftNewLink(v: CreateLinkValues, now: Date, errors: FieldErrors, stored: { hasPrivacyPasswordHash?: boolean } = {}): NewLink {
  const endsAt = resolveEndsAt(v, null, now, errors);
  const targetType = v.target_type ?? 0;
  const privacy = v.privacy ?? 0;
  checkDraft(
    {
      targetType,
      groups: { country: v.country ?? null, platform: v.platform ?? null, language: v.language ?? null, rotation: v.rotation ?? null },
      privacy,
      // An import row may carry the privacy password's stored hash instead (an export's round trip).
      hasPrivacyPassword: v.privacy_password !== undefined || stored.hasPrivacyPasswordHash === true,
    },
    errors,
  );
  return {
    domainId: v.domain_id as number,
    alias: v.alias ?? null,
    // The UTM fields merged into the url's query (CONTRACT §25): the merged url obeys the url rules again.
    url: v.url === undefined ? (v.url as unknown as string) : mergeUtm(v.url, v, errors),
    title: v.title ?? null,
    password: v.password ?? null,
    privacyPassword: v.privacy_password ?? null,
    spaceId: v.space_id ?? null,
    pixelIds: v.pixel_ids ?? [],
    tags: v.tags ?? [],
    ogTitle: v.og_title ?? null,
    ogDescription: v.og_description ?? null,
    ogImage: v.og_image ?? null,
    disabled: v.disabled === 1,
    privacy,
    expirationUrl: v.expiration_url ?? null,
    expirationClicks: v.expiration_clicks ?? 0,
    endsAt: endsAt ?? null,
    targetType,
    countryTarget: v.country?.length ? v.country : null,
    platformTarget: v.platform?.length ? v.platform : null,
    languageTarget: v.language?.length ? v.language : null,
    rotationTarget: v.rotation?.length ? v.rotation : null,
  };
}
