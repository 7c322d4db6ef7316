import { and, eq, exists, sql, type SQL } from "drizzle-orm";
import { linkPixels, links, pgArray, type Db } from "@shortener/db";
import { searchCondition, type SearchColumn } from "./search.ts";
import type { LinkHealth } from "@shortener/vocabulary";
import { linkStatusSql } from "../expiration/link-status.ts";

/** The filters of CONTRACT §5 as they are parsed (0 or absent: no filter). */
export type LinkFilters = {
  search?: string | undefined;
  search_by: SearchColumn;
  status: number;
  space_id?: number | undefined;
  domain_id?: number | undefined;
  pixel_id?: number | undefined;
  /** Tag keys (lower-cased): links carrying any of them (CONTRACT §25). */
  tag?: string[] | undefined;
  /** The destination's health (CONTRACT §25). */
  health?: LinkHealth | undefined;
};

/** True when no filter of §5 is set: all of a user's links. */
export function isUnfiltered(p: LinkFilters): boolean {
  return !p.search && !p.status && !p.space_id && !p.domain_id && !p.pixel_id && !p.tag?.length && !p.health;
}

/** The caller's links matching the §5 filters, as one condition: the list and the export both use it. */
export async function linkFilterCondition(db: Db, workspaceId: number, p: LinkFilters, now: Date): Promise<SQL | undefined> {
  return and(
    eq(links.workspaceId, workspaceId),
    p.search ? await searchCondition(db, p.search_by, p.search) : undefined,
    p.status ? sql`${linkStatusSql(now)} = ${p.status}` : undefined,
    p.space_id ? eq(links.spaceId, p.space_id) : undefined,
    p.domain_id ? eq(links.domainId, p.domain_id) : undefined,
    p.pixel_id
      ? exists(
          db
            .select({ one: sql`1` })
            .from(linkPixels)
            .where(and(eq(linkPixels.linkId, links.id), eq(linkPixels.pixelId, p.pixel_id))),
        )
      : undefined,
    // The partial GIN index `links_tag_keys_idx` leaves untagged links out: the first condition lets the planner use it.
    p.tag?.length ? sql`${links.tagKeys} <> '{}'::text[] and ${links.tagKeys} && ${pgArray(p.tag)}::text[]` : undefined,
    // `broken` reads the partial index `links_health_broken_idx`; ok and unchecked are most links.
    p.health ? eq(links.health, p.health) : undefined,
  );
}
