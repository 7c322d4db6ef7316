import type PgBoss from "pg-boss";
import { DEFAULT_BATCH_SIZE, failImport, failStaleUploads, findImportsToResume, type EventData } from "@shortener/core";
import { isConnectionError, type Database } from "@shortener/db";
import { tryLockJob } from "./locks.ts";
import { ImportInterruptedError, processStoredJob } from "./process-job.ts";
import { IMPORT_QUEUE, startBoss, type JobMessage } from "./queue.ts";

export type ImporterConfig = {
  /**
   * Rows a batch (one transaction each). Default: 5,000 on Postgres; 500 on PGlite, which runs each
   * statement on the server's own thread, so smaller batches keep the embedded service answering.
   */
  batchSize: number | undefined;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How often pg-boss looks for new messages. */
  pollIntervalSeconds: number;
  /** How often the sweep looks for orphaned jobs (their worker died) and queued jobs whose message was lost. */
  sweepIntervalMs: number;
  /** A queued job older than this with no worker on it is taken by the sweep. */
  queuedGraceMs: number;
  /** An upload still unfinished after this long was abandoned (its server died): the job fails. */
  staleUploadMs: number;
  /**
   * Runs of one job that may end in an error other than a lost database before the job fails (a fault
   * that would recur on every retry must not keep a job `running`, and its file stored, for ever).
   */
  maxUnexpectedErrors: number;
};

export const PGLITE_BATCH_SIZE = 500;

export const DEFAULT_IMPORTER_CONFIG: ImporterConfig = {
  batchSize: undefined,
  concurrency: 1,
  pollIntervalSeconds: 1,
  sweepIntervalMs: 10_000,
  queuedGraceMs: 30_000,
  staleUploadMs: 6 * 3600_000,
  maxUnexpectedErrors: 3,
};

