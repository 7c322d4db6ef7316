import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, joinTags, keysOf, put, putExpiration, putShortUrl, SOURCE_DOMAIN_COLUMN } from "./format.ts";

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

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("originalUrl"));
  putShortUrl(out, record.cell("shortUrl"));
  put(out, "alias", record.cell("path")?.replace(/^\/+/, ""));
  put(out, SOURCE_DOMAIN_COLUMN, record.cell("domain")?.toLowerCase());
  put(out, "title", record.cell("title"));
  put(out, "tags", joinTags(record.cell("tags"), /[,;|]/));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  putExpiration(out, record.cell("expiresAt"));
  put(out, "expiration_url", record.cell("expiredUrl"));
  put(out, "expiration_clicks", record.cell("clicksLimit"));
  put(out, "clicks", count(record.cell("clicks")));
  return out;
}

export const SHORTIO = defineExportFormat({
  name: "shortio",
  label: "Short.io",
  source: "https://developers.short.io/reference (the link object)",
  keys: K,
  required: [["originalURL"], ["path", "shortURL"]],
  translate,
});
