/**
 * The one header rule of an import file (CONTRACT §12): it has a header, and the header names a url
 * column. Returns what is wrong, in words, or null. Core reads no CSV: each adapter reads the header
 * its own way and turns the answer into its own error (the API's 422 on `file`, the worker's and the
 * CLI's failed job).
 */
export function checkImportHeader(names: readonly string[]): string | null {
  if (!names.length) return "The file is empty.";
  if (!names.includes("url")) return "The file has no url column.";
  return null;
}
