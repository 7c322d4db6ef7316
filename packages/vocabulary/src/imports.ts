/** An import job's states (CONTRACT §12), in the order a job goes through them. */
export const IMPORT_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
