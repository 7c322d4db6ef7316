/** What `POST /imports` learns from a file before queueing it. */
export type CsvUpload = { text: string; rows: number; header: string[] };

const decoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Decodes an uploaded CSV and counts its data rows (for the row limit and `total_rows`) in one pass,
 * with the quoting rules of RFC 4180: a line break inside quotes does not end a row; blank lines are
 * not rows (as the importer's reader skips them). Bytes that are not UTF-8 become U+FFFD: the rows
 * holding them are reported as row errors, the rest of the file is imported. The BOM is dropped.
 */
export function scanCsvUpload(body: Buffer): CsvUpload {
  const text = decoder.decode(body);
  let rows = 0;
  let isQuoted = false;
  let recordStart = 0;
  let headerEnd = -1;
  let hasContent = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      isQuoted = !isQuoted;
      hasContent = true;
    } else if ((c === 10 || c === 13) && !isQuoted) {
      if (hasContent) {
        if (headerEnd < 0) headerEnd = i;
        else rows++;
      }
      hasContent = false;
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      recordStart = i + 1;
    } else if (!hasContent) {
      hasContent = true;
    }
  }
  if (hasContent && recordStart < text.length) {
    if (headerEnd < 0) headerEnd = text.length;
    else rows++;
  }
  return { text, rows, header: headerEnd < 0 ? [] : headerFields(text.slice(0, headerEnd)) };
}

/** The header row's names, trimmed and lower-cased as the importer reads them. */
function headerFields(line: string): string[] {
  const fields: string[] = [];
  let current = "";
  let isQuoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') {
      if (isQuoted && line[i + 1] === '"') {
        current += '"';
        i++;
      } else isQuoted = !isQuoted;
    } else if (ch === "," && !isQuoted) {
      fields.push(current.trim().toLowerCase());
      current = "";
    } else current += ch;
  }
  fields.push(current.trim().toLowerCase());
  return fields;
}
