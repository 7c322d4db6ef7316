import { and, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import { importJobs, importSourceParts, isForeignKeyViolation, pgArray, queryRows, type Db } from "@shortener/db";
import { withTransaction, type SystemCtx } from "../context.ts";
import { ALIAS_TAKEN, classifyAliasConflict } from "../links/alias-conflict.ts";
import { recordImportEvent } from "../webhooks/record-event.ts";
import { recordImportFinished } from "./record-import-finished.ts";
import { checkImportRow, type CheckedRow, type ImportRow } from "./check-import-row.ts";
import type { ImportFormat } from "./formats/names.ts";
import type { RowError } from "./import-job.ts";
import { loadImportScope, type ImportScope } from "./import-scope.ts";
import { hashRowSecrets, writeImportBatch, type BatchOutcome, type SourceCheckpoint, type WritableRow } from "./write-import-batch.ts";

export const DEFAULT_BATCH_SIZE = 5000;

/** A job a worker (or the CLI) has taken: where to start again, and the counters so far. */
export type ClaimedImport = {
  id: number;
  workspaceId: number;
  defaultDomainId: number | null;
  /** How the job's file is read (CONTRACT §23): a resumed run reads it as its upload was checked. */
  format: ImportFormat;
  checkpointLine: number;
  /** Whether the job's file is stored (API jobs); the CLI streams its own file. */
  hasSource: boolean;
  totalRows: number;
  processedRows: number;
  createdRows: number;
  skippedRows: number;
  failedRows: number;
  /** A live migration's next page (null: its first page, or none left) and every cursor it has read. */
  sourceCursor: string | null;
  sourceCursorsSeen: string[];
};

export type ImportTotals = { processed: number; created: number; skipped: number; failed: number; line: number };

/**
 * Marks a queued or running job as running (keeping its first start time) and returns it with its
 * checkpoint and counters; null when it is finished, gone, or its file is still being uploaded. The
 * caller must hold the job's lock.
 */
export async function claimImport(ctx: SystemCtx, jobId: number): Promise<ClaimedImport | null> {
  const [row] = await ctx.db
    .update(importJobs)
    .set({ status: "running", startedAt: sql`coalesce(${importJobs.startedAt}, ${ctx.now().toISOString()}::timestamptz)` })
    .where(and(eq(importJobs.id, jobId), inArray(importJobs.status, ["queued", "running"]), gte(importJobs.checkpointLine, 1)))
    .returning({
      id: importJobs.id,
      workspaceId: importJobs.workspaceId,
      defaultDomainId: importJobs.defaultDomainId,
      format: importJobs.format,
      checkpointLine: importJobs.checkpointLine,
      hasSource: importJobs.hasSource,
      totalRows: importJobs.totalRows,
      processedRows: importJobs.processedRows,
      createdRows: importJobs.createdRows,
      skippedRows: importJobs.skippedRows,
      failedRows: importJobs.failedRows,
      sourceCursor: importJobs.sourceCursor,
      sourceCursorsSeen: importJobs.sourceCursorsSeen,
    });
  return row ?? null;
}

/**
 * The newest of the workspace's unfinished jobs whose idempotency key starts with `keyPrefix` (a live
 * migration's jobs: one per run, keyed by source, user and domain): the job an interrupted run resumes.
 */
export async function findOpenImportByKeyPrefix(ctx: SystemCtx, workspaceId: number, keyPrefix: string): Promise<number | null> {
  const [row] = await queryRows<{ id: number }>(
    ctx.db,
    sql`select id from import_jobs where workspace_id = ${workspaceId}::int and status in ('queued', 'running')
        and starts_with(idempotency_key, ${keyPrefix}::text) order by id desc limit 1`,
  );
  return row ? Number(row.id) : null;
}

/** The number of rows a running job expects (its progress in the dashboard): a live migration sets what its source claims. */
export async function setImportTotalRows(ctx: SystemCtx, jobId: number, total: number): Promise<void> {
  const capped = Math.max(0, Math.min(Math.trunc(total), 2_147_483_647));
  await ctx.db
    .update(importJobs)
    .set({ totalRows: capped })
    .where(and(eq(importJobs.id, jobId), eq(importJobs.status, "running")));
}

/**
 * A job's stored file, as text, a part at a time (about 1 MiB each, in order): a worker never holds
 * the whole file, and each part is one indexed read.
 */
export async function* streamImportSource(ctx: SystemCtx, jobId: number): AsyncGenerator<string> {
  for (let part = 0; ; part++) {
    const [row] = await ctx.db
      .select({ content: importSourceParts.content })
      .from(importSourceParts)
      .where(and(eq(importSourceParts.jobId, jobId), eq(importSourceParts.part, part)));
    if (!row) return;
    yield row.content;
  }
}

/** A finished job's file is dropped: its parts, and the flag that says it is stored. */
async function dropSource(db: Db, jobId: number): Promise<void> {
  await db.delete(importSourceParts).where(eq(importSourceParts.jobId, jobId));
}

/** Every row is in: the job is completed, its stored file dropped, and `total_rows` set to what was read. */
export async function completeImport(ctx: SystemCtx, jobId: number): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db
      .update(importJobs)
      .set({ status: "completed", finishedAt: ctx.now(), hasSource: false, totalRows: sql`${importJobs.processedRows}` })
      .where(eq(importJobs.id, jobId));
    await dropSource(tx.db, jobId);
    await recordImportEvent(tx, jobId);
    await recordImportFinished(tx.db, ctx.now(), jobId, "running");
  });
}

