import { randomBytes } from "node:crypto";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { postgresClient, withReservedTransactions, type Database, type Db } from "./client.ts";
import { isConnectionError } from "./connection-errors.ts";
import * as schema from "./schema/index.ts";

/**
 * Reads on streaming replicas (CONTRACT §26, docs/adr/0055-read-replicas-and-a-pooler.md).
 *
 * Every replica is checked in the background, a few times a second, never per query: the primary's WAL
 * flush position is sampled with the time it was taken, and a replica that has replayed past a sample
 * holds every commit made before that time (a commit is flushed before it returns; only commits made with
 * `synchronous_commit = off`, the click counters', may come up to a WAL writer's round later). `freshAsOf` is the latest such time; `now - freshAsOf` is the
 * replica's lag as this process sees it (an idle primary does not make it grow, a stuck check does).
 *
 * A read takes a replica that answers, lags at most `maxLagMs`, and holds every commit the read must see
 * (`since`); else the primary. Transactions always run on the primary (a reader's `transaction()` is
 * the primary's), and a statement a replica refuses or cannot run (gone, conflict with recovery, a
 * write) runs again on the primary: a replica that stops or lags never turns into an error.
 */

/** How many times a second the replicas are checked, at most: a quarter of the allowed lag, between 50 and 250 ms. */
function checkIntervalOf(maxLagMs: number): number {
  return Math.min(250, Math.max(50, Math.floor(maxLagMs / 4)));
}

/**
 * Read-your-writes across processes: a caller's write is announced on this channel (at most once per
 * `REANNOUNCE_MS` per caller), and every other process sends that caller's reads to the primary for
 * `stickyMs` after hearing it. See `stickyMsOf`.
 */
export const WRITES_CHANNEL = "shortener_caller_writes";
const REANNOUNCE_MS = 2_000;
/**
 * How long another process keeps a caller on the primary after hearing of a write: past it, an eligible
 * replica holds every commit made `maxLagMs` before, which covers the announced write and those made in
 * the `REANNOUNCE_MS` after it without a new announcement, with a second to spare for clocks and delivery.
 */
function stickyMsOf(maxLagMs: number): number {
  return maxLagMs + REANNOUNCE_MS + 1_000;
}

/** Why a read did not go to a replica it could have used: `down` (no answer), `lagging` (behind by more than the limit). */
export type SkipReason = "down" | "lagging";

export type ReplicaStatus = {
  name: string;
  isUp: boolean;
  /** Milliseconds behind as last seen (now − the time of the latest commit it is known to hold); null before its first check. */
  lagMs: number | null;
};

export type ReadStats = {
  /** Statements run through read handles, by pool: `primary`, or the replica's name. */
  reads: Record<string, number>;
  /** Reads that passed a replica over, by replica and reason. */
  skipped: Array<{ replica: string; reason: SkipReason; count: number }>;
  replicas: ReplicaStatus[];
};

export type ReadRouter = {
  /**
   * A handle for a read that must see every commit this process knows was made before `since` (its clock,
   * ms; omitted: none in particular): a replica that qualifies, else the primary.
   */
  reader(since?: number): Db;
  /** The handle for `caller`'s reads (a user id): the primary while the caller's last write may not have reached a replica. */
  readerFor(caller: number): Db;
  /** `caller` has just written (committed, not yet answered): their next reads must see it, in this process and every other. */
  wrote(caller: number): Promise<void>;
  /** Whether `db` is a replica's handle (not the primary's). */
  isReplica(db: Db): boolean;
  stats(): ReadStats;
  /** Checks the replicas once and starts listening for other processes' writes; then checks in the background. */
  start(): Promise<void>;
  close(): Promise<void>;
};

export type ReadRouterOptions = {
  /** The primary, opened with openDb (Postgres). */
  primary: Database;
  /** The replicas' URLs (DATABASE_READ_URL). */
  urls: readonly string[];
  /** READ_MAX_LAG_MS: a replica further behind is skipped. */
  maxLagMs: number;
  /** Connections per replica. */
  poolSize: number;
  applicationName?: string;
  now?: () => number;
  log?: { warn(obj: unknown, msg?: string): void };
};

