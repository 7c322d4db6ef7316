import { createHmac } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Database } from "@shortener/db";
import { clientGroup } from "./client-group.ts";
import { FAILED_TRY_LIMIT, type FailedTryLimit } from "./limit.ts";
import { createMemoryStore } from "./memory-store.ts";
import { createPostgresStore } from "./postgres-store.ts";
import { createRedisStore } from "./redis-store.ts";
import type { TryStore } from "./store.ts";
import { closeRedis, connectRedis } from "../redis.ts";

/**
 * What is being guessed: one link's password (`link:<id>`), one link's stats password (`stats:<id>`),
 * API keys in general (`key`: the API's bearer keys and the owner key of a stats page alike, so a
 * client cannot get ten more guesses by asking another link's stats page), or the dashboard's sign-in
 * (`login`: passwords and one-time key sign-ins, whatever the email).
 */
export type TryTarget = `link:${number}` | `stats:${number}` | "key" | "login";

/** The answer to a try, given before it is checked. */
export type TryVerdict =
  | {
      isAllowed: true;
      /** Tries of this client at this target in the window, this one included. */
      count: number;
      remaining: number;
      /** When the window ends, epoch ms. */
      resetAt: number;
      /** The try was right: take it back (never throws; a failure is logged). */
      refund(): Promise<void>;
    }
  | { isAllowed: false; count: number; remaining: 0; resetAt: number; /** Whole seconds, at least 1. */ retryAfter: number };

export type FailedTries = {
  readonly limit: FailedTryLimit;
  /**
   * Counts a try of the client at `address` (grouped: IPv4 address, IPv6 /64) on `target`, atomically,
   * before the caller checks it (CONTRACT §15): of N concurrent tries at most `limit.max` are allowed,
   * whatever their order. Refused tries are answered from this process's memory once it knows the
   * window is used up, without asking the store again.
   */
  begin(address: string | undefined, target: TryTarget): Promise<TryVerdict>;
  /**
   * Counts a sign-in guess at one account (`account`: an opaque name, e.g. a hash of the email, plus the
   * device when it is a known one), before it is checked (CONTRACT §15): the first `free` guesses of a
   * window go through; each one after must wait behind the one before it, `baseDelayMs` doubling per
   * guess up to `maxDelayMs`, so the delays grow but never lock the account for longer than that.
   * Refused guesses are not counted (they do not lengthen the delay). Shared through the store.
   */
  beginAccount(account: string): Promise<TryVerdict>;
  /** The store in use now: `redis`, `postgres` or `memory` (while the shared store fails). */
  storeName(): string;
  close(): Promise<void>;
};

/**
 * The limit of sign-in guesses per account (CONTRACT §15): 5 in a 24-hour window freely, then one
 * guess per delay of 1, 2, 4, 8, 10, 10… minutes — about 6 an hour for a guesser on any number of
 * addresses, and never more than 10 minutes of waiting for the owner.
 */
export const ACCOUNT_TRY_LIMIT: AccountTryLimit = Object.freeze({ free: 5, windowMs: 24 * 60 * 60_000, baseDelayMs: 60_000, maxDelayMs: 10 * 60_000 });

export type AccountTryLimit = { readonly free: number; readonly windowMs: number; readonly baseDelayMs: number; readonly maxDelayMs: number };

export type FailedTriesLog = { error(obj: unknown, msg?: string): void };

/**
 * The failed-try limiter over `store`. When the store fails (Redis or the database unreachable), tries
 * are counted in a bounded memory store of this process meanwhile (logged at most once a minute), so a
 * password form keeps working, with per-process limits, until the store answers again.
 */
