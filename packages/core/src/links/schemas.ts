import { z } from "zod";
import { LINK_HEALTH } from "@shortener/vocabulary";
import { COUNTRY_CODES, LANGUAGE_CODES, PLATFORMS } from "../targeting/codes.ts";
import { TARGET_TYPE_VALUES } from "../targeting/target-types.ts";
import { PageParams } from "../lists/pagination.ts";
import { urlField } from "../urls/url.ts";
import { defaulted, idField, intEnumField, intField, onCreate, onUpdate, refused, stringEnumField, textField } from "../validation/fields.ts";
import { ALIAS_CHARACTERS, isReservedAlias, MAX_ALIAS_LENGTH } from "./alias.ts";
import { ogDescriptionField, ogImageField, ogTitleField } from "./open-graph.ts";
import { tagFilter, tagList } from "./tags.ts";
import { UTM_FIELDS, utmValue, type UtmField } from "./utm.ts";

export const MAX_TARGETS = 100;

const alias = z
  .string({ error: "The alias must be a string." })
  .min(1, { error: "The alias field is required." })
  .max(MAX_ALIAS_LENGTH, { error: `The alias must not be greater than ${MAX_ALIAS_LENGTH} characters.` })
  .regex(ALIAS_CHARACTERS, { error: "The alias may only contain letters, numbers, dashes and underscores." })
  .refine((value) => !isReservedAlias(value), { error: "The alias is reserved by the service." });

const secret = (label: string) => textField(label, 1, 128);

/** `YYYY-MM-DD`, a real calendar date. */
const date = z.string({ error: "The expiration date must be a date in the format YYYY-MM-DD." }).refine(
  (value) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
    const d = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
  },
  { error: "The expiration date must be a date in the format YYYY-MM-DD." },
);

const time = z.string({ error: "The expiration time must be a time in the format HH:MM." }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: "The expiration time must be a time in the format HH:MM." });

/**
 * Unique pixel ids. Forms send `pixel_ids[]=1&pixel_ids[]=2`, `pixel_ids[0]=1` or `pixel_ids=1,2`: their
 * adapters make that an array of numbers first (`coerceFormValues`). Copies of one id count once against
 * the limit, as in bulk requests.
 */
const pixelIds = z
  .array(idField("pixel id"), { error: "The pixel ids must be a list of ids." })
  .refine((ids) => new Set(ids).size <= MAX_TARGETS, { error: `The pixel ids may not have more than ${MAX_TARGETS} items.` })
  .transform((ids) => [...new Set(ids)]);

function group<E extends z.ZodType<{ key?: string; value: string }>>(entry: E, label: string) {
  return z
    .array(entry, { error: `The ${label} targets must be a list of entries.` })
    .max(MAX_TARGETS, { error: `The ${label} targets may not have more than ${MAX_TARGETS} entries.` })
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((e, i) => {
        if (e.key === undefined) return;
        if (seen.has(e.key)) ctx.addIssue({ code: "custom", path: [i, "key"], message: `The ${label} ${e.key} is targeted twice.` });
        seen.add(e.key);
      });
    });
}

const keyed = (key: z.ZodType<string, string>, label: string) =>
  z.object({ key, value: urlField(`${label} target URL`), weight: refused("The weight is taken by rotation entries only.") }, { error: `Each ${label} target needs a key and a value.` });

const countryKey = z
  .string({ error: "The country must be a country code." })
  .transform((s) => s.trim().toUpperCase())
  .refine((s) => COUNTRY_CODES.has(s), { error: "The country must be an ISO 3166-1 alpha-2 code." });
const languageKey = z
  .string({ error: "The language must be a language code." })
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => LANGUAGE_CODES.has(s), { error: "The language must be an ISO 639-1 code." });
const platformKey = z.string({ error: "The platform must be a string." }).transform((s, ctx) => {
  const found = PLATFORMS.find((p) => p.toLowerCase() === s.trim().toLowerCase());
  if (!found) {
    ctx.addIssue({ code: "custom", message: `The platform must be one of ${PLATFORMS.join(", ")}.` });
    return z.NEVER;
  }
  return found;
});

export const countryTargets = group(keyed(countryKey, "country"), "country");
export const platformTargets = group(keyed(platformKey, "platform"), "platform");
export const languageTargets = group(keyed(languageKey, "language"), "language");
/** The weight of a rotation entry (CONTRACT §25): its share of visitors, relative to the others'. */
export const MIN_WEIGHT = 1;
export const MAX_WEIGHT = 100;

