import {
  claimImport,
  completeImport,
  failImport,
  ImportGoneError,
  runImport,
  streamImportSource,
  type ImportRow,
  type ImportTotals,
  type RunImportOptions,
  type SystemCtx,
} from "@shortener/core";
import { CsvFormatError, readCsvRows } from "./csv.ts";
import { Readable } from "node:stream";

/** The file cannot be imported at all: the job fails with this as its reason. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportFileError";
  }
}

/** The CSV rows of a file, after checking that its header has a `url` column. */
export async function* importRowsOf(rows: AsyncIterable<{ line: number; fields: Record<string, string> }>): AsyncGenerator<ImportRow> {
  let isFirst = true;
  for await (const row of rows) {
    if (isFirst && !Object.hasOwn(row.fields, "url")) throw new ImportFileError("The file has no url column.");
    isFirst = false;
    yield row;
  }
}

/** Why a file failed, in words for the job's `failure_reason`. */
export function describeFileError(error: unknown): string | undefined {
  if (error instanceof ImportFileError) return error.message;
  if (error instanceof CsvFormatError) return `The file is not valid CSV near line ${error.line}: ${error.message}`;
  return undefined;
}

/**
 * The stored file's parts (1 MiB each) cut into ~64 KiB pieces: the CSV parser turns a whole chunk into
 * records before it can pause, so a big chunk would be ~100,000 records in memory at once. A piece never
 * ends between the two halves of a surrogate pair (an emoji would turn into U+FFFD).
 */
export async function* smallPieces(slices: AsyncIterable<string>, size = 64 * 1024): AsyncGenerator<string> {
  for await (const text of slices) {
    for (let i = 0; i < text.length; ) {
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
 * database a part at a time and its rows from the checkpoint on, complete it. The caller holds the job's lock. A malformed file fails the job; any
 * other error (the database went away) is thrown and the job stays resumable.
 */
export async function processStoredJob(ctx: SystemCtx, jobId: number, options: RunImportOptions): Promise<JobResult> {
  const job = await claimImport(ctx, jobId);
  if (!job) return { outcome: "gone" };
  if (!job.hasSource) return { outcome: "gone" };
  const source = Readable.from(smallPieces(streamImportSource(ctx, jobId)), { objectMode: false, highWaterMark: 64 * 1024 });
  try {
    const { isFinished, totals } = await runImport({ ctx, job, rows: importRowsOf(readCsvRows(source)), options });
    if (!isFinished) return { outcome: "stopped", totals };
    await completeImport(ctx, jobId);
    return { outcome: "completed", totals };
  } catch (error) {
    if (error instanceof ImportGoneError) return { outcome: "gone" };
    const reason = describeFileError(error);
    if (reason === undefined) throw error;
    await failImport(ctx, jobId, reason);
    return { outcome: "failed" };
  } finally {
    source.destroy();
  }
}
