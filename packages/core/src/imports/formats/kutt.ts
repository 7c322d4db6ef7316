import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, hasSecret, isoDateTime, isYes, keysOf, put, putExpiration, putShortUrl } from "./format.ts";

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

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("target"));
  putShortUrl(out, record.cell("link"));
  put(out, "alias", record.cell("address"));
  put(out, "title", record.cell("description"));
  if (hasSecret(record.cell("password")) || isYes(record.cell("banned"))) out.disabled = "1";
  putExpiration(out, record.cell("expireIn"));
  put(out, "clicks", count(record.cell("visits")));
  put(out, "created_at", isoDateTime(record.cell("createdAt")));
  return out;
}

export const KUTT = defineExportFormat({
  name: "kutt",
  label: "Kutt",
  source: "https://github.com/thedevs-network/kutt (server/migrations: the links table)",
  keys: K,
  required: [["address"], ["target"]],
  translate,
});
