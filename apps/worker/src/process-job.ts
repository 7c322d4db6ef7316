import {
  claimImport,
  completeImport,
  EARLIER_EXPORT_COLUMNS,
  EXPORT_COLUMNS,
  failImport,
  importFileReading,
  ImportGoneError,
  runImport,
  streamImportSource,
  type ClaimedImport,
  type ImportFormat,
  type ImportRow,
  type ImportTotals,
  type RunImportOptions,
  type SystemCtx,
} from "@shortener/core";
import { CsvFormatError, readCsvRows, readCsvRowsWith } from "@shortener/csv";

/** The file cannot be imported at all: the job fails with this as its reason. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportFileError";
  }
}

/**
 * A job stopped on an error that is not the file's fault (the database went away, or a fault of ours):
 * the line its committed rows reach, and the error as `cause`.
 */
export class ImportInterruptedError extends Error {
  constructor(
    readonly line: number,
    options: { cause: unknown },
  ) {
    super(`import interrupted after line ${line}`, options);
    this.name = "ImportInterruptedError";
  }
}

/**
 * The rows of an import file (text or bytes), as core takes them: only the columns its format reads,
 * and a row the CSV reader could not read as a row error. `csv` (the default): a file with exactly the
 * export's header is one of our exports, and its cells' formula neutralisation is undone, so it
 * imports back to the exported values (CONTRACT §17). Another service's export (§23): each record is
 * translated by its format into an import row. Nothing in the bytes can make this throw except a
 * header that is missing, unreadable or not the format's (ImportFileError, CsvFormatError).
 */
export function importRowsOf(input: AsyncIterable<string | Uint8Array>, format: ImportFormat = "csv"): AsyncGenerator<ImportRow> {
  const reading = importFileReading(format);
  const onHeader = (names: string[]) => {
    const problem = reading.checkHeader(names);
    if (problem) throw new ImportFileError(problem);
  };
  if (!reading.compile) return readCsvRows(input, { columns: reading.columns, ownHeader: EXPORT_COLUMNS, earlierOwnHeaders: [EARLIER_EXPORT_COLUMNS], onHeader });
  // Each readable record translated into an import row (same line) by a translator compiled for the
  // file's header; an unreadable one stays a row error.
  return readCsvRowsWith(input, { headerKey: reading.headerKey, onHeader, compile: reading.compile });
}

/** Why a file failed, in words for the job's `failure_reason`. */
export function describeFileError(error: unknown): string | undefined {
  if (error instanceof ImportFileError) return error.message;
  if (error instanceof CsvFormatError) return `The file cannot be read at line ${error.line}: ${error.message}`;
  return undefined;
}
/**
 * The stored file's parts (1 MiB each) cut into ~64 KiB pieces: the CSV parser turns a whole chunk into
 * records before it can pause, so a big chunk would be ~100,000 records in memory at once. A piece never
 * ends between the two halves of a surrogate pair (an emoji would turn into U+FFFD).
 */
export async function* smallPieces(slices: AsyncIterable<string>, size = 64 * 1024): AsyncGenerator<string> {
  for await (const text of slices) {
    for (let i = 0; i < text.length;) {
      let end = Math.min(i + size, text.length);
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
      yield text.slice(i, end);
      i = end;
    }
  }
}

/** How a job's run ended; `reason` says why a failed one failed (the file's fault). */
export type JobResult = { outcome: "completed" | "stopped"; totals: ImportTotals } | { outcome: "failed"; reason?: string } | { outcome: "gone" };

/**
 * The one lifecycle of a claimed job, for the worker and the CLI alike: its rows from the checkpoint
 * on, then the job completed. Stopped early (`shouldStop`): "stopped", the job stays resumable. A file
 * without a usable header, or one the CSV reader cannot go on with, fails the job with the reason (rows
 * already written stay). The job row gone (its user deleted): "gone". Any other error is thrown as an
 * ImportInterruptedError carrying the line its committed rows reach (the job stays resumable). The
 * caller holds the job's lock.
 */
export async function runClaimedJob(ctx: SystemCtx, job: ClaimedImport, rows: AsyncIterable<ImportRow>, options: RunImportOptions): Promise<JobResult> {
  let line = job.checkpointLine;
  try {
    const { isFinished, totals } = await runImport({
      ctx,
      job,
      rows,
      options: { ...options, onBatch: (outcome, t) => ((line = t.line), options.onBatch?.(outcome, t)) },
    });
    if (!isFinished) return { outcome: "stopped", totals };
    await completeImport(ctx, job.id);
    return { outcome: "completed", totals };
  } catch (error) {
    if (error instanceof ImportGoneError) return { outcome: "gone" };
    const reason = describeFileError(error);
    if (reason === undefined) throw new ImportInterruptedError(line, { cause: error });
    await failImport(ctx, job.id, reason);
    return { outcome: "failed", reason };
  }
}

/**
 * Runs (or resumes) one job whose file is stored in the database (the worker's jobs): claim it, then
 * `runClaimedJob` over the file streamed from the database a part at a time. The caller holds the
 * job's lock and decides whether to retry an interrupted job (see `createImporter`).
 */
export async function processStoredJob(ctx: SystemCtx, jobId: number, options: RunImportOptions): Promise<JobResult> {
  const job = await claimImport(ctx, jobId);
  if (!job?.hasSource) return { outcome: "gone" };
  return runClaimedJob(ctx, job, importRowsOf(smallPieces(streamImportSource(ctx, jobId)), job.format), options);
}
