import { z } from "zod";

/*
 * App links (CONTRACT §25, docs/link-features.md): the two files with which a domain tells iOS and
 * Android that an app opens its links, served by the visitor side at
 * `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
 */

/** The largest file, in UTF-8 bytes (64 KiB; Apple's own limit is 128 KB uncompressed). */
export const MAX_APP_LINK_BYTES = 64 * 1024;

/** The API's fields, each with the top-level JSON value its file must be. */
export const APP_LINK_FIELDS = { apple_app_site_association: "object", asset_links: "array" } as const;
export type AppLinkField = keyof typeof APP_LINK_FIELDS;

/** The paths the visitor side serves them at, and which field each one is. */
export const APP_LINK_PATHS: Readonly<Record<string, "appleAppSiteAssociation" | "assetLinks">> = {
  "/.well-known/apple-app-site-association": "appleAppSiteAssociation",
  "/.well-known/assetlinks.json": "assetLinks",
};

const encoder = new TextEncoder();

/**
 * One file as the API takes it: JSON text that parses, whose top-level value is the file's (an object
 * for Apple's, an array for Android's), at most 64 KiB in UTF-8. Stored and served byte for byte as sent.
 */
function appLinkField(field: AppLinkField) {
  const shape = APP_LINK_FIELDS[field];
  return z.string({ error: `The ${field} must be JSON text (a string).` }).superRefine((text, ctx) => {
    // A UTF-16 unit is at least one UTF-8 byte: a longer string is too large without encoding it.
    if (text.length > MAX_APP_LINK_BYTES || encoder.encode(text).length > MAX_APP_LINK_BYTES) {
      ctx.addIssue({ code: "custom", message: `The ${field} must not be greater than 64 KiB (${MAX_APP_LINK_BYTES} bytes).` });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: `The ${field} must be valid JSON.` });
      return;
    }
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    if (shape === "object" && !isObject) ctx.addIssue({ code: "custom", message: `The ${field} must be a JSON object.` });
    if (shape === "array" && !Array.isArray(value)) ctx.addIssue({ code: "custom", message: `The ${field} must be a JSON array.` });
  });
}

export const appleAppSiteAssociationField = appLinkField("apple_app_site_association");
export const assetLinksField = appLinkField("asset_links");

/** A domain's two files as the visitor side keeps them: null when not set. */
export type AppLinks = { appleAppSiteAssociation: string | null; assetLinks: string | null };
