import { readFileSync } from "node:fs";
import type { ImportFormat } from "../imports/formats/names.ts";

/**
 * One export file of another service, written by hand from the columns that service documents (see
 * the source named in each format's translator), with the same eight links in each: two kept on their
 * aliases (the first on `own`, a domain of the importer's, the second on the service's own domain, so
 * it goes to the default domain), hostile values in every field (a `javascript:` destination, an alias
 * with a dot, U+0000, a formula, quotes and a line break, an alias used twice, dates and counts that are
 * no dates or counts). `{{own}}` in the file becomes `own`, `{{NUL}}` U+0000.
 */
export function exportFile(format: Exclude<ImportFormat, "csv">, own: string): string {
  const text = readFileSync(new URL(`./export-files/${format}.csv`, import.meta.url), "utf8");
  return text.replaceAll("{{own}}", own).replaceAll("{{NUL}}", "\u0000");
}

/**
 * What importing any `exportFile` gives: the links created (alias → destination), and the row errors by
 * line (the header is line 1; the sixth link's value spans two lines). `keep1` lands on `own` where the
 * file names its domain, else (YOURLS, Kutt: no domain in the file) on the default domain. The eighth
 * link (line 10) has a creation date that is no date ("yesterday") and, where the file has clicks, a
 * count below zero (-5): the import's migration columns refuse it on each (`errorsOf`).
 */
export const EXPORT_FILE_OUTCOME = {
  created: { keep1: "https://dest.example/1", keep2: "https://dest.example/2", keep6: "https://dest.example/6" },
  errors: [
    { line: 4, field: "url" },
    { line: 5, field: "alias" },
    { line: 6, field: "title" },
    { line: 9, field: "alias" },
    { line: 10, field: "created_at" },
  ],
  /** Formats whose file has a click count (the eighth link's is -5: a second error on line 10). */
  withClicks: ["dub", "kutt", "phpshort", "rebrandly", "shlink", "yourls"] as readonly string[],
  /** Formats whose file names no domain. */
  withoutDomain: ["yourls", "kutt"] as readonly string[],
  /** The field the U+0000 of line 6 is in, where it is not the title. */
  nulField: { dub: "url" } as Readonly<Record<string, string>>,
};

/** The row errors (line, field) importing `exportFile(format)` gives, sorted by line then field. */
export function exportFileErrors(format: Exclude<ImportFormat, "csv">): Array<{ line: number; field: string }> {
  const errors = EXPORT_FILE_OUTCOME.errors.map((e) => (e.line === 6 ? { ...e, field: EXPORT_FILE_OUTCOME.nulField[format] ?? e.field } : e));
  if (EXPORT_FILE_OUTCOME.withClicks.includes(format)) errors.push({ line: 10, field: "clicks" });
  return sortErrors(errors);
}

/** Row errors in a stable order (line, then field), to compare. */
export function sortErrors<E extends { line: number; field: string | null }>(errors: readonly E[]): E[] {
  return [...errors].sort((a, b) => a.line - b.line || String(a.field).localeCompare(String(b.field)));
}
