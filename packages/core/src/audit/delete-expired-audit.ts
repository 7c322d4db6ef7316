import { sql } from "drizzle-orm";
import { queryRows, type Db } from "@shortener/db";

/** Entries deleted per transaction by the retention job: short transactions, short locks, whatever the backlog. */
export const AUDIT_RETENTION_BATCH = 5000;

/**
 * AUDIT_RETENTION_DAYS (CONTRACT §24): deletes the audit entries older than `retentionDays`, oldest first,
 * `batchSize` at a time, each batch in its own transaction. It is the one writer allowed to delete: the
 * trigger of migration 0022 refuses any UPDATE, DELETE or TRUNCATE of `audit_log` unless the transaction
 * set `shortener.audit_retention` to `on` (set_config(…, true): for that transaction only). Returns how
 * many entries went.
 */
export async function deleteExpiredAuditEntries(db: Db, now: Date, retentionDays: number, batchSize = AUDIT_RETENTION_BATCH): Promise<number> {
  if (!Number.isInteger(retentionDays) || retentionDays < 1) throw new Error(`retentionDays must be an integer ≥ 1, not ${retentionDays}`);
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
  let deleted = 0;
  for (;;) {
    const n = await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('shortener.audit_retention', 'on', true)`);
      const [row] = await queryRows<{ n: number }>(
        tx as unknown as Db,
        sql`with gone as (
              delete from audit_log where id in (select id from audit_log where created_at < ${cutoff}::timestamptz order by created_at, id limit ${batchSize})
              returning 1)
            select count(*)::int as n from gone`,
      );
      return row?.n ?? 0;
    });
    deleted += n;
    if (n < batchSize) return deleted;
  }
}
