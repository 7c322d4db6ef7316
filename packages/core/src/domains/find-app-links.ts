import { and, eq, isNotNull } from "drizzle-orm";
import { domains } from "@shortener/db";
import type { SystemCtx } from "../context.ts";
import type { AppLinks } from "./app-links.ts";

const NONE: AppLinks = Object.freeze({ appleAppSiteAssociation: null, assetLinks: null });

/**
 * A served domain's app-link files (CONTRACT §25), for the visitor side: one read by primary key, made
 * only when one of the two `/.well-known/` paths is asked for (the domain lookup of every visit does not
 * carry them). A domain that is gone or unverified has none.
 */
export async function findAppLinks(ctx: SystemCtx, domainId: number): Promise<AppLinks> {
  const [row] = await ctx.db
    .select({ appleAppSiteAssociation: domains.appleAppSiteAssociation, assetLinks: domains.assetLinks })
    .from(domains)
    .where(and(eq(domains.id, domainId), isNotNull(domains.verifiedAt)));
  return row ?? NONE;
}
