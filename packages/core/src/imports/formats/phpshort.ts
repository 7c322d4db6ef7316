import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, hasSecret, isoDateTime, isYes, keysOf, put, putShortUrl } from "./format.ts";

/*
 * phpShort: its links as the seed interface's Link object names them (the API this service speaks,
 * CONTRACT §3; phpShort's dashboard export uses the same field names): `id`, `alias`, `url`,
 * `short_url`, `title`, `disabled`, `expiration_url`, `expiration_clicks`, `expiration_date`,
 * `expiration_time`, `clicks`, `created_at`. `short_url` names the domain. `password` is only
 * whether one is set (the secret never leaves phpShort): a link that had one comes in disabled.
 */
const K = {
  url: keysOf("url"),
  alias: keysOf("alias"),
  shortUrl: keysOf("short_url"),
  title: keysOf("title"),
  disabled: keysOf("disabled"),
  password: keysOf("password"),
  expirationUrl: keysOf("expiration_url"),
  expirationClicks: keysOf("expiration_clicks"),
  expirationDate: keysOf("expiration_date"),
  expirationTime: keysOf("expiration_time"),
  clicks: keysOf("clicks"),
  createdAt: keysOf("created_at"),
};

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("url"));
  putShortUrl(out, record.cell("shortUrl"));
  put(out, "alias", record.cell("alias"));
  put(out, "title", record.cell("title"));
  if (isYes(record.cell("disabled")) || hasSecret(record.cell("password"))) out.disabled = "1";
  put(out, "expiration_url", record.cell("expirationUrl"));
  const clicksLimit = record.cell("expirationClicks");
  if (clicksLimit !== "0") put(out, "expiration_clicks", clicksLimit);
  put(out, "expiration_date", record.cell("expirationDate"));
  put(out, "expiration_time", record.cell("expirationTime"));
  put(out, "clicks", count(record.cell("clicks")));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  return out;
}

export const PHPSHORT = defineExportFormat({
  name: "phpshort",
  label: "phpShort",
  source: "CONTRACT §3 (the seed interface's Link object: phpShort 5.x)",
  keys: K,
  required: [["url"], ["alias", "short_url"]],
  translate,
});
