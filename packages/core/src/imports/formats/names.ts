/** Every `format=` an import takes (CONTRACT §23): `csv` (the default, §12) and each service's export file. */
export const IMPORT_FORMATS = ["csv", "bitly", "rebrandly", "shortio", "dub", "shlink", "yourls", "kutt", "phpshort"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
