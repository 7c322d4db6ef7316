import type { RowError } from "./import-job.ts";

/** The header line of an errors CSV. */
export const ERRORS_CSV_HEADER = "line,field,message\r\n";

/**
 * One CSV cell, safe to open in a spreadsheet: a value starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading apostrophe so it is not run as a formula (OWASP "CSV injection"),
 * and a value with a comma, quote or line break is quoted.
 */
export function toCsvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Row errors as CSV lines (`line,field,message`, CRLF), formula characters neutralised. */
export function formatErrorsCsv(errors: readonly RowError[]): string {
  let out = "";
  for (const e of errors) out += `${e.line},${toCsvCell(e.field)},${toCsvCell(e.message)}\r\n`;
  return out;
}
