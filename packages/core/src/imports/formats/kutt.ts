import type { ImportFields } from "../check-import-row.ts";
import { cell, count, hasSecret, isoDateTime, isYes, keysOf, put, putExpiration, putShortUrl, type ExportFormat, type ExportRecord } from "./format.ts";

/*
 * Kutt has no export of its own. The common one is its `links` table as CSV (`psql -c "\copy links
 * to 'links.csv' csv header"`), with the columns of thedevs-network/kutt's knex schema: `id`,
 * `address` (the alias), `target`, `description`, `banned`, `banned_by_id`, `domain_id`, `password`
 * (a bcrypt hash), `expire_in`, `user_id`, `visit_count`, `uuid`, `created_at`, `updated_at`. The same
 * names come out of its API (`GET /api/v2/links`) converted to CSV, which adds `link` (the short URL:
 * its domain is used) and `password` as true/false.
 *
 * A password cannot be carried (a bcrypt hash is not ours to check against), and a link that had one
 * must not open for everyone: such a link, and a banned one, comes in disabled.
 */
const K = {
  address: keysOf("address"),
  target: keysOf("target"),
  description: keysOf("description"),
  link: keysOf("link"),
  banned: keysOf("banned"),
  password: keysOf("password"),
  expireIn: keysOf("expire_in"),
  visits: keysOf("visit_count"),
  createdAt: keysOf("created_at"),
};

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.target));
  putShortUrl(out, cell(record, ...K.link));
  put(out, "alias", cell(record, ...K.address));
  put(out, "title", cell(record, ...K.description));
  if (hasSecret(cell(record, ...K.password)) || isYes(cell(record, ...K.banned))) out.disabled = "1";
  putExpiration(out, cell(record, ...K.expireIn));
  put(out, "clicks", count(cell(record, ...K.visits)));
  put(out, "created_at", isoDateTime(cell(record, ...K.createdAt)));
  return out;
}

export const KUTT: ExportFormat = {
  name: "kutt",
  label: "Kutt",
  source: "https://github.com/thedevs-network/kutt (server/migrations: the links table)",
  columns: Object.values(K).flat(),
  required: [["address"], ["target"]],
  translate,
};
