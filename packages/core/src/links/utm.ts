import { z } from "zod";
import type { FieldErrors } from "../errors.ts";
import { checkUrl } from "../urls/url.ts";
import { addError } from "../validation/fields.ts";

/** The UTM fields a link takes on create and update (CONTRACT §25), in the order they are appended to a query. */
export const UTM_FIELDS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type UtmField = (typeof UTM_FIELDS)[number];

/** The longest UTM value. */
export const MAX_UTM_LENGTH = 255;

/** Control characters (CR, LF, NUL, …): never in a UTM value (CONTRACT §15). */
const CONTROL = /\p{Cc}/u;

/** One UTM value: 1–255 characters, no control characters. Spaces and any other text are kept (percent-encoded in the URL). */
export function utmValue(field: UtmField) {
  return z
    .string({ error: `The ${field} must be a string.` })
    .min(1, { error: `The ${field} field is required.` })
    .max(MAX_UTM_LENGTH, { error: `The ${field} must not be greater than ${MAX_UTM_LENGTH} characters.` })
    .refine((value) => !CONTROL.test(value), { error: `The ${field} must not contain control characters.` });
}

/** The UTM values sent: a value sets its parameter, `null` (an empty value on update) removes it, absent leaves it. */
export type UtmValues = Partial<Record<UtmField, string | null | undefined>>;

/** True when any UTM field was sent (set or cleared). */
export function hasUtm(v: UtmValues): boolean {
  return UTM_FIELDS.some((f) => v[f] !== undefined);
}

/** `+` and `%20` alike, then percent-decoding that never throws: a query name as a browser reads it. */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return raw;
  }
}

/**
 * `url` with the sent UTM parameters merged into its query: a set value replaces the first parameter of
 * that name where it stands (its copies are removed) or is appended; a cleared one is removed. Every
 * other parameter is kept byte for byte, in order, and so is the fragment. The result obeys the `url`
 * rules again (CONTRACT §4, the 2048-character limit included): a failure is reported on `url`, and
 * `url` comes back unchanged.
 */
export function mergeUtm(url: string, v: UtmValues, errors: FieldErrors): string {
  if (!hasUtm(v)) return url;
  const hashAt = url.indexOf("#");
  const fragment = hashAt === -1 ? "" : url.slice(hashAt);
  const beforeFragment = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeFragment.indexOf("?");
  const base = queryAt === -1 ? beforeFragment : beforeFragment.slice(0, queryAt);
  const pairs = queryAt === -1 || queryAt === beforeFragment.length - 1 ? [] : beforeFragment.slice(queryAt + 1).split("&");
  const placed = new Set<UtmField>();
  const out: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const name = decodedName(eq === -1 ? pair : pair.slice(0, eq)) as UtmField;
    const sent = UTM_FIELDS.includes(name) ? v[name] : undefined;
    if (sent === undefined) out.push(pair);
    else if (sent !== null && !placed.has(name)) {
      out.push(`${name}=${encodeURIComponent(sent)}`);
      placed.add(name);
    }
  }
  for (const field of UTM_FIELDS) {
    const sent = v[field];
    if (typeof sent === "string" && !placed.has(field)) out.push(`${field}=${encodeURIComponent(sent)}`);
  }
  const merged = `${base}${out.length ? `?${out.join("&")}` : ""}${fragment}`;
  const checked = checkUrl(merged, "url");
  if (!checked.ok) {
    addError(errors, "url", checked.message.replace("The url", "The url with its UTM parameters"));
    return url;
  }
  return checked.url;
}

/** The UTM parameters a link's url carries (the first of each name), null when absent: what the link's JSON reports. */
export function utmOf(url: string): Record<UtmField, string | null> {
  const found: Record<UtmField, string | null> = { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null };
  if (!url.includes("utm_")) return found;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return found;
  }
  for (const field of UTM_FIELDS) found[field] = params.get(field);
  return found;
}
