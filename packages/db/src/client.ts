import { mkdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** A drizzle handle on either driver, or a transaction inside one. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type Driver = "pglite" | "postgres";

/** An open database: the drizzle handle plus what drizzle does not cover (notifications, raw bulk SQL, closing). */
export type Database = {
  db: Db;
  driver: Driver;
  /**
   * Subscribes to a NOTIFY channel; resolves to an unsubscribe function. `onListenAgain` is called each
   * time the subscription is made again after its connection was lost (Postgres: the listening
   * connection reconnects on its own), since whatever was announced meanwhile never arrived.
   */
  listen(channel: string, onPayload: (payload: string) => void, onListenAgain?: () => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** The postgres.js client in Postgres mode (COPY and other bulk paths), otherwise undefined. */
  postgres: postgres.Sql | undefined;
  /**
   * In Postgres mode, a client whose connections are sessions of their own on the server: for what a
   * transaction-mode pooler cannot carry (session advisory locks; LISTEN goes there too). The
   * `directUrl` client when one was given (the main one then goes through PgBouncer), else `postgres`
   * itself. Undefined on PGlite (docs/scaling.md, docs/adr/0055-read-replicas-and-a-pooler.md).
   */
  direct: postgres.Sql | undefined;
  /** The PGlite instance in embedded mode, otherwise undefined. */
  pglite: PGlite | undefined;
  close(): Promise<void>;
};

export type OpenDbOptions =
  | {
      url: string;
      poolSize?: number;
      /**
       * `synchronous_commit = off` for this pool's sessions: commits return before their WAL reaches
       * disk. For counters and click batches only, where the last fraction of a second after a
       * Postgres crash is an acceptable loss (docs/adr/0008-visitor-side.md); API writes keep the default.
       */
      isAsyncCommit?: boolean;
      /** Postgres's `application_name` for this pool's sessions (`pg_stat_activity`); `shortener` by default. */
      applicationName?: string;
      /**
       * The same database without a pooler in between: `url` is then taken to be PgBouncer in transaction
       * mode. Its statements are not prepared by name (a pooled session is not the one it was prepared
       * on), and LISTEN and session advisory locks use a small pool of their own on `directUrl`.
       */
      directUrl?: string;
    }
  | {
      dataDir: string | undefined /* undefined: in memory */;
      loadDataDir?: Blob;
      /**
       * Postgres settings for this PGlite instance only (`-c name=value` at start; nothing is written
       * to the data folder). The operator CLI passes a small `shared_buffers`: PGlite's default
       * buffer pool (128 MB) is resident memory inside its WebAssembly heap.
       */
      pgliteSettings?: Readonly<Record<string, string>>;
    };

/** Opens Postgres through postgres.js when a URL is given, PGlite (embedded, in `dataDir` or memory) otherwise. */
export async function openDb(options: OpenDbOptions): Promise<Database> {
  if ("url" in options) return openPostgres(options.url, options.poolSize ?? 10, options.isAsyncCommit ?? false, options.applicationName ?? "shortener", options.directUrl);
  return openPglite(options.dataDir, options.loadDataDir, options.pgliteSettings);
}

/** Settings of a postgres.js pool, the same for the primary, a replica and a direct connection. */
export function postgresClient(url: string, options: { poolSize: number; applicationName: string; isAsyncCommit?: boolean; isPooled?: boolean; connectTimeoutSeconds?: number }): postgres.Sql {
  return postgres(url, {
    max: options.poolSize,
    onnotice: () => {},
    // While the database is unreachable (CONTRACT §16), a query waits for the pool's next connection
    // attempt before it fails. postgres.js spaces attempts out up to 20 s (3^n / 100 s): callers would
    // wait that long for their 503, and the service that long to notice the database is back. At most
    // a second between attempts (each a refused or timed-out connect) keeps both short.
    backoff: (retries: number) => Math.min(0.1 * retries, 1),
    // A database that does not answer at all (a dropped route, not a refusal): give up on the
    // connection after 10 s rather than postgres.js's 30.
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    // More queries in flight than connections makes postgres.js pipeline them, which degrades under
    // sustained load on this hardware (docs/adr/0003-database-drivers.md).
    max_pipeline: 1,
    // Behind PgBouncer in transaction mode, each transaction may run on another server session: a
    // statement prepared by name on one is unknown on the next. Unnamed statements (parse, bind and
    // execute in one go) work anywhere (docs/adr/0055-read-replicas-and-a-pooler.md).
    ...(options.isPooled ? { prepare: false } : {}),
    connection: { application_name: options.applicationName, ...(options.isAsyncCommit ? { synchronous_commit: "off" } : {}) },
  } as postgres.Options<Record<string, postgres.PostgresType>>);
}

/** Sessions of their own for LISTEN and session advisory locks, next to a pooled main client: a few suffice. */
const DIRECT_POOL_SIZE = 4;

function openPostgres(url: string, poolSize: number, isAsyncCommit: boolean, applicationName: string, directUrl: string | undefined): Database {
  const client = postgresClient(url, { poolSize, applicationName, isAsyncCommit, isPooled: directUrl !== undefined });
  const direct = directUrl === undefined ? client : postgresClient(directUrl, { poolSize: DIRECT_POOL_SIZE, applicationName, isAsyncCommit });
  const db = drizzlePostgres(withReservedTransactions(client), { schema, casing: "snake_case" }) as unknown as Db;
  return {
    db,
    driver: "postgres",
    postgres: client,
    direct,
    pglite: undefined,
    async listen(channel, onPayload, onListenAgain) {
      // postgres.js calls `onlisten` after the first LISTEN and after each one made on a new connection.
      // LISTEN needs a session of its own: on the direct connection when the main one is pooled.
      let isFirst = true;
      const sub = await direct.listen(channel, onPayload, () => {
        if (isFirst) isFirst = false;
        else onListenAgain?.();
      });
      return () => sub.unlisten();
    },
    async notify(channel, payload) {
      await client.notify(channel, payload);
    },
    close: async () => {
      await client.end({ timeout: 5 });
      if (direct !== client) await direct.end({ timeout: 5 });
    },
  };
}

/**
 * The client drizzle runs on, with transactions that first reserve an idle connection, then send
 * BEGIN on it. postgres.js's own `begin` sends BEGIN through the pool: when every connection is busy it
 * queues BEGIN behind another caller's query, and with `max_pipeline: 1` that connection is then never
 * reserved for the transaction. postgres.js raises UNSAFE_TRANSACTION once BEGIN has run, and the
 * connection goes back to the pool inside an open transaction that takes in other callers' statements
 * and their locks until some later COMMIT on it (measured: creates at 40–300/s with stalls of seconds
 * instead of ~650/s, docs/adr/0031-reserved-transactions.md). `reserve()` only ever hands out an idle
 * connection. Savepoints cover drizzle's nested transactions.
 */
export function withReservedTransactions(client: postgres.Sql): postgres.Sql {
  async function begin(...args: unknown[]): Promise<unknown> {
    const fn = args.at(-1) as (sql: postgres.ReservedSql) => unknown;
    const mode = args.length > 1 ? String(args[0]).replace(/[^a-z ]/gi, "") : "";
    const reserved = await reserveConnection(client);
    // The connection behind `reserved`, seen when BEGIN is written to it. postgres.js clears its
    // `reserved` mark when the connection closes and puts it back among the closed ones; releasing it
    // after that would list a dead connection among the open ones, and the next transaction to reserve
    // it would wait for ever (measured: every transaction after a database outage hung).
    let connection: { reserved: unknown } | undefined;
    const onexecute = (c: { reserved: unknown }) => {
      connection = c;
      return true;
    };
    let savepoints = 0;
    const scope = Object.assign(reserved, {
      async savepoint(inner: (sql: postgres.ReservedSql) => unknown): Promise<unknown> {
        const name = `s${savepoints++}`;
        await reserved.unsafe(`savepoint ${name}`);
        try {
          const result = await inner(scope);
          await reserved.unsafe(`release savepoint ${name}`);
          return result;
        } catch (error) {
          await reserved.unsafe(`rollback to savepoint ${name}`);
          throw error;
        }
      },
    });
    try {
      await reserved.unsafe(`begin ${mode}`, [], { onexecute } as postgres.UnsafeQueryOptions);
      let result: unknown;
      try {
        result = await fn(scope);
      } catch (error) {
        await reserved.unsafe("rollback").catch(() => {});
        throw error;
      }
      await reserved.unsafe("commit");
      return result;
    } finally {
      if (connection?.reserved) reserved.release();
    }
  }
  return new Proxy(client, { get: (target, property, receiver) => (property === "begin" ? begin : Reflect.get(target, property, receiver)) });
}

/**
 * An idle connection of `client`'s pool, reserved. postgres.js can lose a request to reserve: one that
 * waits while every connection of the pool is reconnecting becomes the first query of the next
 * connection attempt, and a connection that opens drops such a first query (postgres.js 3.4.9,
 * `connection.js` ReadyForQuery). Nothing answers it, ever (measured: after a database outage, the
 * redirect's click writes waited for good). So a request not answered within `firstWaitMs` is asked
 * again, then after twice as long each time (at most 30 s apart: a pool that is merely busy gets a few
 * extra requests, not one a second per waiting transaction); the first answer wins, and connections
 * answered after it are released at once. A refusal (the database is unreachable) fails the reservation.
 */
function reserveConnection(client: postgres.Sql, firstWaitMs = 1_000): Promise<postgres.ReservedSql> {
  return new Promise((resolve, reject) => {
    let isSettled = false;
    let timer: NodeJS.Timeout | undefined;
    let waitMs = firstWaitMs;
    const ask = () => {
      client.reserve().then(
        (reserved) => {
          if (isSettled) return reserved.release();
          isSettled = true;
          clearTimeout(timer);
          resolve(reserved);
        },
        (error: unknown) => {
          if (isSettled) return;
          isSettled = true;
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
      timer = setTimeout(ask, waitMs);
      waitMs = Math.min(waitMs * 2, 30_000);
    };
    ask();
  });
}

async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined, settings: Readonly<Record<string, string>> = {}): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // Loaded only when used: PGlite and its drizzle driver cost ~60 MB of memory a process on Postgres does not need.
  const [{ PGlite }, { pg_trgm }, { drizzle: drizzlePglite }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite/contrib/pg_trgm"), import("drizzle-orm/pglite")]);
  const startParams = Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const pg = await PGlite.create({
    dataDir,
    extensions: { pg_trgm },
    ...(loadDataDir ? { loadDataDir } : {}),
    ...(startParams.length ? { startParams: [...PGlite.defaultStartParams, ...startParams] } : {}),
  });
  const db = drizzlePglite(pg, { schema, casing: "snake_case" }) as unknown as Db;
  return {
    db,
    driver: "pglite",
    postgres: undefined,
    direct: undefined,
    pglite: pg,
    async listen(channel, onPayload) {
      const unsubscribe = await pg.listen(channel, onPayload);
      return () => unsubscribe();
    },
    async notify(channel, payload) {
      await pg.query("select pg_notify($1, $2)", [channel, payload]);
    },
    close: () => pg.close(),
  };
}

/** Runs raw SQL and returns its rows, whichever driver is underneath. */
export async function queryRows<T extends Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

/** True when the error is Postgres's unique_violation, optionally on the named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = findPgError(error);
  if (!e || e.code !== "23505") return false;
  return constraint === undefined || e.constraint === constraint || e.constraint_name === constraint;
}

/** True when the error is Postgres's foreign_key_violation (a referenced row is gone). */
export function isForeignKeyViolation(error: unknown): boolean {
  return findPgError(error)?.code === "23503";
}

type PgErrorLike = { code?: string; constraint?: string; constraint_name?: string };

function findPgError(error: unknown): PgErrorLike | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as PgErrorLike & { cause?: unknown };
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e;
    current = e.cause;
  }
  return undefined;
}

export { sql };
