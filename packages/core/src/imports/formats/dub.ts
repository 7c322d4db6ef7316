import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, joinTags, keysOf, put, putShortUrl } from "./format.ts";

/*
 * Dub: the links export (Links → Export, CSV), as written by dubinc/dub
 * apps/web/app/api/links/export/route.ts: the columns the user ticks among `link` (the short link,
 * `https://dub.sh/abc`), `url` (the destination), `title`, `clicks`, `createdAt`, `updatedAt`, `tags`
 * (names joined by `, `), `archived` and `id`.
 */
const K = {
  link: keysOf("link", "shortLink"),
  url: keysOf("url"),
  title: keysOf("title"),
  clicks: keysOf("clicks"),
  createdAt: keysOf("createdAt"),
  tags: keysOf("tags"),
};

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("url"));
  putShortUrl(out, record.cell("link"));
  put(out, "title", record.cell("title"));
  put(out, "clicks", count(record.cell("clicks")));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  put(out, "tags", joinTags(record.cell("tags"), /,/));
  return out;
}

export const DUB = defineExportFormat({
  name: "dub",
  label: "Dub",
  source: "https://github.com/dubinc/dub/blob/main/apps/web/app/api/links/export/route.ts",
  keys: K,
  required: [["link"], ["url"]],
  translate,
});
