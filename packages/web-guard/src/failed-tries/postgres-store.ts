import { sql } from "drizzle-orm";
import { queryRows, type Database } from "@shortener/db";
import type { TryStore } from "./store.ts";

/** Expired rows deleted per sweep, through the `expires_at` index: a sweep never scans the table. */
const SWEEP_BATCH = 1_000;

/**
 * Counters in the `failed_tries` table, shared by every process on the database (Postgres, or PGlite in
 * embedded mode). A try is one upsert on the primary key, atomic under concurrency (the row lock of
 * `on conflict do update`), so its cost does not grow with the table. Expired rows are swept in batches
 * of 1,000 every `sweepMs` (default a minute) in the background.
 */
export function createPostgresStore(database: Database, options: { sweepMs?: number; now?: () => number } = {}): TryStore {
  const { db } = database;
  const now = options.now ?? Date.now;
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweepFailedTries(database, now())
      .catch(() => {})
      .finally(() => (sweeping = undefined));
  }, options.sweepMs ?? 60_000);
  timer.unref();

  return {
    name: "postgres",
    async add(key, windowMs, at) {
      const nowIso = new Date(at).toISOString();
      const [row] = await queryRows<{ count: number; reset_at: string | number }>(
        db,
        sql`insert into failed_tries as f (key, count, expires_at)
            values (${key}, 1, ${new Date(at + windowMs).toISOString()}::timestamptz)
            on conflict (key) do update set
              count = case when f.expires_at <= ${nowIso}::timestamptz then 1 else f.count + 1 end,
              expires_at = case when f.expires_at <= ${nowIso}::timestamptz then excluded.expires_at else f.expires_at end
            returning count, (extract(epoch from expires_at) * 1000)::float8 as reset_at`,
      );
      if (!row) throw new Error("failed_tries upsert returned no row");
      return { count: Number(row.count), resetAt: Number(row.reset_at) };
    },
    async remove(key, at) {
      await db.execute(
        sql`update failed_tries set count = count - 1
            where key = ${key} and count > 0 and expires_at > ${new Date(at).toISOString()}::timestamptz`,
      );
    },
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}

/** Deletes up to 1,000 expired rows, oldest first (the store's timer; tests call it directly). */
export async function sweepFailedTries(database: Database, now: number): Promise<void> {
  // `key = any(array(…))`, not `key in (…)`: the planner may hash-join an IN list against the whole
  // table; an array of at most 1,000 keys is looked up through the primary key. The second condition
  // keeps a key whose window was opened again meanwhile.
  const at = new Date(now).toISOString();
  await database.db.execute(sql`
    delete from failed_tries
    where key = any(array(select key from failed_tries where expires_at <= ${at}::timestamptz order by expires_at limit ${SWEEP_BATCH}))
      and expires_at <= ${at}::timestamptz`);
}
