import type { Redis } from "ioredis";
import type { TryStore } from "./store.ts";

/** INCR, and a window of ARGV[1] ms on a key that has none yet (its first try); returns {count, ms left}. */
const ADD = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

/** DECR while the key exists and is above 0 (its expiry stays as it is). */
const REMOVE = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

type WithScripts = Redis & {
  failedTryAdd(key: string, windowMs: number): Promise<[number, number]>;
  failedTryRemove(key: string): Promise<number>;
};

/**
 * Counters in Redis, shared by every process (`REDIS_URL`): one Lua script a try, atomic on the Redis
 * server, each key expiring with its window (Redis's own expiry: nothing to sweep). Keys live under
 * `prefix`. Windows follow Redis's clock, not the injected one.
 */
export function createRedisStore(redis: Redis, options: { prefix?: string } = {}): TryStore {
  const prefix = options.prefix ?? "shortener:failed-tries:";
  const client = redis as WithScripts;
  if (typeof client.failedTryAdd !== "function") {
    redis.defineCommand("failedTryAdd", { numberOfKeys: 1, lua: ADD });
    redis.defineCommand("failedTryRemove", { numberOfKeys: 1, lua: REMOVE });
  }
  return {
    name: "redis",
    async add(key, windowMs, now) {
      const [count, ttl] = await client.failedTryAdd(prefix + key, windowMs);
      return { count: Number(count), resetAt: now + Number(ttl) };
    },
    async remove(key) {
      await client.failedTryRemove(prefix + key);
    },
    /** The connection is the caller's to close. */
    async close() {},
  };
}
