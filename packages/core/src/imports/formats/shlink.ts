import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, joinTags, keysOf, put, putShortUrl, SOURCE_DOMAIN_COLUMN } from "./format.ts";

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

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("longUrl"));
  putShortUrl(out, record.cell("shortUrl"));
  put(out, "alias", record.cell("shortCode"));
  put(out, SOURCE_DOMAIN_COLUMN, record.cell("domain")?.toLowerCase());
  put(out, "title", record.cell("title"));
  put(out, "tags", joinTags(record.cell("tags"), /\|/));
  put(out, "clicks", count(record.cell("visits")));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  return out;
}

export const SHLINK = defineExportFormat({
  name: "shlink",
  label: "Shlink",
  source: "https://github.com/shlinkio/shlink-web-component/blob/main/src/short-urls/helpers/ExportShortUrlsBtn.tsx",
  keys: K,
  required: [["longUrl"], ["shortCode", "shortUrl"]],
  translate,
});
