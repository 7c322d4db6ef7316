import { and, asc, eq, gt, or } from "drizzle-orm";
import { importErrors, importJobs, type Db } from "@shortener/db";
import type { ImportFormat } from "./formats/names.ts";
import type { ImportStatus } from "./schemas.ts";

/** An import job as core returns it. */
export type ImportJob = {
  id: number;
  workspaceId: number;
  status: ImportStatus;
  defaultDomainId: number | null;
  /** How the file is read: `csv` or another service's export (CONTRACT §23). */
  format: ImportFormat;
  totalRows: number;
  processedRows: number;
  createdRows: number;
  skippedRows: number;
  failedRows: number;
  /** Why a failed job stopped (a malformed file, a file without a url column); null otherwise. */
  failureReason: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
};

/** One rejected row: `line` is the file's line number (the header is line 1). */
export type RowError = { line: number; field: string | null; message: string; alias?: string | null };

/** At most this many row errors come with a job (`GET /imports/{id}`); the errors CSV has them all. */
export const JOB_ERRORS_SHOWN = 1000;

export const importJobColumns = {
  id: importJobs.id,
  workspaceId: importJobs.workspaceId,
  status: importJobs.status,
  defaultDomainId: importJobs.defaultDomainId,
  format: importJobs.format,
  totalRows: importJobs.totalRows,
  processedRows: importJobs.processedRows,
  createdRows: importJobs.createdRows,
  skippedRows: importJobs.skippedRows,
  failedRows: importJobs.failedRows,
  failureReason: importJobs.failureMessage,
  createdAt: importJobs.createdAt,
  startedAt: importJobs.startedAt,
  finishedAt: importJobs.finishedAt,
};

/** One of the user's jobs, or undefined (another user's job does not exist for them). */
export async function findOwnedImport(db: Db, workspaceId: number, id: number): Promise<ImportJob | undefined> {
  const [row] = await db
    .select(importJobColumns)
    .from(importJobs)
    .where(and(eq(importJobs.id, id), eq(importJobs.workspaceId, workspaceId)));
  return row;
}

/** Row errors of a job in file order, after (`line`, `id`) when given: one page of a keyset walk. */
export async function findRowErrors(db: Db, jobId: number, limit: number, after?: { line: number; id: number }): Promise<Array<RowError & { id: number }>> {
  return db
    .select({ id: importErrors.id, line: importErrors.line, field: importErrors.field, message: importErrors.message, alias: importErrors.alias })
    .from(importErrors)
    .where(and(eq(importErrors.jobId, jobId), after ? or(gt(importErrors.line, after.line), and(eq(importErrors.line, after.line), gt(importErrors.id, after.id))) : undefined))
    .orderBy(asc(importErrors.line), asc(importErrors.id))
    .limit(limit);
}
