import { queryRows, sql, type Db } from "@shortener/db";

/*
 * `clicks` is partitioned by UTC month of `created_at` (CONTRACT §20, migration 0015,
 * docs/adr/0025-clicks-partitioned-by-month.md): `clicks_YYYY_MM` holds the clicks from the month's first
 * instant (UTC) to the next month's, and `clicks_default` any click outside the partitions made (a clock
 * far off, a month not made yet). The service makes the partitions ahead of time and drops whole ones
 * past the retention; no extension is needed, so PGlite does the same.
 */

/** Months made ahead of the current one. */
export const CLICK_PARTITION_MONTHS_AHEAD = 2;

/** The catch-all partition: clicks whose month has no partition of its own. */
export const CLICK_DEFAULT_PARTITION = "clicks_default";

/** Serialises partition changes between processes (an arbitrary constant, like the migrator's). */
const PARTITION_LOCK = 727_015;

export type ClickPartition = { name: string; from: Date; to: Date };

/** The first instant (UTC) of the month `offset` months after `at`'s. */
function monthStart(at: Date, offset = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
}

/** `clicks_2026_07` for July 2026. */
export function clickPartitionName(month: Date): string {
  return `clicks_${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** The monthly partitions of `clicks` (not the default one), oldest first, with their bounds. */
export async function listClickPartitions(db: Db): Promise<ClickPartition[]> {
  // pg_get_expr gives "FOR VALUES FROM ('…') TO ('…')" with the bounds printed in the session's time
  // zone and date style; cast back in the same session, they are the bounds' instants.
  const rows = await queryRows<{ name: string; from: string | null; to: string | null }>(
    db,
    sql`select name, to_char(bounds[1]::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "from",
               to_char(bounds[2]::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "to"
        from (
          select c.relname::text as name, regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)') as bounds
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = to_regclass('clicks')
        ) p
        where bounds is not null
        order by bounds[1]::timestamptz`,
  );
  return rows.flatMap((r) => (r.from && r.to ? [{ name: r.name, from: new Date(r.from), to: new Date(r.to) }] : []));
}

const isDuplicate = (error: unknown): boolean => {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    // duplicate_table, unique_violation (two catalog inserts racing)
    if (code === "42P07" || code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
};

/**
 * Makes the partition of `now`'s month and of the `monthsAhead` months after it, those missing.
 * Idempotent, and safe in several processes at once: each month is made in its own transaction under
 * an advisory lock, after checking it is still missing (and a duplicate is taken as made). A month is
 * made as a plain table, given the rows the default partition holds for it, then attached — attaching
 * locks the parent only against other schema changes, so clicks keep being written meanwhile (only
 * the default partition, normally empty, is locked while it is checked). Returns the names made.
 */
export async function ensureClickPartitions(db: Db, now: Date, monthsAhead = CLICK_PARTITION_MONTHS_AHEAD): Promise<string[]> {
  const made: string[] = [];
  const existing = new Set((await listClickPartitions(db)).map((p) => p.name));
  for (let offset = 0; offset <= monthsAhead; offset++) {
    const from = monthStart(now, offset);
    const name = clickPartitionName(from);
    if (existing.has(name)) continue;
    try {
      if (await makePartition(db, name, from, monthStart(now, offset + 1))) made.push(name);
    } catch (error) {
      if (!isDuplicate(error)) throw error;
    }
  }
  return made;
}

async function makePartition(db: Db, name: string, from: Date, to: Date): Promise<boolean> {
  const table = sql.identifier(name);
  const bounds = { from: from.toISOString(), to: to.toISOString() };
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK})`);
    const [found] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from pg_class where relname = ${name} and relkind in ('r', 'p')`);
    if (found?.n) return false;
    await tx.execute(sql`create table ${table} (like clicks including defaults)`);
    const [hasDefault] = await queryRows<{ exists: boolean }>(tx, sql`select to_regclass(${CLICK_DEFAULT_PARTITION}) is not null as exists`);
    if (hasDefault?.exists) {
      await tx.execute(sql`
        with moved as (
          delete from ${sql.identifier(CLICK_DEFAULT_PARTITION)}
          where created_at >= ${bounds.from}::timestamptz and created_at < ${bounds.to}::timestamptz
          returning link_id, created_at, country, platform, browser, device, language, referrer, count
        )
        insert into ${table} (link_id, created_at, country, platform, browser, device, language, referrer, count)
        select link_id, created_at, country, platform, browser, device, language, referrer, count from moved`);
    }
    await tx.execute(sql`alter table clicks attach partition ${table} for values from (${sql.raw(`'${bounds.from}'`)}) to (${sql.raw(`'${bounds.to}'`)})`);
    return true;
  });
}

/**
 * Drops the monthly partitions whose whole range is older than `retentionDays` days before `now`
 * (CLICK_RETENTION_DAYS), and deletes the default partition's clicks older than that. A partition that
 * still holds one click inside the retention stays. Statistics do not read raw clicks (they come from
 * the rollups, ADR 0011), so they stay complete. Returns the names dropped.
 */
export async function dropExpiredClickPartitions(db: Db, now: Date, retentionDays: number): Promise<string[]> {
  if (!Number.isInteger(retentionDays) || retentionDays < 1) throw new Error(`retentionDays must be an integer ≥ 1, not ${retentionDays}`);
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const dropped: string[] = [];
  for (const partition of await listClickPartitions(db)) {
    if (partition.to.getTime() > cutoff.getTime()) break;
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK})`);
      await tx.execute(sql`drop table if exists ${sql.identifier(partition.name)}`);
    });
    dropped.push(partition.name);
  }
  const [hasDefault] = await queryRows<{ exists: boolean }>(db, sql`select to_regclass(${CLICK_DEFAULT_PARTITION}) is not null as exists`);
  if (hasDefault?.exists) await db.execute(sql`delete from ${sql.identifier(CLICK_DEFAULT_PARTITION)} where created_at < ${cutoff.toISOString()}::timestamptz`);
  return dropped;
}
