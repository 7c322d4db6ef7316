import type { Database } from "@shortener/db";

/** With a webhook id, the advisory lock a worker holds while it sends that webhook's deliveries. */
const LANE_LOCK = 727_005;

export type LaneLocks = {
  /** Takes webhook `id`'s lane for this process; false when another process (or this one) has it. */
  tryLock(id: number): Promise<boolean>;
  unlock(id: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * One sender per webhook at a time, across processes, so its deliveries go out one after the other in
 * order. On Postgres: session advisory locks, all held on one reserved connection of this worker (not a
 * connection per lane); they vanish with the process however it ends, so a restarted or another worker
 * takes the lane at once. Behind PgBouncer in transaction mode that connection is a direct one
 * (`Database.direct`), since a pooled session cannot hold a session lock for its client. On PGlite (one
 * process per data folder): a set in memory.
 */
/** PGlite: the lanes held in this process, per database (shared by every worker on it). */
const heldHere = new WeakMap<Database, Set<number>>();

export function createLaneLocks(database: Database): LaneLocks {
  const client = database.direct;
  if (!client) {
    const held = heldHere.get(database) ?? new Set<number>();
    heldHere.set(database, held);
    return {
      async tryLock(id) {
        if (held.has(id)) return false;
        held.add(id);
        return true;
      },
      async unlock(id) {
        held.delete(id);
      },
      async close() {},
    };
  }
  /** Lanes this worker holds on its connection. */
  const held = new Set<number>();
  type Reserved = Awaited<ReturnType<typeof client.reserve>>;
  let connection: Promise<Reserved> | undefined;
  const connectionOf = () => {
    connection ??= client.reserve().catch((error: unknown) => {
      connection = undefined;
      throw error;
    });
    return connection;
  };
  /** The connection failed: its locks are gone with it, so this process holds none. */
  const drop = (reserved: Reserved) => {
    connection = undefined;
    held.clear();
    reserved.release();
  };
  return {
    async tryLock(id) {
      if (held.has(id)) return false;
      held.add(id);
      const reserved = await connectionOf().catch((error: unknown) => {
        held.delete(id);
        throw error;
      });
      try {
        const [row] = await reserved`select pg_try_advisory_lock(${LANE_LOCK}, ${id}) as ok`;
        if (row?.ok) return true;
        held.delete(id);
        return false;
      } catch (error) {
        drop(reserved);
        throw error;
      }
    },
    async unlock(id) {
      if (!held.delete(id)) return;
      const reserved = await connection?.catch(() => undefined);
      if (!reserved) return;
      await reserved`select pg_advisory_unlock(${LANE_LOCK}, ${id})`.catch(() => drop(reserved));
    },
    async close() {
      const reserved = await connection?.catch(() => undefined);
      connection = undefined;
      if (!reserved) return;
      await reserved`select pg_advisory_unlock_all()`.catch(() => {});
      held.clear();
      reserved.release();
    },
  };
}
