import PgBoss from "pg-boss";
import type { Database } from "@shortener/db";

/** The pg-boss queue that carries "run import job N" messages. */
export const IMPORT_QUEUE = "shortener-imports";
/** pg-boss keeps its tables in a schema of its own. */
export const BOSS_SCHEMA = "pgboss";

/** What pg-boss's Db interface answers a statement with. */
type BossRows = Awaited<ReturnType<PgBoss.Db["executeSql"]>>;

/**
 * pg-boss's database adapter (`executeSql(text, values)`) over our own connection, on either driver
 * (docs/adr/0009-import-queue.md): no second pool, no `pg` connections, and PGlite works too.
 * Statements without values may be several at once (pg-boss's migrations, wrapped in BEGIN…COMMIT):
 * PGlite runs those with `exec`; postgres.js with the simple protocol, on a reserved connection when
 * they open a transaction.
 */
export function createBossDb(database: Database): PgBoss.Db {
  return {
    // pg-boss's own Db type: its rows are whatever its queries select.
    async executeSql(text: string, values?: unknown[]): Promise<BossRows> {
      if (database.pglite) {
        const pg = database.pglite;
        if (values?.length) return { rows: (await pg.query(text, values)).rows };
        const results = await pg.exec(text);
        return { rows: results[results.length - 1]?.rows ?? [] };
      }
      const client = database.postgres;
      if (!client) throw new Error("no database client");
      if (!values?.length && /\bBEGIN\b/i.test(text)) {
        const reserved = await client.reserve();
        try {
          return toRows(await reserved.unsafe(text));
        } finally {
          reserved.release();
        }
      }
      return toRows(await client.unsafe(text, (values ?? []).map(asPgValue) as never[]));
    },
  };
}

/** pg (pg-boss's usual driver) sends undefined as NULL and a plain object as its JSON text; postgres.js needs it done for it. */
function asPgValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== "object" || value instanceof Date || Array.isArray(value) || Buffer.isBuffer(value)) return value;
  return JSON.stringify(value);
}

/** postgres.js answers several statements with an array of results: pg-boss wants the last one's rows. */
function toRows(result: unknown): BossRows {
  const list = result as unknown[];
  if (list.length && Array.isArray(list[list.length - 1])) return { rows: [...(list[list.length - 1] as unknown[])] };
  return { rows: [...list] };
}

export type JobMessage = { jobId: number };

/** A queue this process uses, created if it does not exist yet. */
export type QueueSpec = { name: string; options: Omit<PgBoss.Queue, "name"> };

const IMPORT_QUEUE_SPEC: QueueSpec = {
  name: IMPORT_QUEUE,
  options: {
    // A worker that dies mid-job is noticed by the others' sweep (its lock is gone) long before
    // this; the expiry only bounds how long pg-boss itself counts the message as active.
    expireInSeconds: 23 * 3600,
    retryLimit: 20,
    retryDelay: 15,
    retryBackoff: true,
  },
};

/** A started pg-boss on `database`, with `queues` created (by default the import queue). */
export async function startBoss(database: Database, onError: (error: unknown) => void, queues: QueueSpec[] = [IMPORT_QUEUE_SPEC]): Promise<PgBoss> {
  const boss = new PgBoss({ db: createBossDb(database), schema: BOSS_SCHEMA, schedule: false, supervise: true, migrate: true });
  boss.on("error", onError);
  await boss.start();
  for (const queue of queues) {
    if (await boss.getQueue(queue.name)) continue;
    try {
      await boss.createQueue(queue.name, { name: queue.name, ...queue.options });
    } catch (error) {
      // Another process created it at the same moment.
      if (!(await boss.getQueue(queue.name))) throw error;
    }
  }
  return boss;
}
