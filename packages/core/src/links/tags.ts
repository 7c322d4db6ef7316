import { z } from "zod";
import { commaList } from "../validation/coerce-form-values.ts";
import { UNDISPLAYABLE } from "../validation/display-name.ts";

/** The most tags one link carries, and the longest tag (CONTRACT §25). */
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 32;

/**
 * Characters a tag may not hold: what a displayed name refuses (control and bidirectional override
 * characters, CONTRACT §15), the comma that separates a form's list (`tags=a,b`) and the semicolon that
 * separates an import cell's (`a;b`).
 */
const REFUSED = new RegExp(`${UNDISPLAYABLE.source}|[,;]`, "u");

/** A tag's key: what the `tag` filter and the counts compare. Lower-cased without a locale, so every process agrees. */
export function tagKey(tag: string): string {
  return tag.toLowerCase();
}

/**
 * A link's tags as sent: each one trimmed, 1–32 characters, none of the refused characters; copies that
 * differ only in case count once (the first is kept, in the order sent), and at most 20 remain. Every
 * failure is reported on `tags` itself, once per rule, naming the offending tag when it displays safely.
 */
export const tagList = commaList(z.array(z.string({ error: "The tags must be strings." }), { error: "The tags must be a list of names." })).transform((sent, ctx) => {
  const tags: string[] = [];
  const seen = new Set<string>();
  const problems = new Set<string>();
  for (const raw of sent) {
    const tag = raw.trim();
    if (tag === "") problems.add("The tags must not include an empty tag.");
    else if (REFUSED.test(tag)) problems.add("The tags must not contain commas, semicolons, control characters or bidirectional override characters.");
    else if ([...tag].length > MAX_TAG_LENGTH) problems.add(`The tags must each be at most ${MAX_TAG_LENGTH} characters.`);
    else if (!seen.has(tagKey(tag))) {
      seen.add(tagKey(tag));
      tags.push(tag);
    }
  }
  if (tags.length > MAX_TAGS) problems.add(`The tags may not have more than ${MAX_TAGS} items.`);
  for (const message of problems) ctx.addIssue({ code: "custom", message });
  return problems.size ? z.NEVER : tags;
});

/**
 * The `tag` list filter (any of several): names as `tag=a`, `tag[]=a&tag[]=b` or `tag=a,b`, matched
 * without regard to case. At most 20 names, each like a tag.
 */
export const tagFilter = commaList(z.array(z.string({ error: "The tag filter must be a list of names." }), { error: "The tag must be a list of names." })).transform((sent, ctx) => {
  const keys = [...new Set(sent.map((t) => tagKey(t.trim())))];
  if (keys.some((k) => k === "" || REFUSED.test(k) || [...k].length > MAX_TAG_LENGTH))
    ctx.addIssue({ code: "custom", message: `The tag filter takes names of 1 to ${MAX_TAG_LENGTH} characters, without commas, semicolons or control characters.` });
  if (keys.length > MAX_TAGS) ctx.addIssue({ code: "custom", message: `The tag filter may not name more than ${MAX_TAGS} tags.` });
  return keys;
});
