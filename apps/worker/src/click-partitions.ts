import { CLICK_PARTITION_MONTHS_AHEAD, deleteExpiredAuditEntries, dropExpiredClickPartitions, dropPastVisitorDays, ensureClickPartitions } from "@shortener/core";
import type { Database } from "@shortener/db";
import type { ImporterLog } from "./importer.ts";

export type ClickPartitionKeeperDeps = {
  database: Database;
  now: () => Date;
  log: ImporterLog;
  /** CLICK_RETENTION_DAYS: drop months of raw clicks older than this; undefined keeps them all. */
  retentionDays: number | undefined;
  /** AUDIT_RETENTION_DAYS: delete audit entries older than this (in batches); undefined keeps them all. */
  auditRetentionDays?: number | undefined;
  /** How often to look again after the run at start (an hour). */
  intervalMs?: number;
  monthsAhead?: number;
};

export type ClickPartitionKeeper = {
  /** Runs once now (awaited; a failure is logged, not thrown), then every `intervalMs`. */
  start(): Promise<void>;
  /**
   * One run: this month's and the next months' partitions, then retention, then the visitor salts and
   * visitors of the days over, then the audit entries past their retention (tests; the timer does it otherwise).
   */
  run(): Promise<ClickPartitionRun>;
  /** Stops the timer and waits for a run under way. */
  close(): Promise<void>;
};

/** What one run did: partitions made and dropped, visitor days deleted, audit entries deleted. */
export type ClickPartitionRun = { made: string[]; dropped: string[]; visitorDaysDropped: string[]; auditEntriesDeleted: number };

export const CLICK_PARTITION_INTERVAL_MS = 3_600_000;

/**
 * The worker role's upkeep of `clicks`' monthly partitions (CONTRACT §20,
 * docs/adr/0025-clicks-partitioned-by-month.md): at start and then hourly, core's
 * `ensureClickPartitions` makes this month and the next ones, and with CLICK_RETENTION_DAYS
 * `dropExpiredClickPartitions` drops the months past it. One timer per keeper; several processes may
 * run it at once (core serialises them). A click whose month has no partition still lands, in the
 * default partition, so a failed run costs nothing but a log line. The same hourly run deletes the
 * visitor salts and visitors (`link_visitor_sets`, `link_visitors`) of the UTC days over (plus their grace, core's `dropPastVisitorDays`,
 * CONTRACT §21): a unique visitor can no longer be recomputed once its day is past. And with
 * AUDIT_RETENTION_DAYS it deletes the audit entries older than that (core's `deleteExpiredAuditEntries`,
 * in batches of short transactions, the one delete the audit log's trigger lets through; docs/audit.md).
 */
export function createClickPartitionKeeper(deps: ClickPartitionKeeperDeps): ClickPartitionKeeper {
  const { database, now, log, retentionDays, auditRetentionDays } = deps;
  const intervalMs = deps.intervalMs ?? CLICK_PARTITION_INTERVAL_MS;
  const monthsAhead = deps.monthsAhead ?? CLICK_PARTITION_MONTHS_AHEAD;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let isStarted = false;
  let isClosed = false;

  async function run(): Promise<ClickPartitionRun> {
    const at = now();
    const made = await ensureClickPartitions(database.db, at, monthsAhead);
    const dropped = retentionDays === undefined ? [] : await dropExpiredClickPartitions(database.db, at, retentionDays);
    if (made.length || dropped.length) log.info({ made, dropped }, "click partitions updated");
    const visitorDaysDropped = await dropPastVisitorDays(database.db, at);
    if (visitorDaysDropped.length) log.info({ days: visitorDaysDropped }, "visitor salts of past days deleted");
    const auditEntriesDeleted = auditRetentionDays === undefined ? 0 : await deleteExpiredAuditEntries(database.db, at, auditRetentionDays);
    if (auditEntriesDeleted) log.info({ deleted: auditEntriesDeleted, retentionDays: auditRetentionDays }, "audit entries past their retention deleted");
    return { made, dropped, visitorDaysDropped, auditEntriesDeleted };
  }

  function runLogged(): Promise<unknown> {
    running = running.then(run).catch((error: unknown) => log.error({ err: error }, "click partition upkeep failed; it will be retried"));
    return running;
  }

  return {
    async start() {
      if (isStarted || isClosed) return;
      isStarted = true;
      await runLogged();
      if (isClosed) return;
      timer = setInterval(() => void runLogged(), intervalMs);
      timer.unref();
    },
    run,
    async close() {
      isClosed = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
