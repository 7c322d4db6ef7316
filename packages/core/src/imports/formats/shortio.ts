import type { ImportFields } from "../check-import-row.ts";
import { cell, count, isoDateTime, joinTags, keysOf, put, putExpiration, putShortUrl, SOURCE_DOMAIN_COLUMN, type ExportFormat, type ExportRecord } from "./format.ts";

/*
 * Short.io: the links export (Links → Export, CSV), whose columns are the fields of the link object of
 * Short.io's API (https://developers.short.io/reference, "Link": `originalURL`, `shortURL`, `path`,
 * `title`, `tags`, `createdAt`, `expiresAt`, `expiredURL`, `clicksLimit`), written as `originalURL` or
 * `Original URL` alike. `path` is the alias; `shortURL` names the domain too.
 */
const K = {
  originalUrl: keysOf("originalURL", "original_url", "long_url"),
  shortUrl: keysOf("shortURL", "secureShortURL", "short_url"),
  path: keysOf("path"),
  domain: keysOf("domain"),
  title: keysOf("title"),
  tags: keysOf("tags"),
  createdAt: keysOf("createdAt"),
  expiresAt: keysOf("expiresAt"),
  expiredUrl: keysOf("expiredURL"),
  clicksLimit: keysOf("clicksLimit"),
  clicks: keysOf("clicks"),
};

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.originalUrl));
  putShortUrl(out, cell(record, ...K.shortUrl));
  put(out, "alias", cell(record, ...K.path)?.replace(/^\/+/, ""));
  put(out, SOURCE_DOMAIN_COLUMN, cell(record, ...K.domain)?.toLowerCase());
  put(out, "title", cell(record, ...K.title));
  put(out, "tags", joinTags(cell(record, ...K.tags), /[,;|]/));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  putExpiration(out, cell(record, ...K.expiresAt));
  put(out, "expiration_url", cell(record, ...K.expiredUrl));
  put(out, "expiration_clicks", cell(record, ...K.clicksLimit));
  put(out, "clicks", count(cell(record, ...K.clicks)));
  return out;
}

export const SHORTIO: ExportFormat = {
  name: "shortio",
  label: "Short.io",
  source: "https://developers.short.io/reference (the link object)",
  columns: Object.values(K).flat(),
  required: [["originalURL"], ["path", "shortURL"]],
  translate,
};