/**
 * Rotation entries: a URL each, and optionally a `weight` 1–100. Either every entry has a weight
 * (weighted A/B: each visitor keeps one entry for the day) or none (round-robin, CONTRACT §7).
 */
export const rotationTargets = group(
  z.object({ value: urlField("rotation target URL"), weight: intField("weight", { min: MIN_WEIGHT, max: MAX_WEIGHT }).optional() }, { error: "Each rotation entry needs a value." }),
  "rotation",
).superRefine((entries, ctx) => {
  const weighted = entries.filter((e) => e.weight !== undefined).length;
  if (weighted && weighted < entries.length) ctx.addIssue({ code: "custom", message: "The rotation entries must all have a weight, or none." });
});

/** Fields that mean the same on create and update. */
const common = {
  disabled: intEnumField("disabled", [0, 1] as const),
  privacy: intEnumField("privacy", [0, 1, 2] as const),
  expiration_clicks: intField("expiration clicks", { min: 0, max: 999_999_999 }),
  target_type: intEnumField("target type", TARGET_TYPE_VALUES),
};

export const CreateLinkShape = {
  url: urlField("url"),
  domain_id: idField("domain id", { isRequired: true }),
  alias: onCreate(alias),
  title: onCreate(textField("title", 1, 255)),
  password: onCreate(secret("password")),
  space_id: onCreate(idField("space id")),
  pixel_ids: onCreate(pixelIds),
  disabled: defaulted(common.disabled, 0),
  privacy: defaulted(common.privacy, 0),
  privacy_password: onCreate(secret("privacy password")),
  expiration_url: onCreate(urlField("expiration url")),
  expiration_date: onCreate(date),
  expiration_time: onCreate(time),
  expiration_clicks: defaulted(common.expiration_clicks, 0),
  target_type: defaulted(common.target_type, 0),
  country: onCreate(countryTargets),
  platform: onCreate(platformTargets),
  language: onCreate(languageTargets),
  rotation: onCreate(rotationTargets),
  tags: onCreate(tagList),
  utm_source: onCreate(utmValue("utm_source")),
  utm_medium: onCreate(utmValue("utm_medium")),
  utm_campaign: onCreate(utmValue("utm_campaign")),
  utm_term: onCreate(utmValue("utm_term")),
  utm_content: onCreate(utmValue("utm_content")),
  og_title: onCreate(ogTitleField),
  og_description: onCreate(ogDescriptionField),
  og_image: onCreate(ogImageField),
};
export const CreateLinkInput = z.object(CreateLinkShape);
export type CreateLinkInput = z.input<typeof CreateLinkInput>;

/** On update every field is optional, only sent fields change, and an empty value clears a field. */
export const UpdateLinkShape = {
  url: urlField("url").optional(),
  domain_id: refused("The domain id cannot be changed."),
  alias: onCreate(alias),
  title: onUpdate(textField("title", 1, 255)),
  password: onUpdate(secret("password")),
  space_id: onUpdate(idField("space id")),
  pixel_ids: onUpdate(pixelIds),
  disabled: onCreate(common.disabled),
  privacy: onCreate(common.privacy),
  privacy_password: onUpdate(secret("privacy password")),
  expiration_url: onUpdate(urlField("expiration url")),
  expiration_date: onUpdate(date),
  expiration_time: onUpdate(time),
  /** An empty value (null) clears the limit: 0. */
  expiration_clicks: common.expiration_clicks
    .nullable()
    .optional()
    .transform((v) => (v === null ? 0 : v)),
  target_type: onCreate(common.target_type),
  country: onUpdate(countryTargets),
  platform: onUpdate(platformTargets),
  language: onUpdate(languageTargets),
  rotation: onUpdate(rotationTargets),
  tags: onUpdate(tagList),
  /** An empty value removes that parameter from the url. */
  utm_source: onUpdate(utmValue("utm_source")),
  utm_medium: onUpdate(utmValue("utm_medium")),
  utm_campaign: onUpdate(utmValue("utm_campaign")),
  utm_term: onUpdate(utmValue("utm_term")),
  utm_content: onUpdate(utmValue("utm_content")),
  /** An empty value removes the field from the link's preview. */
  og_title: onUpdate(ogTitleField),
  og_description: onUpdate(ogDescriptionField),
  og_image: onUpdate(ogImageField),
};
export const UpdateLinkInput = z.object(UpdateLinkShape);
export type UpdateLinkInput = z.input<typeof UpdateLinkInput>;

/** The most links one bulk request changes or deletes (CONTRACT §17). */
export const MAX_BULK_IDS = 100;

