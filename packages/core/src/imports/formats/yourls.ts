import type { ImportFields } from "../check-import-row.ts";
import { cell, count, isoDateTime, keysOf, put, type ExportFormat, type ExportRecord } from "./format.ts";

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

function translate(record: ExportRecord): ImportFields {
  const out: Record<string, string> = {};
  put(out, "url", cell(record, ...K.url));
  put(out, "alias", cell(record, ...K.keyword));
  put(out, "title", cell(record, ...K.title));
  put(out, "created_at", isoDateTime(cell(record, ...K.timestamp)));
  put(out, "clicks", count(cell(record, ...K.clicks)));
  return out;
}

export const YOURLS: ExportFormat = {
  name: "yourls",
  label: "YOURLS",
  source: "https://github.com/YOURLS/YOURLS/blob/master/includes/functions-install.php (the yourls_url table)",
  columns: Object.values(K).flat(),
  required: [["keyword"], ["url"]],
  translate,
};
