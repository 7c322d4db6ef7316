import type { ImportFields } from "../check-import-row.ts";
import { IMPORT_COLUMNS } from "../schemas.ts";
import { checkImportHeader } from "../import-header.ts";
import { BITLY } from "./bitly.ts";
import { DUB } from "./dub.ts";
import { exportHeaderKey, type ExportCells, type ExportFormat } from "./format.ts";
import { KUTT } from "./kutt.ts";
import { PHPSHORT } from "./phpshort.ts";
import { REBRANDLY } from "./rebrandly.ts";
import { SHLINK } from "./shlink.ts";
import { SHORTIO } from "./shortio.ts";
import { IMPORT_FORMATS, type ImportFormat } from "./names.ts";
import { YOURLS } from "./yourls.ts";

export { exportHeaderKey, SOURCE_DOMAIN_COLUMN, splitShortUrl, type ExportCells, type ExportFormat } from "./format.ts";

/** Other services' export files (CONTRACT §23), by `format=` name. */
export const EXPORT_FORMATS: Record<Exclude<ImportFormat, "csv">, ExportFormat> = {
  bitly: BITLY,
  rebrandly: REBRANDLY,
  shortio: SHORTIO,
  dub: DUB,
  shlink: SHLINK,
  yourls: YOURLS,
  kutt: KUTT,
  phpshort: PHPSHORT,
};

export { IMPORT_FORMATS, type ImportFormat } from "./names.ts";

export function isImportFormat(value: unknown): value is ImportFormat {
  return typeof value === "string" && (IMPORT_FORMATS as readonly string[]).includes(value);
}

/** Header names as the plain CSV format compares them: trimmed and lower-cased. */
const csvHeaderKey = (cell: string) => cell.trim().toLowerCase();

/**
 * How an adapter reads a file of a format: what each header cell is called (`headerKey`), the columns
 * to keep, the header rule, and the translator of a file's records into import rows, compiled once for
 * its header (none for `csv`, whose records are import rows already).
 */
export type ImportFileReading = {
  format: ImportFormat;
  headerKey: (cell: string) => string;
  columns: readonly string[];
  /** What is wrong with a header (its names through `headerKey`), in words, or null. */
  checkHeader: (names: readonly string[]) => string | null;
  compile: ((header: readonly string[]) => (cells: ExportCells) => ImportFields) | null;
};

export function importFileReading(format: ImportFormat): ImportFileReading {
  if (format === "csv") return { format, headerKey: csvHeaderKey, columns: IMPORT_COLUMNS, checkHeader: checkImportHeader, compile: null };
  const spec = EXPORT_FORMATS[format];
  return { format, headerKey: exportHeaderKey, columns: spec.columns, checkHeader: (names) => checkExportHeader(spec, names), compile: (header) => spec.compile(header) };
}

/**
 * The header rule of a service's export (CONTRACT §23): each required column is there (under one of
 * its names). A file of another format has the wrong header, so this is also what a Bitly file sent as
 * `format=dub` meets: the answer names the missing columns.
 */
export function checkExportHeader(spec: ExportFormat, names: readonly string[]): string | null {
  if (!names.length) return "The file is empty.";
  const present = new Set(names);
  const missing = spec.required.filter((group) => !group.some((name) => present.has(exportHeaderKey(name))));
  if (!missing.length) return null;
  const described = missing.map((group) => group.join(" or ")).join(", ");
  return `The file is not a ${spec.label} export (format=${spec.name}): its header has no ${described} column${missing.length > 1 ? "s" : ""}.`;
}