export function createFailedTries(options: {
  store: TryStore;
  limit?: FailedTryLimit;
  accountLimit?: AccountTryLimit;
  now?: () => number;
  log?: FailedTriesLog;
  /** Keys this process remembers as used up (no store call for them): bounded, least recently used dropped. */
  maxBlockedKeys?: number;
  /**
   * The service's secret: with it, a client's group is stored as a keyed hash of it, never as the address
   * (CONTRACT §21: no address is stored anywhere, the `failed_tries` table and Redis included). Every
   * process of a deployment has the same secret, so they still count together.
   */
  keySecret?: string;
  onClose?: () => Promise<void>;
}): FailedTries {
  const { store } = options;
  const limit = options.limit ?? FAILED_TRY_LIMIT;
  const accountLimit = options.accountLimit ?? ACCOUNT_TRY_LIMIT;
  const now = options.now ?? Date.now;
  const fallback = createMemoryStore();
  const blocked = new LRUCache<string, number>({ max: options.maxBlockedKeys ?? 10_000 });
  let lastFailureLog = 0;
  let isFallingBack = false;

  const refused = (count: number, resetAt: number, at: number, longestMs = limit.windowMs): TryVerdict => ({
    isAllowed: false,
    count,
    remaining: 0,
    resetAt,
    // Never more than the window: a store's clock (the database's) may run a little ahead of this one.
    retryAfter: Math.min(Math.ceil(longestMs / 1000), Math.max(1, Math.ceil((resetAt - at) / 1000))),
  });

  const logFailure = (error: unknown, what: string) => {
    if (now() - lastFailureLog < 60_000) return;
    lastFailureLog = now();
    options.log?.error({ err: error, store: store.name }, `failed tries: the ${store.name} store failed to ${what}; counting in this process's memory meanwhile`);
  };

  /** One try added to `key` in the store, or in memory while the store fails; and where it was counted. */
  const add = async (key: string, windowMs: number, at: number) => {
    try {
      const result = await store.add(key, windowMs, at);
      isFallingBack = false;
      return { result, counter: store };
    } catch (error) {
      logFailure(error, "count a try");
      isFallingBack = true;
      return { result: await fallback.add(key, windowMs, at), counter: fallback };
    }
  };
  const takeBack = (counter: TryStore, key: string) => counter.remove(key, now()).catch((error: unknown) => logFailure(error, "take a try back"));

  return {
    limit,
    storeName: () => (isFallingBack ? fallback.name : store.name),
    async begin(address, target) {
      const group = clientGroup(address);
      const key = `${target}|${options.keySecret ? createHmac("sha256", options.keySecret).update(group).digest("base64url").slice(0, 22) : group}`;
      const at = now();
      const until = blocked.get(key);
      if (until !== undefined) {
        if (until > at) return refused(limit.max + 1, until, at);
        blocked.delete(key);
      }
      const { result, counter } = await add(key, limit.windowMs, at);
      if (result.count > limit.max) {
        blocked.set(key, result.resetAt);
        return refused(result.count, result.resetAt, at);
      }
      return {
        isAllowed: true,
        count: result.count,
        remaining: limit.max - result.count,
        resetAt: result.resetAt,
        refund: () => takeBack(counter, key),
      };
    },
    async beginAccount(account) {
      const countKey = `account:${account}`;
      const gateKey = `account-wait:${account}`;
      const at = now();
      const until = blocked.get(gateKey);
      if (until !== undefined) {
        if (until > at) return refused(accountLimit.free + 1, until, at, accountLimit.maxDelayMs);
        blocked.delete(gateKey);
      }
      const { result, counter } = await add(countKey, accountLimit.windowMs, at);
      const allowed = (resetAt: number): TryVerdict => ({
        isAllowed: true,
        count: result.count,
        remaining: Math.max(0, accountLimit.free - result.count),
        resetAt,
        refund: () => takeBack(counter, countKey),
      });
      if (result.count <= accountLimit.free) return allowed(result.resetAt);
      // Past the free guesses: one at a time, each opening a wait for the next (atomic in the store).
      const delayMs = Math.min(accountLimit.maxDelayMs, accountLimit.baseDelayMs * 2 ** Math.min(30, result.count - accountLimit.free - 1));
      const gate = await add(gateKey, delayMs, at);
      if (gate.result.count > 1) {
        await takeBack(counter, countKey);
        blocked.set(gateKey, gate.result.resetAt);
        return refused(result.count, gate.result.resetAt, at, accountLimit.maxDelayMs);
      }
      return allowed(gate.result.resetAt);
    },
    async close() {
      await store.close();
      await fallback.close();
      await options.onClose?.();
    },
  };
}

/**
 * The limiter every process of a deployment shares: counters in Redis with `redisUrl`, else in the
 * database's `failed_tries` table (Postgres, or PGlite in embedded mode). Connects to Redis before
 * returning (an unreachable one stops the start).
 */
export async function openFailedTries(options: {
  database: Database;
  redisUrl?: string | undefined;
  redisPrefix?: string;
  limit?: FailedTryLimit;
  accountLimit?: AccountTryLimit;
  now?: () => number;
  log?: FailedTriesLog;
  /** See `createFailedTries`: clients' groups stored as keyed hashes. */
  keySecret?: string;
}): Promise<FailedTries> {
  const common = {
    ...(options.keySecret ? { keySecret: options.keySecret } : {}),
    ...(options.limit ? { limit: options.limit } : {}),
    ...(options.accountLimit ? { accountLimit: options.accountLimit } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.log ? { log: options.log } : {}),
  };
  if (options.redisUrl) {
    const log = options.log;
    const redis = await connectRedis(options.redisUrl, { name: "shortener-failed-tries", onError: (error) => log?.error({ err: error }, "failed tries: Redis connection error") });
    const store = createRedisStore(redis, options.redisPrefix ? { prefix: options.redisPrefix } : {});
    return createFailedTries({ ...common, store, onClose: () => closeRedis(redis) });
  }
  return createFailedTries({ ...common, store: createPostgresStore(options.database, options.now ? { now: options.now } : {}) });
}