/** The file itself is unusable (malformed CSV, no url column): the job fails with a reason; rows already written stay. */
export async function failImport(ctx: SystemCtx, jobId: number, reason: string): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.update(importJobs).set({ status: "failed", finishedAt: ctx.now(), hasSource: false, failureMessage: reason }).where(eq(importJobs.id, jobId));
    await dropSource(tx.db, jobId);
    await recordImportEvent(tx, jobId);
    await recordImportFinished(tx.db, ctx.now(), jobId, "running");
  });
}

/**
 * Jobs a worker should look at: every running job that has its file stored (its worker may have died;
 * the caller's lock tells), and queued ones older than `queuedBefore` (their queue message was lost).
 * Jobs whose upload is unfinished (`checkpoint_line` 0) are not ready.
 */
export async function findImportsToResume(ctx: SystemCtx, options: { queuedBefore: Date; limit?: number }): Promise<number[]> {
  const rows = await ctx.db
    .select({ id: importJobs.id })
    .from(importJobs)
    .where(
      and(
        eq(importJobs.hasSource, true),
        gte(importJobs.checkpointLine, 1),
        or(eq(importJobs.status, "running"), and(eq(importJobs.status, "queued"), lt(importJobs.createdAt, options.queuedBefore))),
      ),
    )
    .orderBy(importJobs.id)
    .limit(options.limit ?? 100);
  return rows.map((r) => r.id);
}

/** Uploads that never finished (the process receiving them died) fail, and their partial file is dropped. */
export async function failStaleUploads(ctx: SystemCtx, startedBefore: Date): Promise<number> {
  return withTransaction(ctx, async (tx) => {
    const rows = await tx.db
      .update(importJobs)
      .set({ status: "failed", hasSource: false, finishedAt: ctx.now(), failureMessage: "The upload was interrupted before the whole file was received." })
      .where(and(eq(importJobs.status, "queued"), eq(importJobs.checkpointLine, 0), lt(importJobs.createdAt, startedBefore)))
      .returning({ id: importJobs.id });
    for (const { id } of rows) {
      await dropSource(tx.db, id);
      await recordImportEvent(tx, id);
      await recordImportFinished(tx.db, ctx.now(), id, "queued");
    }
    return rows.length;
  });
}

type PreparedBatch = { rows: WritableRow[]; rejected: RowError[]; rejectedRows: number; lastLine: number };

/** Rows checked between two turns of the event loop (~5 ms of work). */
const CHECK_SLICE = 500;

