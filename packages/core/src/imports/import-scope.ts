import { eq } from "drizzle-orm";
import { countsAsServed } from "../domains/served.ts";
import { domains, pixels, spaces, type Db } from "@shortener/db";
import type { Owned } from "../links/ownership.ts";

/**
 * What the row checks of one job need from the database, loaded once per job instead of per row:
 * the user's domains (by id and by name), spaces and pixels, and every name that counts as served for
 * the loop check (every verified domain, and the user's own).
 */
export type ImportScope = {
  jobId: number;
  workspaceId: number;
  defaultDomainId: number | null;
  domainNames: ReadonlyMap<number, string>;
  domainIds: ReadonlyMap<string, number>;
  spaceIds: ReadonlySet<number>;
  pixelIds: ReadonlySet<number>;
  servedNames: ReadonlySet<string>;
};

export async function loadImportScope(db: Db, job: { jobId: number; workspaceId: number; defaultDomainId: number | null }): Promise<ImportScope> {
  const [own, served, ownSpaces, ownPixels] = await Promise.all([
    db.select({ id: domains.id, name: domains.name }).from(domains).where(eq(domains.workspaceId, job.workspaceId)),
    db.select({ name: domains.name }).from(domains).where(countsAsServed(job.workspaceId)),
    db.select({ id: spaces.id }).from(spaces).where(eq(spaces.workspaceId, job.workspaceId)),
    db.select({ id: pixels.id }).from(pixels).where(eq(pixels.workspaceId, job.workspaceId)),
  ]);
  return {
    ...job,
    domainNames: new Map(own.map((d) => [d.id, d.name])),
    domainIds: new Map(own.map((d) => [d.name, d.id])),
    spaceIds: new Set(ownSpaces.map((s) => s.id)),
    pixelIds: new Set(ownPixels.map((p) => p.id)),
    servedNames: new Set(served.map((d) => d.name)),
  };
}

/** The scope as the ownership rule's loader (`checkOwnership`): what the user owns, preloaded. */
export function ownedInScope(scope: ImportScope): Owned {
  return { domainIds: scope.domainNames, spaceIds: scope.spaceIds, pixelIds: scope.pixelIds };
}
