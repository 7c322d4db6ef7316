import type { ImportJob, RowError } from "@shortener/core";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An import job as REST (and later tRPC) returns it (CONTRACT §12), plus `domain_id` (the default domain), `format` (how the file is read, §23) and `failure_reason`. */
export function importJson(job: ImportJob, errors?: RowError[]) {
  return {
    id: job.id,
    status: job.status,
    domain_id: job.defaultDomainId,
    format: job.format,
    total_rows: job.totalRows,
    processed_rows: job.processedRows,
    created_rows: job.createdRows,
    skipped_rows: job.skippedRows,
    failed_rows: job.failedRows,
    failure_reason: job.failureReason,
    ...(errors ? { errors: errors.map((e) => ({ line: e.line, field: e.field, message: e.message })) } : {}),
    created_at: iso(job.createdAt),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
  };
}
