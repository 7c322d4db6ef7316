/*
 * Writing CSV cells: RFC 4180 quoting, and spreadsheet formulas neutralised the way OWASP advises
 * ("CSV injection": a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
 * leading apostrophe, which spreadsheets take as "this is text"). Every CSV the service writes — link
 * exports, statistics, import row errors — goes through `csvCell`, the one rule.
 *
 * The escaping is reversible, so an export imports back to the same values (CONTRACT §17): a value that
 * already starts with apostrophes followed by a trigger (`'=x`, `''+1`) gets one more apostrophe too.
 * `restoreFormula` removes exactly one apostrophe from a cell that starts with apostrophes followed by a
 * trigger, and leaves every other cell alone (`'hello` stays `'hello`): restoreFormula(neutralizeFormula(v))
 * is v for every v.
 */

const APOSTROPHE = 39;

/** The first character after any leading apostrophes is one a spreadsheet starts a formula with. */
function isFormulaAfterApostrophes(value: string): boolean {
  let i = 0;
  while (value.charCodeAt(i) === APOSTROPHE) i++;
  const c = value.charCodeAt(i);
  // = + - @ TAB CR
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

/** A value as a spreadsheet must not run it: one apostrophe before a formula start (or before apostrophes that lead to one). */
export function neutralizeFormula(value: string): string {
  return isFormulaAfterApostrophes(value) ? `'${value}` : value;
}

/** The inverse of `neutralizeFormula`: the value a cell of a file this service wrote stands for. */
export function restoreFormula(cell: string): string {
  return cell.charCodeAt(0) === APOSTROPHE && isFormulaAfterApostrophes(cell) ? cell.slice(1) : cell;
}

/**
 * One CSV cell: a string neutralised (`neutralizeFormula`), then quoted when it holds a comma, a quote
 * or a line break; a number as it is (a number is not a formula); null as an empty cell.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const text = neutralizeFormula(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line of `csvCell`s, CRLF-terminated. */
export function csvLine(cells: ReadonlyArray<string | number | null>): string {
  let out = "";
  for (let i = 0; i < cells.length; i++) out += (i ? "," : "") + csvCell(cells[i] ?? null);
  return `${out}\r\n`;
}

/** The header line of an import's row errors as CSV (CONTRACT §12). */
export const ERRORS_CSV_HEADER = "line,field,message\r\n";

/** An import's row errors as CSV lines (`line,field,message`, CRLF), formulas neutralised. */
export function formatErrorsCsv(errors: ReadonlyArray<{ line: number; field: string | null; message: string }>): string {
  let out = "";
  for (const e of errors) out += `${e.line},${csvCell(e.field)},${csvCell(e.message)}\r\n`;
  return out;
}
