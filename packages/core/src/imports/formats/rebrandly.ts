import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, joinTags, keysOf, put, putShortUrl, SOURCE_DOMAIN_COLUMN } from "./format.ts";

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

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("destination"));
  putShortUrl(out, record.cell("shortUrl"));
  // The slashtag is the alias itself; the domain's own column, when there is one, names its domain.
  put(out, "alias", record.cell("slashtag"));
  put(out, SOURCE_DOMAIN_COLUMN, record.cell("domain")?.toLowerCase());
  put(out, "title", record.cell("title"));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  put(out, "clicks", count(record.cell("clicks")));
  put(out, "tags", joinTags(record.cell("tags"), /[,;|]/));
  return out;
}

export const REBRANDLY = defineExportFormat({
  name: "rebrandly",
  label: "Rebrandly",
  source: "https://developers.rebrandly.com/docs/link-entity",
  keys: K,
  required: [["destination"], ["slashtag", "shortUrl"]],
  translate,
});
