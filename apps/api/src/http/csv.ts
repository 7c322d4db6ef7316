/**
 * A CSV cell as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break, and nothing
 * else changed, so that an export imports again to the same values. (The statistics CSV, whose values
 * come from visitors, neutralises spreadsheet formulas with core's `toCsvCell` instead.)
 */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV line, CRLF-terminated. */
export function csvLine(cells: readonly string[]): string {
  let out = "";
  for (let i = 0; i < cells.length; i++) out += (i ? "," : "") + csvCell(cells[i] as string);
  return `${out}\r\n`;
}

/** The headers of a CSV download of the caller's own data: an attachment named `filename`, never stored by a cache, never sniffed as another type. */
export function privateCsvHeaders(filename: string): Record<string, string> {
  return {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${filename}"`,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
}