/** A turn for the event loop: I/O callbacks (the previous batch's answers) run before more CPU work. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function prepareBatch(raw: readonly ImportRow[], scope: ImportScope, now: Date): Promise<PreparedBatch> {
  const checked: CheckedRow[] = [];
  const rejected: RowError[] = [];
  let rejectedRows = 0;
  for (let i = 0; i < raw.length; i++) {
    // The batch being written needs this thread for each of its round trips (BEGIN, INSERT, …,
    // COMMIT): checking 5,000 rows in one go would leave the database idle meanwhile.
    if (i > 0 && i % CHECK_SLICE === 0) await yieldToEventLoop();
    const row = raw[i] as ImportRow;
    const result = checkImportRow(row, scope, now);
    if (result.ok) checked.push(result.row);
    else {
      rejected.push(...result.errors);
      rejectedRows++;
    }
  }
  return { rows: await hashRowSecrets(checked), rejected, rejectedRows, lastLine: raw[raw.length - 1]?.line ?? 0 };
}

export type RunImportOptions = {
  batchSize?: number;
  /** Asked after each batch is handed to the database: true stops the run there (the job stays resumable). */
  shouldStop?: () => boolean;
  /** Called after each batch commits, in file order. */
  onBatch?: (outcome: BatchOutcome, totals: ImportTotals) => void;
};

/**
 * Imports a job's rows (CONTRACT §12), streaming: rows up to the job's checkpoint are skipped (a
 * resume), the rest are checked against the job's scope and written a batch at a time, each batch
 * in one transaction with the job's counters and checkpoint. The next batch is checked while the
 * previous one is being written. Memory: two batches, whatever the file size. Returns whether every
 * row was read (false when `shouldStop` ended it early); the caller then completes the job.
 */
export async function runImport({
  ctx,
  job,
  rows,
  options = {},
}: {
  ctx: SystemCtx;
  job: ClaimedImport;
  rows: AsyncIterable<ImportRow>;
  options?: RunImportOptions;
}): Promise<{ isFinished: boolean; totals: ImportTotals }> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  async function* batches(): AsyncGenerator<ImportBatch> {
    let batch: ImportRow[] = [];
    for await (const row of rows) {
      if (row.line <= job.checkpointLine) continue;
      batch.push(row);
      if (batch.length >= batchSize) {
        yield { rows: batch };
        batch = [];
      }
    }
    if (batch.length) yield { rows: batch };
  }
  return runImportBatches({ ctx, job, batches: batches(), options });
}

/** Rows written in one transaction; a live migration's batch also moves its source cursor (`SourceCheckpoint`). */
export type ImportBatch = { rows: ImportRow[]; source?: SourceCheckpoint };

/**
 * Writes batches cut by the caller, each in one transaction with the job's counters, checkpoint (its
 * last row's line) and, for a live migration, its source cursor — so a page is never half counted as
 * done (CONTRACT §23). The next batch is checked while the previous one is written. `runImport` cuts a
 * file's rows into batches; the migration runner cuts whole pages of its source.
 */
export async function runImportBatches({
  ctx,
  job,
  batches,
  options = {},
}: {
  ctx: SystemCtx;
  job: ClaimedImport;
  batches: AsyncIterable<ImportBatch>;
  options?: RunImportOptions;
}): Promise<{ isFinished: boolean; totals: ImportTotals }> {
  const scopeOf = () => loadImportScope(ctx.db, { jobId: job.id, workspaceId: job.workspaceId, defaultDomainId: job.defaultDomainId });
  let scope = await scopeOf();
  const totals: ImportTotals = { processed: job.processedRows, created: job.createdRows, skipped: job.skippedRows, failed: job.failedRows, line: job.checkpointLine };

  const write = async (batch: ImportBatch, prepared: PreparedBatch): Promise<void> => {
    let outcome: BatchOutcome;
    const base = { jobId: job.id, workspaceId: job.workspaceId, ...(batch.source ? { source: batch.source } : {}) };
    try {
      outcome = await writeImportBatch(ctx.db, { ...base, now: ctx.now(), ...prepared });
    } catch (error) {
      // A domain, space or pixel was deleted since the scope was loaded: reload it and check the batch again.
      if (!isForeignKeyViolation(error)) throw error;
      scope = await scopeOf();
      outcome = await writeImportBatch(ctx.db, { ...base, now: ctx.now(), ...(await prepareBatch(batch.rows, scope, ctx.now())) });
    }
    totals.processed += outcome.processed;
    totals.created += outcome.created;
    totals.skipped += outcome.skipped;
    totals.failed += outcome.failed;
    totals.line = outcome.lastLine;
    options.onBatch?.(outcome, { ...totals });
  };

  let inflight: Promise<void> | undefined;
  let isStopped = false;
  try {
    for await (const batch of batches) {
      if (!batch.rows.length && !batch.source) continue;
      const prepared = await prepareBatch(batch.rows, scope, ctx.now());
      // An empty page still moves the cursor: its checkpoint stays on the last row written.
      if (!batch.rows.length) prepared.lastLine = totals.line;
      if (inflight) await inflight;
      inflight = write(batch, prepared);
      inflight.catch(() => {}); // awaited before the next batch or at the end; never left unhandled
      // PGlite runs each statement synchronously on this thread, and a chain of resolved promises never
      // lets the event loop poll: give it a turn per batch, or an embedded server stops answering.
      await yieldToEventLoop();
      if (options.shouldStop?.()) {
        isStopped = true;
        break;
      }
    }
  } catch (error) {
    // The file broke off (malformed CSV) or the source failed: let the batch being written finish, so what is committed is known.
    await inflight?.catch(() => {});
    throw error;
  }
  if (inflight) await inflight;
  return { isFinished: !isStopped, totals };
}

