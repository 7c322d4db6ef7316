import { and, eq, sql } from "drizzle-orm";
import { links } from "@shortener/db";
import type { SystemCtx } from "../context.ts";
import { linkTargetColumns } from "../links/link-columns.ts";
import { openGraphOf, type OpenGraph } from "../links/open-graph.ts";
import type { TargetedLink } from "../targeting/choose-destination.ts";

/** What the visitor side needs of a link, loaded in one indexed read and cached. */
export type VisitLink = TargetedLink & {
  id: number;
  domainId: number;
  alias: string;
  disabled: boolean;
  passwordHash: string | null;
  expirationUrl: string | null;
  expirationClicks: number;
  endsAt: Date | null;
  clicks: number;
  lastRotation: number | null;
  pixels: Array<{ type: string; value: string }>;
  /**
   * The link's Open Graph preview (CONTRACT §25), null when it has none: the visitor side shows it to
   * link-preview bots only, and only once the link's gates are passed (a person's visit reads nothing but this null check).
   */
  og: OpenGraph | null;
};

/** The link a visitor asks for by domain and alias (exact, case-sensitive), or null. */
export async function findLinkForVisit(ctx: SystemCtx, domainId: number, alias: string): Promise<VisitLink | null> {
  const [row] = await ctx.db
    .select({
      id: links.id,
      domainId: links.domainId,
      alias: links.alias,
      url: links.url,
      disabled: links.disabled,
      passwordHash: links.passwordHash,
      expirationUrl: links.expirationUrl,
      expirationClicks: links.expirationClicks,
      endsAt: links.endsAt,
      clicks: links.clicks,
      ...linkTargetColumns,
      lastRotation: links.lastRotation,
      ogTitle: links.ogTitle,
      ogDescription: links.ogDescription,
      ogImage: links.ogImage,
      // Written out with table names: drizzle renders bare column names inside a raw subquery.
      pixels: sql<Array<{ type: string; value: string }> | null>`(
        select json_agg(json_build_object('type', p.type, 'value', p.value) order by p.id)
        from link_pixels lp join pixels p on p.id = lp.pixel_id
        where lp.link_id = "links"."id")`,
    })
    .from(links)
    .where(and(eq(links.domainId, domainId), eq(links.alias, alias)))
    .limit(1);
  if (!row) return null;
  const pixelList = typeof row.pixels === "string" ? (JSON.parse(row.pixels) as VisitLink["pixels"]) : row.pixels;
  const { ogTitle, ogDescription, ogImage, ...rest } = row;
  return { ...rest, clicks: Number(row.clicks), pixels: pixelList ?? [], og: openGraphOf({ ogTitle, ogDescription, ogImage }) };
}
