export { readCsvRows, CsvFormatError, type CsvRow } from "./csv.ts";