/**
 * A dry run: the same checks as `runImport`, plus whether each alias is free, without writing
 * anything. In-file duplicate aliases are found with a set of the file's aliases (memory grows with
 * the number of aliased rows: about 100 bytes each).
 */
export async function checkImport({
  ctx,
  workspaceId,
  defaultDomainId,
  rows,
  options = {},
}: {
  ctx: SystemCtx;
  workspaceId: number;
  defaultDomainId: number | null;
  rows: AsyncIterable<ImportRow>;
  options?: Omit<RunImportOptions, "shouldStop">;
}): Promise<{ totals: ImportTotals }> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const scope = await loadImportScope(ctx.db, { jobId: 0, workspaceId, defaultDomainId });
  const totals: ImportTotals = { processed: 0, created: 0, skipped: 0, failed: 0, line: 1 };
  const seen = new Map<string, number>();

  const check = async (raw: ImportRow[]) => {
    const errors: RowError[] = [];
    const checked: CheckedRow[] = [];
    for (const row of raw) {
      const result = checkImportRow(row, scope, ctx.now());
      if (!result.ok) errors.push(...result.errors);
      else checked.push(result.row);
    }
    let failed = raw.length - checked.length;
    const aliased = checked.filter((r) => r.alias !== null);
    const existing = new Map<string, string>();
    if (aliased.length) {
      const found = await queryRows<{ domain_id: number; alias: string; url: string }>(
        ctx.db,
        sql`select l.domain_id, l.alias, l.url from links l
            where (l.domain_id, l.alias) in (select * from unnest(${pgArray(aliased.map((r) => r.domainId))}::int[], ${pgArray(aliased.map((r) => r.alias))}::text[]))`,
      );
      for (const r of found) existing.set(`${r.domain_id}/${r.alias}`, r.url);
    }
    let created = 0;
    let skipped = 0;
    for (const row of checked) {
      if (row.alias === null) {
        created++;
        continue;
      }
      const key = `${row.domainId}/${row.alias}`;
      const earlier = seen.get(key);
      const url = existing.get(key);
      if (earlier === undefined) seen.set(key, row.line);
      if (earlier === undefined && url === undefined) {
        created++;
        continue;
      }
      const holder = earlier !== undefined ? { line: earlier } : { url: url as string };
      const conflict = classifyAliasConflict({ isChosen: true, attempt: 0, url: row.url, holder });
      if (conflict.kind === "skip") skipped++;
      else {
        // A dry run never retries: with a holder in the file or the database, the outcome is an error or a skip.
        errors.push({ line: row.line, field: "alias", message: conflict.kind === "error" ? conflict.message : ALIAS_TAKEN, alias: row.alias });
        failed++;
      }
    }
    errors.sort((a, b) => a.line - b.line);
    totals.processed += raw.length;
    totals.created += created;
    totals.skipped += skipped;
    totals.failed += failed;
    totals.line = raw[raw.length - 1]?.line ?? totals.line;
    options.onBatch?.({ processed: raw.length, created, skipped, failed, errors, lastLine: totals.line }, { ...totals });
  };

  let batch: ImportRow[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= batchSize) {
      await check(batch);
      batch = [];
    }
  }
  if (batch.length) await check(batch);
  return { totals };
}
