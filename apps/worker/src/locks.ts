import type { Database } from "@shortener/db";

/** An arbitrary constant: with the job id, the advisory lock a worker holds while it runs that job. */
const IMPORT_LOCK = 727_003;

export type JobLock = { release(): Promise<void> };

const heldHere = new WeakMap<Database, Set<number>>();

/**
 * Takes job `jobId` for this process, or returns null when someone else has it. On Postgres the lock is
 * a session advisory lock on a reserved connection: it goes away with the process, however that ends,
 * which is how the others' sweep knows a job was orphaned. Behind PgBouncer in transaction mode the
 * connection is a direct one (`Database.direct`): a pooled session would carry the lock to other clients'
 * transactions and could not release it. PGlite is one process (its data folder is locked), so a set in
 * memory is enough.
 */
export async function tryLockJob(database: Database, jobId: number): Promise<JobLock | null> {
  const held = heldHere.get(database) ?? new Set<number>();
  heldHere.set(database, held);
  if (held.has(jobId)) return null;
  held.add(jobId);
  const client = database.direct;
  if (!client) return { release: async () => void held.delete(jobId) };
  let reserved: Awaited<ReturnType<typeof client.reserve>> | undefined;
  try {
    reserved = await client.reserve();
    const [row] = await reserved`select pg_try_advisory_lock(${IMPORT_LOCK}, ${jobId}) as ok`;
    if (!row?.ok) {
      reserved.release();
      held.delete(jobId);
      return null;
    }
  } catch (error) {
    reserved?.release();
    held.delete(jobId);
    throw error;
  }
  const connection = reserved;
  return {
    async release() {
      await connection`select pg_advisory_unlock(${IMPORT_LOCK}, ${jobId})`.catch(() => {});
      connection.release();
      held.delete(jobId);
    },
  };
}
