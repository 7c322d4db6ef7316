import type { ImportFields } from "../check-import-row.ts";
import { cell, count, isoDateTime, joinTags, keysOf, put, putShortUrl, SOURCE_DOMAIN_COLUMN, type ExportFormat, type ExportRecord } from "./format.ts";

/*
 * Shlink: the short URLs export of Shlink's web client (Short URLs → Export, CSV), as written by
 * shlinkio/shlink-web-component src/short-urls/helpers/ExportShortUrlsBtn.tsx: `createdAt`, `domain`,
 * `shortCode`, `shortUrl`, `longUrl`, `title`, `tags` (names joined by `|`), `visits`.
 */
const K = {
  longUrl: keysOf("longUrl"),
  shortCode: keysOf("shortCode"),
  shortUrl: keysOf("shortUrl"),
  domain: keysOf("domain"),
  title: keysOf("title"),
  tags: keysOf("tags"),
  visits: keysOf("visits"),
  createdAt: keysOf("createdAt", "dateCreated"),
};

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.longUrl));
  putShortUrl(out, cell(record, ...K.shortUrl));
  put(out, "alias", cell(record, ...K.shortCode));
  put(out, SOURCE_DOMAIN_COLUMN, cell(record, ...K.domain)?.toLowerCase());
  put(out, "title", cell(record, ...K.title));
  put(out, "tags", joinTags(cell(record, ...K.tags), /\|/));
  put(out, "clicks", count(cell(record, ...K.visits)));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  return out;
}

export const SHLINK: ExportFormat = {
  name: "shlink",
  label: "Shlink",
  source: "https://github.com/shlinkio/shlink-web-component/blob/main/src/short-urls/helpers/ExportShortUrlsBtn.tsx",
  columns: Object.values(K).flat(),
  required: [["longUrl"], ["shortCode", "shortUrl"]],
  translate,
};
