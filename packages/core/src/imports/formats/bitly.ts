import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, joinTags, keysOf, put, putShortUrl } from "./format.ts";

/*
 * Bitly: the links export of the web app (Links → Export, CSV), whose columns are the fields of the
 * Bitlink object of Bitly's API v4 (https://dev.bitly.com/api-reference, "Bitlink": `id`, `link`,
 * `long_url`, `title`, `created_at`, `archived`, `tags`, `custom_bitlinks`), written as `long_url` or
 * `Long URL` alike. `link` is the short URL (`https://bit.ly/abc`); `id` is the same without scheme
 * (`bit.ly/abc`). A link with a custom back-half on a branded domain keeps that one (`custom_bitlinks`,
 * the first of them): it is the address people were given.
 */
const K = {
  link: keysOf("link", "bitlink", "short_url"),
  id: keysOf("id"),
  longUrl: keysOf("long_url", "destination"),
  title: keysOf("title"),
  createdAt: keysOf("created_at", "created", "date_created"),
  tags: keysOf("tags"),
  custom: keysOf("custom_bitlinks"),
  clicks: keysOf("clicks", "total_clicks"),
};

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("longUrl"));
  const custom = record
    .cell("custom")
    ?.split(/[\s,;|]+/)
    .find(Boolean);
  putShortUrl(out, custom ?? record.cell("link") ?? record.cell("id"));
  put(out, "title", record.cell("title"));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  put(out, "tags", joinTags(record.cell("tags"), /[,;|]/));
  put(out, "clicks", count(record.cell("clicks")));
  return out;
}

export const BITLY = defineExportFormat({
  name: "bitly",
  label: "Bitly",
  source: "https://dev.bitly.com/api-reference (the Bitlink object)",
  keys: K,
  required: [["long_url"], ["link", "bitlink", "id"]],
  translate,
});