/**
 * The ids of a bulk change: 1–100 of them (forms send `ids=1,2,3`, `ids[]=1` or `ids[0]=1`; their
 * adapters make that an array of numbers first). Duplicates are merged, keeping the first occurrence's
 * order (docs/api.md). Every failure is reported on `ids` itself (the verbs fold `ids.N` into `ids`).
 */
const NOT_IDS = "The ids must be positive integers.";
export const bulkIds = z
  .array(z.number({ error: NOT_IDS }), { error: (issue) => (issue.input === undefined || issue.input === null ? "The ids field is required." : "The ids must be a list of ids.") })
  .min(1, { error: "The ids field is required." })
  // Checked on the list, not per element, so that tRPC's errors name `ids` as REST's do (not `ids.3`).
  .refine((ids) => ids.every((id) => Number.isInteger(id) && id >= 1 && id <= 2_147_483_647), { error: NOT_IDS })
  .transform((ids) => [...new Set(ids)])
  // Counted after merging: 101 copies of one id are one link (the request's size is bounded by the body and URL limits).
  .pipe(z.array(z.number()).max(MAX_BULK_IDS, { error: `The ids may not have more than ${MAX_BULK_IDS} items.` }));

export const BulkDeleteLinksShape = { ids: bulkIds };
export const BulkDeleteLinksInput = z.object(BulkDeleteLinksShape);
export type BulkDeleteLinksInput = z.input<typeof BulkDeleteLinksInput>;

/** `ids` and the very fields (and rules) of a single link's update. */
export const BulkUpdateLinksShape = {
  ids: bulkIds,
  ...UpdateLinkShape,
  // Each link's url has its own query: UTM fields are merged one link at a time (docs/link-features.md).
  ...(Object.fromEntries(UTM_FIELDS.map((f) => [f, refused("UTM fields are set one link at a time, not in a bulk update.")])) as Record<UtmField, ReturnType<typeof refused>>),
};
export const BulkUpdateLinksInput = z.object(BulkUpdateLinksShape);
export type BulkUpdateLinksInput = z.input<typeof BulkUpdateLinksInput>;

export const LINK_SORTS = ["id", "clicks", "title", "alias", "url"] as const;

export const ListLinksInput = z.object({
  ...PageParams,
  search: onCreate(z.string({ error: "The search must be a string." }).max(255, { error: "The search must not be greater than 255 characters." })),
  search_by: defaulted(stringEnumField("search by", ["title", "alias", "url"]), "title"),
  status: defaulted(intEnumField("status", [0, 1, 2, 3] as const), 0),
  space_id: onCreate(idField("space id")),
  domain_id: onCreate(idField("domain id")),
  pixel_id: onCreate(idField("pixel id")),
  tag: onCreate(tagFilter),
  /** The destination's health (CONTRACT §25): `health=broken` lists the links the worker found broken. */
  health: onCreate(stringEnumField("health", LINK_HEALTH)),
  sort_by: defaulted(stringEnumField("sort by", LINK_SORTS), "id"),
});
export type ListLinksInput = z.input<typeof ListLinksInput>;

/** Rows a page of an export (`exportLinksPage`); the streamed export reads pages of this size. */
export const EXPORT_PAGE_MAX = 1000;

/** What an export may add on request (`include`): `secrets`, the stored password hashes. */
export const EXPORT_INCLUDES = ["secrets"] as const;

/**
 * CONTRACT §17: the export takes every filter of §5 (with the list's values and errors). Its rows come
 * in id order, `sort` asc (the default: the order they were created in) or desc; `cursor` starts after
 * (desc: before) that id, so an interrupted export can be resumed from the last id it received.
 * `include=secrets` fills the two password-hash columns; without it they are empty. Who may ask for
 * them (a key that could set them, `links:write`) is the adapter's check: core knows no keys.
 */
export const ExportLinksInput = ListLinksInput.pick({ search: true, search_by: true, status: true, space_id: true, domain_id: true, pixel_id: true, tag: true, health: true }).extend({
  sort: defaulted(stringEnumField("sort", ["asc", "desc"]), "asc"),
  cursor: onCreate(idField("cursor")),
  include: onCreate(stringEnumField("include", EXPORT_INCLUDES)),
});
export type ExportLinksInput = z.input<typeof ExportLinksInput>;

/** One page of an export (tRPC `links.export`): `limit` rows at most, and the cursor of the next page. */
export const ExportLinksPageInput = ExportLinksInput.extend({
  limit: defaulted(intField("limit", { min: 1, max: EXPORT_PAGE_MAX }), EXPORT_PAGE_MAX),
});
export type ExportLinksPageInput = z.input<typeof ExportLinksPageInput>;
