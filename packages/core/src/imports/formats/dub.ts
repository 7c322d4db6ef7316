import type { ImportFields } from "../check-import-row.ts";
import { cell, count, isoDateTime, joinTags, keysOf, put, putShortUrl, type ExportFormat, type ExportRecord } from "./format.ts";

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

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.url));
  putShortUrl(out, cell(record, ...K.link));
  put(out, "title", cell(record, ...K.title));
  put(out, "clicks", count(cell(record, ...K.clicks)));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  put(out, "tags", joinTags(cell(record, ...K.tags), /,/));
  return out;
}

export const DUB: ExportFormat = {
  name: "dub",
  label: "Dub",
  source: "https://github.com/dubinc/dub/blob/main/apps/web/app/api/links/export/route.ts",
  columns: Object.values(K).flat(),
  required: [["link"], ["url"]],
  translate,
};
