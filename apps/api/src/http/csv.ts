/** The headers of a CSV download of the caller's own data: an attachment named `filename`, never stored by a cache, never sniffed as another type. Cells are written by `@shortener/csv`'s `csvLine`, formulas neutralised. */
export function privateCsvHeaders(filename: string): Record<string, string> {
  return {
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="${filename}"`,
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
}
