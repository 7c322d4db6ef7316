import { z } from "zod";
import { urlField } from "../urls/url.ts";
import { UNDISPLAYABLE } from "../validation/display-name.ts";

/*
 * Open Graph previews (CONTRACT §25, docs/link-features.md): what link-preview bots (Slackbot,
 * Twitterbot, facebookexternalhit…) are shown for a link instead of its redirect.
 */

/** The Open Graph fields of a link, in the order the API lists them. */
export const OG_FIELDS = ["og_title", "og_description", "og_image"] as const;
export type OgField = (typeof OG_FIELDS)[number];

/** The longest title (what the platforms show is shorter still: ~70–100 characters). */
export const MAX_OG_TITLE_LENGTH = 255;
/** The longest description (the platforms cut at ~200–300 characters; 1,000 leaves room). */
export const MAX_OG_DESCRIPTION_LENGTH = 1000;

/**
 * What a description may not hold: a displayed name's refused characters (CONTRACT §15) but the line
 * feed, carriage return and tab, which a paragraph may carry.
 */
const DESCRIPTION_REFUSED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

function ogText(field: OgField, max: number, refused: RegExp, what: string) {
  return z
    .string({ error: `The ${field} must be a string.` })
    .min(1, { error: `The ${field} field is required.` })
    .max(max, { error: `The ${field} must not be greater than ${max} characters.` })
    .refine((value) => value.trim() !== "", { error: `The ${field} must not be blank.` })
    .refine((value) => !refused.test(value), { error: `The ${field} must not contain ${what}.` });
}

/** `og_title`: 1–255 characters, no control or bidirectional override characters (one line, like a displayed name). */
export const ogTitleField = ogText("og_title", MAX_OG_TITLE_LENGTH, UNDISPLAYABLE, "control characters or bidirectional override characters");

/** `og_description`: 1–1,000 characters; line breaks and tabs are fine, other control characters and bidirectional overrides are not. */
export const ogDescriptionField = ogText("og_description", MAX_OG_DESCRIPTION_LENGTH, DESCRIPTION_REFUSED, "control characters (other than line breaks and tabs) or bidirectional override characters");

/** `og_image`: an absolute http(s) URL, the `url` rules of CONTRACT §4 but the loop check (an image is fetched, never redirected to). */
export const ogImageField = urlField("og_image");

/** A link's preview as the visitor side keeps it: null when none of the fields is set. */
export type OpenGraph = { title: string | null; description: string | null; image: string | null };

export function openGraphOf(fields: { ogTitle: string | null; ogDescription: string | null; ogImage: string | null }): OpenGraph | null {
  const { ogTitle: title, ogDescription: description, ogImage: image } = fields;
  return title === null && description === null && image === null ? null : { title, description, image };
}
