import { eq } from "drizzle-orm";
import { domains, links } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

/** What the public stats page needs of a link to decide who may see it, and to name it. */
export type StatsLink = {
  id: number;
  workspaceId: number;
  alias: string;
  title: string | null;
  domainName: string;
  privacy: number;
  privacyPasswordHash: string | null;
};

/** The link behind `/stats/{id}`, whoever asks, or null. The caller enforces its privacy. */
export async function findStatsLink(ctx: SystemCtx, id: number): Promise<StatsLink | null> {
  const [row] = await ctx.db
    .select({
      id: links.id,
      workspaceId: links.workspaceId,
      alias: links.alias,
      title: links.title,
      domainName: domains.name,
      privacy: links.privacy,
      privacyPasswordHash: links.privacyPasswordHash,
    })
    .from(links)
    .innerJoin(domains, eq(domains.id, links.domainId))
    .where(eq(links.id, id))
    .limit(1);
  return row ?? null;
}
