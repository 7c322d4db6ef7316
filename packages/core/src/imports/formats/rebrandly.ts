import type { ImportFields } from "../check-import-row.ts";
import { cell, count, isoDateTime, joinTags, keysOf, put, putShortUrl, SOURCE_DOMAIN_COLUMN, type ExportFormat, type ExportRecord } from "./format.ts";

/*
 * Rebrandly: the links export (Links → Export, CSV), whose columns are the documented fields of the
 * Link entity (https://developers.rebrandly.com/docs/link-entity: `id`, `title`, `slashtag`,
 * `destination`, `shortUrl`, `domain` with its `fullName`, `createdAt`, `updatedAt`, `clicks`,
 * `lastClickAt`, `favourite`). `shortUrl` has no scheme (`rebrand.ly/burn10M`); `slashtag` is the alias.
 */
const K = {
  destination: keysOf("destination"),
  slashtag: keysOf("slashtag"),
  shortUrl: keysOf("shortUrl", "short_url"),
  domain: keysOf("domain.fullName", "domainName", "domain"),
  title: keysOf("title"),
  createdAt: keysOf("createdAt"),
  clicks: keysOf("clicks"),
  tags: keysOf("tags"),
};

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.destination));
  putShortUrl(out, cell(record, ...K.shortUrl));
  // The slashtag is the alias itself; the domain's own column, when there is one, names its domain.
  put(out, "alias", cell(record, ...K.slashtag));
  put(out, SOURCE_DOMAIN_COLUMN, cell(record, ...K.domain)?.toLowerCase());
  put(out, "title", cell(record, ...K.title));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  put(out, "clicks", count(cell(record, ...K.clicks)));
  put(out, "tags", joinTags(cell(record, ...K.tags), /[,;|]/));
  return out;
}

export const REBRANDLY: ExportFormat = {
  name: "rebrandly",
  label: "Rebrandly",
  source: "https://developers.rebrandly.com/docs/link-entity",
  columns: Object.values(K).flat(),
  required: [["destination"], ["slashtag", "shortUrl"]],
  translate,
};
