export { IMPORT_FORMATS, type ImportFormat } from "@shortener/vocabulary";
