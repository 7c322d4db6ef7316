import { inArray } from "drizzle-orm";
import { domains, type Db } from "@shortener/db";
import type { FieldErrors } from "../errors.ts";
import { hostOf } from "../shared/url.ts";
import { addError } from "../shared/validation.ts";
import { hostCandidates } from "./find-domain-by-host.ts";

const LOOP_MESSAGE = "The URL must not point to a domain served by this service.";

/**
 * The loop check of CONTRACT §4: adds an error for every field whose URL points at a domain this
 * service serves (any user's), since a visit there would come straight back. One query for all fields.
 */
export async function checkNoLoops(db: Db, urls: Array<{ field: string; url: string }>, errors: FieldErrors, extraNames: string[] = []): Promise<void> {
  if (!urls.length) return;
  const all = [...new Set(urls.flatMap(({ url }) => hostCandidates(new URL(url).host)))];
  const served = new Set(extraNames);
  if (all.length) {
    const rows = await db.select({ name: domains.name }).from(domains).where(inArray(domains.name, all));
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
