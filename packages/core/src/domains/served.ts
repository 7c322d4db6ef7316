import { and, eq, inArray, isNotNull, or, type Placeholder, type SQL } from "drizzle-orm";
import { domains, type Db } from "@shortener/db";
import type { FieldErrors } from "../errors.ts";
import { hostOf } from "../urls/url.ts";
import { addError } from "../validation/fields.ts";
import { hostCandidates } from "./find-domain-by-host.ts";

const LOOP_MESSAGE = "The URL must not point to a domain served by this service.";

/**
 * The domains that count for the loop rule of a user's URLs (CONTRACT §4, §14): every verified domain
 * (those serve), and the user's own even while unverified (they will serve once proven, and blocking
 * them blocks no one else). Another user's unverified claim never counts.
 */
export function countsAsServed(workspaceId: number | Placeholder): SQL | undefined {
  return or(isNotNull(domains.verifiedAt), eq(domains.workspaceId, workspaceId));
}

/**
 * The loop check of CONTRACT §4: adds an error for every field whose URL points at a domain this
 * service serves (any user's verified domain, or one of the caller's), since a visit there would come
 * straight back. One query for all fields. `extraNames`: names that count too (a domain being created).
 */
export async function checkNoLoops(db: Db, urls: Array<{ field: string; url: string }>, errors: FieldErrors, options: { workspaceId: number; extraNames?: string[] }): Promise<void> {
  if (!urls.length) return;
  const all = [...new Set(urls.flatMap(({ url }) => hostCandidates(new URL(url).host)))];
  const served = new Set(options.extraNames ?? []);
  if (all.length) {
    const rows = await db
      .select({ name: domains.name })
      .from(domains)
      .where(and(inArray(domains.name, all), countsAsServed(options.workspaceId)));
    for (const row of rows) served.add(row.name);
  }
  addLoopErrors(urls, served, errors);
}

/** The loop check against domain names already loaded (the importer loads them once per job). */
export function addLoopErrors(urls: Array<{ field: string; url: string }>, served: ReadonlySet<string>, errors: FieldErrors): void {
  for (const { field, url } of urls) {
    if (hostCandidates(hostOf(url)).some((c) => served.has(c))) addError(errors, field, LOOP_MESSAGE);
  }
}
