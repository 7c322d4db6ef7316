import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Placeholder } from "drizzle-orm";
import { domains, linkCounts, links, preparedFor, spaces, type Db } from "@shortener/db";
import { domainColumns, type Domain } from "../domains/domain-columns.ts";
import type { Pixel } from "../pixels/pixel-columns.ts";
import { linkStatusSql, type LinkStatus } from "../expiration/link-status.ts";
import { linkColumns, type Link } from "./link-columns.ts";

/** A pixel as `pixelsJson` returns it: timestamps are ISO strings inside JSON. */
type PixelJson = Omit<Pixel, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string };

/**
 * The link's pixels, ordered by id, as one JSON array in the link's own row: a list page or a show is
 * one statement instead of a second round trip for the pixels.
 */
const pixelsJson = sql<
  PixelJson[]
>`(select coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'type', p.type, 'value', p.value, 'createdAt', p.created_at, 'updatedAt', p.updated_at) order by p.id), '[]'::json) from link_pixels lp join pixels p on p.id = lp.pixel_id where lp.link_id = ${links.id})`;

/** How a query reports the size of the whole set the page is cut from. */
export type TotalSource =
  /** None (a single link). */
  | "none"
  /** `count(*) over ()`: the filtered set, counted by the same scan as the page. */
  | "window"
  /** The trigger-kept per-user counter (link_counts): all of the user's links. */
  | { counterOf: number | Placeholder };

function selection(now: Date | Placeholder, total: TotalSource) {
  return {
    link: linkColumns,
    status: linkStatusSql(now),
    domain: domainColumns,
    spaceId: spaces.id,
    spaceName: spaces.name,
    spaceColor: spaces.color,
    pixels: pixelsJson,
    total:
      total === "none"
        ? sql<number>`0`
        : total === "window"
          ? sql<number>`(count(*) over ())::int`
          : sql<number>`(select coalesce(sum(${linkCounts.n}), 0) from ${linkCounts} where ${linkCounts.workspaceId} = ${total.counterOf})::int`,
  };
}

type Row = {
  link: Omit<Link, "hasPassword" | "hasPrivacyPassword" | "status" | "space" | "domain" | "pixels"> & {
    passwordHash: string | null;
    privacyPasswordHash: string | null;
  };
  status: number;
  domain: Domain;
  spaceId: number | null;
  spaceName: string | null;
  spaceColor: number | null;
  pixels: PixelJson[];
  total: number;
};

function baseQuery(db: Db, now: Date | Placeholder, total: TotalSource) {
  return db.select(selection(now, total)).from(links).innerJoin(domains, eq(domains.id, links.domainId)).leftJoin(spaces, eq(spaces.id, links.spaceId)).$dynamic();
}

function toLinks(rows: Row[]): Link[] & { total?: number } {
  // Built field by field: spreading the row's twenty-odd columns showed in the CPU profile of a list.
  return rows.map(({ link: l, status, domain, spaceId, spaceName, spaceColor, pixels }) => ({
    id: l.id,
    workspaceId: l.workspaceId,
    alias: l.alias,
    url: l.url,
    title: l.title,
    targetType: l.targetType,
    countryTarget: l.countryTarget,
    platformTarget: l.platformTarget,
    languageTarget: l.languageTarget,
    rotationTarget: l.rotationTarget,
    lastRotation: l.lastRotation,
    disabled: l.disabled,
    privacy: l.privacy,
    hasPassword: l.passwordHash !== null,
    hasPrivacyPassword: l.privacyPasswordHash !== null,
    expirationUrl: l.expirationUrl,
    expirationClicks: l.expirationClicks,
    endsAt: l.endsAt,
    clicks: Number(l.clicks),
    status: status as LinkStatus,
    space: spaceId !== null && spaceName !== null && spaceColor !== null ? { id: spaceId, name: spaceName, color: spaceColor } : null,
    domain,
    pixels: pixels.length ? pixels.map((p) => ({ ...p, createdAt: new Date(p.createdAt), updatedAt: new Date(p.updatedAt) })) : [],
    tags: l.tags,
    ogTitle: l.ogTitle,
    ogDescription: l.ogDescription,
    ogImage: l.ogImage,
    health: l.health,
    healthReason: l.healthReason,
    healthCheckedAt: l.healthCheckedAt,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
  }));
}

