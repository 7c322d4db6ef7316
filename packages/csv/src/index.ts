export { csvCell, csvLine, ERRORS_CSV_HEADER, formatErrorsCsv, neutralizeFormula, restoreFormula } from "./cells.ts";
export { CsvRecordReader, DEFAULT_MAX_RECORD_CHARS, parseCsvRecords, type CsvRecord } from "./records.ts";
export { CsvFormatError, decodeUtf8, normalizeHeader, readCsvRecords, readCsvRows, readCsvRowsWith, summarizeCsv, type CsvInput, type CsvRow, type CsvSummary, type ReadCsvOptions } from "./rows.ts";
