import type { ImportFields } from "../check-import-row.ts";
import { cell, count, hasSecret, isoDateTime, isYes, keysOf, put, putShortUrl, type ExportFormat, type ExportRecord } from "./format.ts";

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

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.url));
  putShortUrl(out, cell(record, ...K.shortUrl));
  put(out, "alias", cell(record, ...K.alias));
  put(out, "title", cell(record, ...K.title));
  if (isYes(cell(record, ...K.disabled)) || hasSecret(cell(record, ...K.password))) out.disabled = "1";
  put(out, "expiration_url", cell(record, ...K.expirationUrl));
  const clicksLimit = cell(record, ...K.expirationClicks);
  if (clicksLimit !== "0") put(out, "expiration_clicks", clicksLimit);
  put(out, "expiration_date", cell(record, ...K.expirationDate));
  put(out, "expiration_time", cell(record, ...K.expirationTime));
  put(out, "clicks", count(cell(record, ...K.clicks)));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  return out;
}

export const PHPSHORT: ExportFormat = {
  name: "phpshort",
  label: "phpShort",
  source: "CONTRACT §3 (the seed interface's Link object: phpShort 5.x)",
  columns: Object.values(K).flat(),
  required: [["url"], ["alias", "short_url"]],
  translate,
};