/** Attaches the total the rows carry (each row has the same one); a page without rows has none. */
function withTotal(rows: Row[]): Link[] & { total?: number } {
  const result: Link[] & { total?: number } = toLinks(rows);
  if (rows[0]) result.total = Number(rows[0].total);
  return result;
}

/**
 * Loads links matching `where` (already ordered and paged by the caller's query parts) with their
 * relations, in one statement. With a total source other than "none", the result carries `total`
 * unless the page is empty.
 */
export async function loadLinks(db: Db, now: Date, query: { where: SQL | undefined; orderBy?: SQL[]; limit?: number; offset?: number; total?: TotalSource }): Promise<Link[] & { total?: number }> {
  let q = baseQuery(db, now, query.total ?? "none").where(query.where);
  if (query.orderBy) q = q.orderBy(...query.orderBy);
  if (query.limit !== undefined) q = q.limit(query.limit);
  if (query.offset) q = q.offset(query.offset);
  return withTotal((await q) as Row[]);
}

export type SortColumn = "id" | "clicks" | "title" | "alias" | "url";
const SORT_COLUMNS = { id: links.id, clicks: links.clicks, title: links.title, alias: links.alias, url: links.url } as const;

/** ORDER BY a column, ties broken by id (CONTRACT §5). */
export function linkOrder(sortBy: SortColumn, sort: "asc" | "desc"): SQL[] {
  const dir = sort === "asc" ? sql`asc` : sql`desc`;
  const byId = sql`${links.id} ${dir}`;
  return sortBy === "id" ? [byId] : [sql`${SORT_COLUMNS[sortBy]} ${dir}`, byId];
}

const ph = {
  now: sql.placeholder("now"),
  workspaceId: sql.placeholder("workspaceId"),
  id: sql.placeholder("id"),
  limit: sql.placeholder("limit"),
  offset: sql.placeholder("offset"),
};

/**
 * One page of all of a user's links, with the total from the per-user counter. The statement is built
 * once per sort and database handle and runs as a prepared statement (no parse and one round trip).
 */
export async function loadLinkPage(db: Db, now: Date, p: { workspaceId: number; sortBy: SortColumn; sort: "asc" | "desc"; limit: number; offset: number }): Promise<Link[] & { total?: number }> {
  // The page's ids first (an index walk over the sort key), then their rows with domain, space and
  // pixels: an OFFSET on the full query would build every skipped row's pixels and status too, so a
  // deep page (a migration reading 100,000 links, docs/adr/0049-live-migration.md) cost ~1 s instead of ms.
  const query = preparedFor(db, `links_page_${p.sortBy}_${p.sort}`, () =>
    baseQuery(db, ph.now, { counterOf: ph.workspaceId })
      .where(
        and(
          eq(links.workspaceId, ph.workspaceId),
          inArray(
            links.id,
            db
              .select({ id: links.id })
              .from(links)
              .where(eq(links.workspaceId, ph.workspaceId))
              .orderBy(...linkOrder(p.sortBy, p.sort))
              .limit(ph.limit)
              .offset(ph.offset),
          ),
        ),
      )
      .orderBy(...linkOrder(p.sortBy, p.sort)),
  );
  const rows = (await query.execute({ now: now.toISOString(), workspaceId: p.workspaceId, limit: p.limit, offset: p.offset })) as Row[];
  return withTotal(rows);
}

/** One of the caller's links by id, or undefined. A prepared statement: the hottest read of the API. */
export async function findOwnedLink(db: Db, now: Date, workspaceId: number, id: number): Promise<Link | undefined> {
  const query = preparedFor(db, "links_find_owned", () =>
    baseQuery(db, ph.now, "none")
      .where(and(eq(links.id, ph.id), eq(links.workspaceId, ph.workspaceId)))
      .limit(1),
  );
  const rows = (await query.execute({ now: now.toISOString(), id, workspaceId })) as Row[];
  return toLinks(rows)[0];
}