type Replica = {
  name: string;
  client: postgres.Sql;
  db: Db;
  isUp: boolean;
  hasAnswered: boolean;
  /** The latest time (this process's clock) before which every commit is known to be on this replica. */
  freshAsOf: number;
};

/** An LSN (`16/B374D848`) as a number that orders like it. */
export function parseLsn(text: string): bigint {
  const [high = "0", low = "0"] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** WAL page size (XLOG_BLCKSZ, 8 kB unless PostgreSQL was built otherwise) and the longest page header (a segment's first page). */
const WAL_PAGE = 8192n;
const WAL_PAGE_HEADER_MAX = 40n;

/**
 * Whether a replica that has replayed up to `replayed` holds everything the primary had written when it
 * reported `inserted`. A WAL position a primary reports may lie past a page's header, where no replica's
 * replay position ever lands (a record that ended exactly at the page's end): a replay position at that
 * page's start holds it all too, else an idle primary could leave a replica looking behind for good.
 */
export function holds(replayed: bigint, inserted: bigint): boolean {
  if (replayed >= inserted) return true;
  const offset = inserted % WAL_PAGE;
  return offset <= WAL_PAGE_HEADER_MAX && replayed >= inserted - offset;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** SQLSTATEs a replica answers that the primary would not: a write on a hot standby, a conflict with recovery. */
function isReplicaRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "25006" /* read_only_sql_transaction */ || code === "40001" /* conflict with recovery */ || code === "57014"; /* canceled (recovery) */
}

type Unsafe = (query: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) => postgres.PendingQuery<postgres.Row[]>;

/**
 * The client a read handle's drizzle runs on: statements go to `target` and, if it cannot run them, to
 * `fallback` (the primary); transactions go to `transactions` (the primary's). Drizzle's postgres-js
 * session uses `unsafe(query, params, options)` (awaited, or `.values()`) and `begin`; everything else
 * (its type parsers) is the target's.
 */
function routedClient(
  target: postgres.Sql,
  fallback: postgres.Sql | undefined,
  transactions: postgres.Sql,
  onRead: () => void,
  onFailure: (error: unknown) => void,
  onFallback: () => void,
): postgres.Sql {
  const unsafe: Unsafe = (query, params, options) => {
    const run = (isValues: boolean): Promise<unknown> => {
      onRead();
      const pending = target.unsafe(query, params as never[], options);
      const first: Promise<unknown> = isValues ? pending.values() : pending;
      if (!fallback) return first;
      return first.then(undefined, (error: unknown) => {
        if (!isConnectionError(error) && !isReplicaRefusal(error)) throw error;
        onFailure(error);
        onFallback();
        const again = fallback.unsafe(query, params as never[], options);
        return isValues ? again.values() : again;
      });
    };
    // Lazy like postgres.js's own: nothing runs until it is awaited (or asked for its values).
    return { values: () => run(true), then: (ok: (value: unknown) => unknown, fail: (error: unknown) => unknown) => run(false).then(ok, fail) } as unknown as postgres.PendingQuery<postgres.Row[]>;
  };
  const begin = transactions.begin.bind(transactions);
  return new Proxy(target, { get: (t, property, receiver) => (property === "unsafe" ? unsafe : property === "begin" ? begin : Reflect.get(t, property, receiver)) });
}

/** Opens the replicas of DATABASE_READ_URL next to `primary` (Postgres only: the embedded database has none). */
export function openReadRouter(options: ReadRouterOptions): ReadRouter {
  const primaryPostgres = options.primary.postgres;
  if (!primaryPostgres) throw new Error("read replicas need a PostgreSQL primary");
  const primaryClient: postgres.Sql = primaryPostgres;
  const now = options.now ?? (() => Date.now());
  const { maxLagMs } = options;
  const intervalMs = checkIntervalOf(maxLagMs);
  const stickyMs = stickyMsOf(maxLagMs);
  const applicationName = options.applicationName ?? "shortener";
  /** This process, in the announcements: its own are not news. */
  const token = randomBytes(6).toString("hex");

  const reads = new Map<string, number>([["primary", 0]]);
  const countRead = (pool: string) => reads.set(pool, (reads.get(pool) ?? 0) + 1);
  const skipped = new Map<string, number>();
  const countSkip = (replica: string, reason: SkipReason) => {
    const key = `${replica}\u0000${reason}`;
    skipped.set(key, (skipped.get(key) ?? 0) + 1);
  };

  const primaryTransactions = withReservedTransactions(primaryClient);
  const primaryRoute = routedClient(
    primaryClient,
    undefined,
    primaryTransactions,
    () => countRead("primary"),
    () => {},
    () => {},
  );
  const primaryReader = drizzlePostgres(primaryRoute, { schema, casing: "snake_case" }) as unknown as Db;

  const replicas: Replica[] = options.urls.map((url, index) => {
    const name = `replica${index + 1}`;
    // A replica that does not answer is given up on quickly: its reads go to the primary meanwhile.
    const client = postgresClient(url, { poolSize: options.poolSize, applicationName, connectTimeoutSeconds: 2 });
    const replica: Replica = { name, client, db: undefined as unknown as Db, isUp: false, hasAnswered: false, freshAsOf: -Infinity };
    const route = routedClient(
      client,
      primaryClient,
      primaryTransactions,
      () => countRead(name),
      (error) => {
        // Gone: skipped until a check finds it again. A refusal (a write, a conflict) says nothing of its health.
        if (isConnectionError(error)) replica.isUp = false;
        else if ((error as { code?: string }).code === "25006") options.log?.warn({ replica: name }, "a write was sent to a read replica; it ran on the primary");
      },
      () => countRead("primary"),
    );
    replica.db = drizzlePostgres(route, { schema, casing: "snake_case" }) as unknown as Db;
    return replica;
  });
  const replicaDbs = new Set(replicas.map((r) => r.db));
  let next = 0;

  function reader(since = -Infinity): Db {
    const t = now();
    for (let i = 0; i < replicas.length; i++) {
      const index = (next + i) % replicas.length;
      const replica = replicas[index] as Replica;
      if (!replica.isUp) {
        countSkip(replica.name, "down");
        continue;
      }
      if (t - replica.freshAsOf > maxLagMs) {
        countSkip(replica.name, "lagging");
        continue;
      }
      // Healthy, but not yet past this read's writes: the primary, without counting the replica skipped.
      // Strictly after: a sample taken in the same millisecond as the write may have been taken before it.
      if (replica.freshAsOf <= since) continue;
      next = (index + 1) % replicas.length;
      return replica.db;
    }
    return primaryReader;
  }

  /** Callers who wrote through this process: when (after the commit). Dropped once any usable replica must hold it. */
  const wroteHere = new Map<number, number>();
  /** Callers another process announced: until when their reads stay on the primary. */
  const wroteElsewhere = new Map<number, number>();
  /** When this process last announced each caller's write. */
  const announced = new Map<number, number>();
  /** Until when every caller's reads stay on the primary: announcements may have been missed (start, a lost listening connection). */
  let everyoneUntil = now() + stickyMs;

  function readerFor(caller: number): Db {
    const t = now();
    if (t < everyoneUntil) return primaryReader;
    const until = wroteElsewhere.get(caller);
    if (until !== undefined) {
      if (t < until) return primaryReader;
      wroteElsewhere.delete(caller);
    }
    const at = wroteHere.get(caller);
    if (at !== undefined && t - at > maxLagMs) wroteHere.delete(caller);
    return reader(at);
  }

  async function wrote(caller: number): Promise<void> {
    const t = now();
    wroteHere.set(caller, t);
    const last = announced.get(caller);
    if (last !== undefined && t - last <= REANNOUNCE_MS) return;
    announced.set(caller, t);
    // Before the answer goes out: the caller's next request may reach another process.
    await options.primary.notify(WRITES_CHANNEL, `${token} ${caller}`).catch((error: unknown) => {
      announced.delete(caller);
      options.log?.warn({ err: error }, "could not announce a write to the other processes");
    });
  }

  function onAnnouncement(payload: string): void {
    const [from, caller] = payload.split(" ");
    if (from === token || caller === undefined || !/^\d+$/.test(caller)) return;
    wroteElsewhere.set(Number(caller), now() + stickyMs);
  }

  /** Samples of the primary's WAL position, oldest first, with the time taken just before asking. */
  const samples: Array<{ at: number; lsn: bigint }> = [];
  const CHECK_TIMEOUT_MS = Math.max(500, maxLagMs);

  async function check(): Promise<void> {
    const at = now();
    try {
      const [row] = await withTimeout(primaryClient.unsafe<Array<{ lsn: string }>>("select pg_current_wal_flush_lsn()::text as lsn"), CHECK_TIMEOUT_MS);
      if (row) samples.push({ at, lsn: parseLsn(row.lsn) });
    } catch {
      // The primary does not answer: no new sample, so no replica looks fresher than before.
    }
    // Enough history to place a replica up to twice the allowed lag behind.
    while (samples.length > 2 && (samples[1] as { at: number }).at < at - 2 * maxLagMs - 2 * intervalMs) samples.shift();
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const [row] = await withTimeout(replica.client.unsafe<Array<{ lsn: string | null }>>("select pg_last_wal_replay_lsn()::text as lsn"), CHECK_TIMEOUT_MS);
          // Not in recovery (promoted, or not a replica at all): not a copy of this primary to read from.
          if (!row?.lsn) {
            if (replica.isUp || !replica.hasAnswered) options.log?.warn({ replica: replica.name }, "DATABASE_READ_URL names a server that is not replaying WAL; it is skipped");
            replica.isUp = false;
            replica.hasAnswered = true;
            return;
          }
          const replayed = parseLsn(row.lsn);
          for (const sample of samples) if (sample.at > replica.freshAsOf && holds(replayed, sample.lsn)) replica.freshAsOf = sample.at;
          replica.isUp = true;
          replica.hasAnswered = true;
        } catch {
          replica.isUp = false;
        }
      }),
    );
    // Forget what no longer decides anything.
    const t = now();
    for (const [caller, until] of wroteElsewhere) if (until <= t) wroteElsewhere.delete(caller);
    for (const [caller, at] of wroteHere) if (t - at > maxLagMs) wroteHere.delete(caller);
    for (const [caller, at] of announced) if (t - at > REANNOUNCE_MS) announced.delete(caller);
  }

  let timer: NodeJS.Timeout | undefined;
  let isClosed = false;
  let unlisten: (() => Promise<void>) | undefined;
  const loop = () => {
    timer = setTimeout(() => {
      void check().finally(() => {
        if (!isClosed) loop();
      });
    }, intervalMs);
    timer.unref();
  };

  return {
    reader,
    readerFor,
    wrote,
    isReplica: (db) => replicaDbs.has(db),
    stats() {
      const t = now();
      return {
        reads: Object.fromEntries(reads),
        skipped: [...skipped].map(([key, count]) => {
          const [replica = "", reason] = key.split("\u0000");
          return { replica, reason: reason as SkipReason, count };
        }),
        replicas: replicas.map((r) => ({ name: r.name, isUp: r.isUp, lagMs: r.freshAsOf === -Infinity ? null : Math.max(0, t - r.freshAsOf) })),
      };
    },
    async start() {
      unlisten = await options.primary.listen(WRITES_CHANNEL, onAnnouncement, () => {
        // Announcements made while the connection was down never arrived.
        everyoneUntil = now() + stickyMs;
      });
      // Announcements made before this process listened never arrived either.
      everyoneUntil = now() + stickyMs;
      // Two checks: the first sample, then a replay position to compare with it.
      await check();
      await check();
      loop();
    },
    async close() {
      isClosed = true;
      clearTimeout(timer);
      await unlisten?.().catch(() => {});
      await Promise.all(replicas.map((r) => r.client.end({ timeout: 5 })));
    },
  };
}
