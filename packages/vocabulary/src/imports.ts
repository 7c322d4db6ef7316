/** An import job's states (CONTRACT §12), in the order a job goes through them. */
export const IMPORT_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Every `format=` an import takes (CONTRACT §23): `csv` (the default, §12) and each service's own export file. */
export const IMPORT_FORMATS = ["csv", "bitly", "rebrandly", "shortio", "dub", "shlink", "yourls", "kutt", "phpshort"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Each format as people name it (the dashboard's choice, the docs). */
export const IMPORT_FORMAT_LABELS: Record<ImportFormat, string> = {
  csv: "CSV (this service's columns)",
  bitly: "Bitly export",
  rebrandly: "Rebrandly export",
  shortio: "Short.io export",
  dub: "Dub export",
  shlink: "Shlink export",
  yourls: "YOURLS (yourls_url table as CSV)",
  kutt: "Kutt (links table as CSV)",
  phpshort: "phpShort export",
};
