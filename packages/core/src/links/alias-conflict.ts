import { RANDOM_ALIAS_ATTEMPTS } from "./alias.ts";

export const ALIAS_TAKEN = "The alias has already been taken.";
export const NO_FREE_RANDOM_ALIAS = "No free random alias was found; give the row an alias.";

/**
 * A new link whose (domain, alias) is already held, as the unique index or an import's dry run found it.
 * `holder` is what the import knows of the link holding it: an earlier row of the same file (its line),
 * another link (its URL), or null when it could not be found (it went away meanwhile). A create does not
 * look (`holder` absent): for it a chosen alias that is held is simply taken.
 */
export type AliasConflict = {
  /** The alias was chosen (false: a random one the write picked). */
  isChosen: boolean;
  /** The tries made so far for this link, the first being 0. */
  attempt: number;
  url: string;
  holder?: { line: number } | { url: string } | null;
};

export type AliasConflictOutcome = { kind: "retry" } | { kind: "skip" } | { kind: "error"; message: string };

const RETRY: AliasConflictOutcome = { kind: "retry" };
const SKIP: AliasConflictOutcome = { kind: "skip" };
const TAKEN: AliasConflictOutcome = { kind: "error", message: ALIAS_TAKEN };

/**
 * The one classifier of alias conflicts (createLink, writeImportBatch, checkImport's dry run): a random
 * alias is tried again with a new one, up to RANDOM_ALIAS_ATTEMPTS tries; a holder that went away, the
 * same; an alias an earlier row of the file holds is an error naming that line; one held by a link with
 * the same URL is skipped (the file, or this row, was imported before); any other is taken.
 */
export function classifyAliasConflict(c: AliasConflict): AliasConflictOutcome {
  const canRetry = c.attempt + 1 < RANDOM_ALIAS_ATTEMPTS;
  if (!c.isChosen) return canRetry ? RETRY : { kind: "error", message: NO_FREE_RANDOM_ALIAS };
  if (c.holder === undefined) return TAKEN;
  if (c.holder === null) return canRetry ? RETRY : TAKEN;
  if ("line" in c.holder) return { kind: "error", message: `The alias is already used on line ${c.holder.line} of this file.` };
  return c.holder.url === c.url ? SKIP : TAKEN;
}
