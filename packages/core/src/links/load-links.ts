import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { domains, linkPixels, links, pixels, spaces, type Db, type TargetEntry } from "@shortener/db";
import { domainColumns, type Domain } from "../domains/domains.ts";
import { pixelColumns, type Pixel } from "../pixels/pixels.ts";
import type { Space } from "../spaces/spaces.ts";
import { linkStatusSql, type LinkStatus } from "./status.ts";

/** A link as core returns it: secrets reduced to whether they are set, with its domain, space and pixels. */
export type Link = {
  id: number;
  userId: number;
  alias: string;
  url: string;
  title: string | null;
  targetType: number;
  countryTarget: TargetEntry[] | null;
  platformTarget: TargetEntry[] | null;
  languageTarget: TargetEntry[] | null;
  rotationTarget: TargetEntry[] | null;
  lastRotation: number | null;
  disabled: boolean;
  privacy: number;
  hasPassword: boolean;
  hasPrivacyPassword: boolean;
  expirationUrl: string | null;
  expirationClicks: number;
  endsAt: Date | null;
  clicks: number;
  status: LinkStatus;
  space: Pick<Space, "id" | "name" | "color"> | null;
  domain: Domain;
  pixels: Pixel[];
  createdAt: Date;
  updatedAt: Date;
};

export const linkColumns = {
  id: links.id,
  userId: links.userId,
  alias: links.alias,
  url: links.url,
  title: links.title,
  targetType: links.targetType,
  countryTarget: links.countryTarget,
  platformTarget: links.platformTarget,
  languageTarget: links.languageTarget,
  rotationTarget: links.rotationTarget,
  lastRotation: links.lastRotation,
  disabled: links.disabled,
  privacy: links.privacy,
  passwordHash: links.passwordHash,
  privacyPasswordHash: links.privacyPasswordHash,
  expirationUrl: links.expirationUrl,
  expirationClicks: links.expirationClicks,
  endsAt: links.endsAt,
  clicks: links.clicks,
  createdAt: links.createdAt,
  updatedAt: links.updatedAt,
};

/** Loads links matching `where` (already ordered and paged by the caller's query parts) with their relations. */
export async function loadLinks(
  db: Db,
  now: Date,
  query: { where: SQL | undefined; orderBy?: SQL[]; limit?: number; offset?: number; withTotal?: boolean },
): Promise<Link[] & { total?: number }> {
  let q = db
    .select({
      link: linkColumns,
      status: linkStatusSql(now),
      domain: domainColumns,
      spaceId: spaces.id,
      spaceName: spaces.name,
      spaceColor: spaces.color,
      // The size of the whole filtered set, from the same scan as the page.
      total: query.withTotal ? sql<number>`(count(*) over ())::int` : sql<number>`0`,
    })
    .from(links)
    .innerJoin(domains, eq(domains.id, links.domainId))
    .leftJoin(spaces, eq(spaces.id, links.spaceId))
    .where(query.where)
    .$dynamic();
  if (query.orderBy) q = q.orderBy(...query.orderBy);
  if (query.limit !== undefined) q = q.limit(query.limit);
  if (query.offset) q = q.offset(query.offset);
  const rows = await q;
  if (!rows.length) return [];
  const total = rows[0]?.total;

  const ids = rows.map((r) => r.link.id);
  const pixelRows = await db
    .select({ linkId: linkPixels.linkId, pixel: pixelColumns })
    .from(linkPixels)
    .innerJoin(pixels, eq(pixels.id, linkPixels.pixelId))
    .where(inArray(linkPixels.linkId, ids))
    .orderBy(pixels.id);
  const pixelsByLink = new Map<number, Pixel[]>();
  for (const { linkId, pixel } of pixelRows) {
    const list = pixelsByLink.get(linkId) ?? [];
    list.push(pixel);
    pixelsByLink.set(linkId, list);
  }

  const result: Link[] & { total?: number } = rows.map(({ link, status, domain, spaceId, spaceName, spaceColor }) => {
    const { passwordHash, privacyPasswordHash, ...rest } = link;
    return {
      ...rest,
      clicks: Number(rest.clicks),
      hasPassword: passwordHash !== null,
      hasPrivacyPassword: privacyPasswordHash !== null,
      status: status as LinkStatus,
      space: spaceId !== null && spaceName !== null && spaceColor !== null ? { id: spaceId, name: spaceName, color: spaceColor } : null,
      domain,
      pixels: pixelsByLink.get(link.id) ?? [],
    };
  });
  if (query.withTotal) result.total = Number(total);
  return result;
}

/** One of the caller's links by id, or undefined. */
export async function findOwnedLink(db: Db, now: Date, userId: number, id: number): Promise<Link | undefined> {
  const [link] = await loadLinks(db, now, { where: and(eq(links.id, id), eq(links.userId, userId)), limit: 1 });
  return link;
}
