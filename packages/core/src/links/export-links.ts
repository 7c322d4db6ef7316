import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { domains, links } from "@shortener/db";
import type { Ctx } from "../context.ts";
import { IMPORT_COLUMNS, type ImportColumn } from "../imports/schemas.ts";
import { parseInput } from "../validation/fields.ts";
import { linkFilterCondition } from "./link-filters.ts";
import { EXPORT_PAGE_MAX, ExportLinksInput, ExportLinksPageInput } from "./schemas.ts";

/**
 * The read-only columns an export adds after the import's: the destination's health (CONTRACT §25). An
 * import ignores them (it ignores every column it does not read), so an export still imports unchanged.
 */
export const EXPORT_HEALTH_COLUMNS = ["health", "health_reason", "health_checked_at"] as const;

/** The columns of an export: those an import reads (CONTRACT §12, §17), in that order, then the health columns. */
export const EXPORT_COLUMNS: readonly ExportColumn[] = [...IMPORT_COLUMNS, ...EXPORT_HEALTH_COLUMNS];
export type ExportColumn = ImportColumn | (typeof EXPORT_HEALTH_COLUMNS)[number];

/**
 * The header of exports made before the health columns: an import still recognises such a file as an
 * export and undoes its formula neutralisation.
 */
export const EARLIER_EXPORT_COLUMNS: readonly ImportColumn[] = IMPORT_COLUMNS;

/**
 * One link as an export row: every column's cell as text, `""` when not set (as an import reads it).
 * The cells are values; the CSV writer neutralises formulas (`@shortener/csv`), the importer undoes it.
 */
export type ExportRow = Record<ExportColumn, string>;

export type ExportPage = { rows: ExportRow[]; nextCursor: number | null };

const pixelIds = sql<string | null>`(select string_agg(lp.pixel_id::text, ';' order by lp.pixel_id) from link_pixels lp where lp.link_id = ${links.id})`;

/**
 * One page of the caller's links as export rows (CONTRACT §17): every §5 filter, in id order after
 * `cursor`, at most `limit` rows, and the cursor of the next page (null after the last). An indexed
 * keyset read: a page costs the same at the start of a million links as at the end.
 *
 * What a row carries: `domain` by name (`domain_id` is left empty, so a file imports into any account
 * or database that has a domain of that name), the space and pixel ids, expiration in UTC, and with
 * `include=secrets` the stored password hashes in `password_hash` / `privacy_password_hash` (never a
 * clear password: none is stored). Without it those two columns are empty: the file still imports, to
 * links without passwords. The last three columns, the destination's health, are for reading only. Targeting, clicks and dates of creation are not import columns, so they are
 * not exported.
 */
export async function exportLinksPage({ ctx, input }: { ctx: Ctx; input: ExportLinksPageInput }): Promise<ExportPage> {
  const p = parseInput(ExportLinksPageInput, input);
  const filters = await linkFilterCondition(ctx.db, ctx.actor.workspaceId, p, ctx.now());
  const isWithSecrets = p.include === "secrets";
  const isAsc = p.sort === "asc";
  const after = p.cursor === undefined ? undefined : isAsc ? gt(links.id, p.cursor) : lt(links.id, p.cursor);
  const rows = await ctx.db
    .select({
      id: links.id,
      url: links.url,
      alias: links.alias,
      domain: domains.name,
      title: links.title,
      passwordHash: isWithSecrets ? links.passwordHash : sql<string | null>`null`,
      spaceId: links.spaceId,
      pixelIds,
      tags: sql<string>`array_to_string(${links.tags}, ';')`,
      disabled: links.disabled,
      privacy: links.privacy,
      privacyPasswordHash: isWithSecrets ? links.privacyPasswordHash : sql<string | null>`null`,
      expirationUrl: links.expirationUrl,
      endsAt: links.endsAt,
      expirationClicks: links.expirationClicks,
      ogTitle: links.ogTitle,
      ogDescription: links.ogDescription,
      ogImage: links.ogImage,
      health: links.health,
      healthReason: links.healthReason,
      healthCheckedAt: links.healthCheckedAt,
    })
    .from(links)
    .innerJoin(domains, eq(domains.id, links.domainId))
    .where(and(filters, after))
    .orderBy(isAsc ? asc(links.id) : desc(links.id))
    .limit(p.limit);
  const last = rows[rows.length - 1];
  return {
    rows: rows.map((r) => {
      const endsAt = r.endsAt?.toISOString();
      return {
        url: r.url,
        alias: r.alias,
        domain: r.domain,
        domain_id: "",
        title: r.title ?? "",
        password: "",
        space_id: r.spaceId === null ? "" : String(r.spaceId),
        pixel_ids: r.pixelIds ?? "",
        tags: r.tags,
        disabled: r.disabled ? "1" : "0",
        privacy: String(r.privacy),
        privacy_password: "",
        expiration_url: r.expirationUrl ?? "",
        expiration_date: endsAt ? endsAt.slice(0, 10) : "",
        expiration_time: endsAt ? endsAt.slice(11, 16) : "",
        expiration_clicks: String(r.expirationClicks),
        og_title: r.ogTitle ?? "",
        og_description: r.ogDescription ?? "",
        og_image: r.ogImage ?? "",
        password_hash: r.passwordHash ?? "",
        privacy_password_hash: r.privacyPasswordHash ?? "",
        health: r.health,
        health_reason: r.healthReason ?? "",
        health_checked_at: r.healthCheckedAt?.toISOString() ?? "",
      };
    }),
    nextCursor: last && rows.length === p.limit ? last.id : null,
  };
}

/**
 * The whole export as pages of rows, read one page at a time as the consumer asks for them: a stream
 * that holds one page, however many links match. Filters are checked before the first page (a bad
 * value throws before anything is yielded).
 */
export async function streamLinkExport({ ctx, input }: { ctx: Ctx; input: ExportLinksInput }): Promise<AsyncGenerator<ExportRow[]>> {
  const p = parseInput(ExportLinksInput, input);
  const first = await exportLinksPage({ ctx, input: { ...p, limit: EXPORT_PAGE_MAX } });
  return (async function* () {
    let page = first;
    for (;;) {
      if (page.rows.length) yield page.rows;
      if (page.nextCursor === null) return;
      page = await exportLinksPage({ ctx, input: { ...p, cursor: page.nextCursor, limit: EXPORT_PAGE_MAX } });
    }
  })();
}