export type ImporterLog = {
  debug?(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
};

export type ImporterDeps = {
  database: Database;
  now: () => Date;
  log: ImporterLog;
  config?: Partial<ImporterConfig>;
  /** Renders `import.completed` webhook events (the API's JSON of a job); without it none are recorded. */
  events?: EventData;
  /** Called after each committed batch with its rows by outcome (metrics; CONTRACT §16). */
  onRows?: (rows: { created: number; skipped: number; failed: number }) => void;
};

export type Importer = {
  /** Starts consuming jobs: pg-boss messages, and a sweep (at once, then periodically) for orphaned jobs. */
  start(): Promise<void>;
  /** Queues a job created with `createImport` (the API calls this after the job is committed). */
  enqueue(jobId: number): Promise<void>;
  /** Stops taking jobs; running ones stop after their current batch, resumable. */
  close(): Promise<void>;
};

/**
 * The import worker (CONTRACT §12): runs jobs whose file is stored in `import_jobs.source`, from a
 * pg-boss queue in the same database (Postgres or PGlite; docs/adr/0009-import-queue.md). A job is
 * run under a lock, so two workers never run one job; a worker killed mid-job leaves it `running`
 * with its checkpoint, and the next sweep (any worker's, or this one's after a restart) resumes it.
 */
export function createImporter(deps: ImporterDeps): Importer {
  const config = { ...DEFAULT_IMPORTER_CONFIG, ...deps.config };
  const { database, log } = deps;
  const batchSize = config.batchSize ?? (database.driver === "pglite" ? PGLITE_BATCH_SIZE : DEFAULT_BATCH_SIZE);
  const ctx = { db: database.db, now: deps.now, ...(deps.events ? { events: deps.events } : {}) };
  let boss: Promise<PgBoss> | undefined;
  let isWorking = false;
  let isClosing = false;
  let sweepTimer: NodeJS.Timeout | undefined;
  const running = new Map<number, Promise<void>>();
  /** Unexpected errors per job in this process (a lost database does not count). */
  const unexpected = new Map<number, number>();

  /**
   * A job's run ended in an error. A lost database leaves the job to be resumed. Any other error is
   * retried (the sweep takes the job again) until it has happened `maxUnexpectedErrors` times: then the
   * job fails with a reason naming the line its committed rows reach, and its stored file is dropped.
   */
  async function onJobError(jobId: number, error: unknown): Promise<void> {
    const cause = error instanceof ImportInterruptedError ? error.cause : error;
    if (isConnectionError(cause)) throw error;
    const count = (unexpected.get(jobId) ?? 0) + 1;
    unexpected.set(jobId, count);
    if (count < config.maxUnexpectedErrors) throw error;
    unexpected.delete(jobId);
    log.error({ err: cause, jobId }, "import failed on an unexpected error");
    const line = error instanceof ImportInterruptedError ? error.line : 1;
    await failImport(ctx, jobId, `The import stopped on an unexpected error after line ${line} (${count} tries); the rows up to that line were imported.`);
  }
  const waiting: Array<() => void> = [];
  let busy = 0;

  const bossOf = () => {
    boss ??= startBoss(database, (error) => log.error({ err: error }, "import queue error"));
    return boss;
  };

  /** A slot among `concurrency`; resolves when one is free. */
  const acquireSlot = async () => {
    while (busy >= config.concurrency && !isClosing) await new Promise<void>((resolve) => waiting.push(resolve));
    busy++;
  };
  const releaseSlot = () => {
    busy--;
    waiting.shift()?.();
  };

  async function runJob(jobId: number): Promise<void> {
    if (isClosing || running.has(jobId)) return;
    await acquireSlot();
    if (isClosing || running.has(jobId)) return releaseSlot();
    const lock = await tryLockJob(database, jobId);
    if (!lock) return releaseSlot();
    const task = (async () => {
      try {
        log.info({ jobId }, "import started");
        const result = await processStoredJob(ctx, jobId, {
          batchSize,
          shouldStop: () => isClosing,
          onBatch: (outcome, totals) => {
            deps.onRows?.({ created: outcome.created, skipped: outcome.skipped, failed: outcome.failed });
            log.debug?.({ jobId, ...totals }, "import batch committed");
          },
        }).catch(async (error: unknown) => {
          await onJobError(jobId, error);
          return { outcome: "failed" as const };
        });
        unexpected.delete(jobId);
        log.info({ jobId, ...result }, `import ${result.outcome}`);
      } finally {
        await lock.release();
      }
    })();
    running.set(jobId, task);
    try {
      await task;
    } finally {
      running.delete(jobId);
      releaseSlot();
    }
  }

  function logInterrupted(jobId: number, error: unknown): void {
    const cause = error instanceof ImportInterruptedError ? error.cause : error;
    if (isConnectionError(cause)) log.warn({ jobId, reason: (cause as Error).message }, "import interrupted: the database is unreachable; it will be resumed");
    else log.error({ err: cause, jobId }, "import interrupted; it will be retried");
  }

  async function sweep(): Promise<void> {
    if (isClosing) return;
    const stale = await failStaleUploads(ctx, new Date(deps.now().getTime() - config.staleUploadMs));
    if (stale) log.warn({ jobs: stale }, "failed imports whose upload never finished");
    const ids = await findImportsToResume(ctx, { queuedBefore: new Date(deps.now().getTime() - config.queuedGraceMs) });
    for (const id of ids) {
      if (isClosing || busy >= config.concurrency) break;
      if (running.has(id)) continue;
      void runJob(id).catch((error: unknown) => logInterrupted(id, error));
    }
  }

  return {
    async start() {
      if (isWorking) return;
      isWorking = true;
      const b = await bossOf();
      await b.work<JobMessage>(IMPORT_QUEUE, { pollingIntervalSeconds: config.pollIntervalSeconds, batchSize: 1 }, async (jobs) => {
        // A run that ends in an error leaves its job to the sweep, which resumes (or fails) it.
        for (const job of jobs) await runJob(job.data.jobId).catch((error: unknown) => logInterrupted(job.data.jobId, error));
      });
      const tick = () => sweep().catch((error: unknown) => log.error({ err: error }, "import sweep failed"));
      await tick();
      sweepTimer = setInterval(tick, config.sweepIntervalMs);
      sweepTimer.unref();
    },
    async enqueue(jobId) {
      const b = await bossOf();
      await b.send(IMPORT_QUEUE, { jobId } satisfies JobMessage);
    },
    async close() {
      isClosing = true;
      if (sweepTimer) clearInterval(sweepTimer);
      while (waiting.length) waiting.shift()?.();
      await Promise.allSettled([...running.values()]);
      if (boss) {
        const b = await boss.catch(() => undefined);
        await b?.stop({ graceful: true, wait: true, close: false, timeout: 30_000 });
      }
    },
  };
}
