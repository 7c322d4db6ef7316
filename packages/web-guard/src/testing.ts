import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export type TestRedis = { redis: Redis; url: string; prefix: string; close(): Promise<void> };

/**
 * The machine's Redis for one test file (`@shortener/web-guard/testing`): `url` (the caller passes
 * TEST_REDIS_URL; 127.0.0.1:6379 when unset), connected, and a key prefix of the file's own, so parallel
 * runs and files never share a counter. `close()` removes the keys under the prefix and disconnects.
 * A Redis that is down fails the test: these tests never skip.
 */
export async function openTestRedis(url = "redis://127.0.0.1:6379"): Promise<TestRedis> {
  const prefix = `shortener-test:${randomBytes(6).toString("hex")}:`;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  return {
    redis,
    url,
    prefix,
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  };
}
