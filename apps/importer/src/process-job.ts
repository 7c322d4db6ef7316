import {
  claimImport,
  completeImport,
  EXPORT_COLUMNS,
  failImport,
  IMPORT_COLUMNS,
  ImportGoneError,
  runImport,
  streamImportSource,
  type ImportRow,
  type ImportTotals,
  type RunImportOptions,
  type SystemCtx,
} from "@shortener/core";
import { CsvFormatError, readCsvRows } from "@shortener/csv";

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

/** An import file's header must name a url column. */
function checkHeader(names: string[]): void {
  if (!names.length) throw new ImportFileError("The file is empty.");
  if (!names.includes("url")) throw new ImportFileError("The file has no url column.");
}

/**
 * The rows of an import file (text or bytes), as core takes them: only the import's columns, and a row
 * the CSV reader could not read as a row error. A file with exactly the export's header is one of our
 * exports: its cells' formula neutralisation is undone, so it imports back to the exported values
 * (CONTRACT §17). Nothing in the bytes can make this throw except a
 * header that is missing, unreadable or without a url column (ImportFileError, CsvFormatError).
 */
export function importRowsOf(input: AsyncIterable<string | Uint8Array>): AsyncGenerator<ImportRow> {
  return readCsvRows(input, { columns: IMPORT_COLUMNS, ownHeader: EXPORT_COLUMNS, onHeader: checkHeader });
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

export type JobResult = { outcome: "completed" | "stopped" | "failed" | "gone"; totals?: ImportTotals };

/**
 * Runs (or resumes) one job whose file is stored in the database: claim it, stream the file from the
 * database a part at a time and its rows from the checkpoint on, complete it. The caller holds the
 * job's lock. Unreadable rows are row errors; a file without a usable header fails the job. Any other
 * error is thrown as an ImportInterruptedError (the job stays resumable; the caller decides whether to
 * retry it: see `createImporter`).
 */
export async function processStoredJob(ctx: SystemCtx, jobId: number, options: RunImportOptions): Promise<JobResult> {
  const job = await claimImport(ctx, jobId);
  if (!job) return { outcome: "gone" };
  if (!job.hasSource) return { outcome: "gone" };
  let line = job.checkpointLine;
  try {
    const { isFinished, totals } = await runImport({
      ctx,
      job,
      rows: importRowsOf(smallPieces(streamImportSource(ctx, jobId))),
      options: { ...options, onBatch: (outcome, t) => ((line = t.line), options.onBatch?.(outcome, t)) },
    });
    if (!isFinished) return { outcome: "stopped", totals };
    await completeImport(ctx, jobId);
    return { outcome: "completed", totals };
  } catch (error) {
    if (error instanceof ImportGoneError) return { outcome: "gone" };
    const reason = describeFileError(error);
    if (reason === undefined) throw new ImportInterruptedError(line, { cause: error });
    await failImport(ctx, jobId, reason);
    return { outcome: "failed" };
  }
}
