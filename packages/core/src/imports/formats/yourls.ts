import type { ImportFields } from "../check-import-row.ts";
import { count, defineExportFormat, type ExportReader, isoDateTime, keysOf, put } from "./format.ts";

/*
 * YOURLS has no export of its own. The common one is its `yourls_url` table as CSV (phpMyAdmin's
 * Export → CSV with column names, `mysql … > links.csv`, or the export plugins, which write the same
 * columns): `keyword`, `url`, `title`, `timestamp`, `ip`, `clicks`, as created by YOURLS/YOURLS
 * includes/functions-install.php. `timestamp` has no zone (`2024-05-01 10:20:30`) and is read as UTC.
 * The file names no domain: every row goes to the job's default domain.
 */
const K = {
  keyword: keysOf("keyword"),
  url: keysOf("url"),
  title: keysOf("title"),
  timestamp: keysOf("timestamp"),
  clicks: keysOf("clicks"),
};

function translate(record: ExportReader<keyof typeof K>): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", record.cell("url"));
  put(out, "alias", record.cell("keyword"));
  put(out, "title", record.cell("title"));
  put(out, "created_at", isoDateTime(record.cell("timestamp")));
  put(out, "clicks", count(record.cell("clicks")));
  return out;
}

export const YOURLS = defineExportFormat({
  name: "yourls",
  label: "YOURLS",
  source: "https://github.com/YOURLS/YOURLS/blob/master/includes/functions-install.php (the yourls_url table)",
  keys: K,
  required: [["keyword"], ["url"]],
  translate,
});
