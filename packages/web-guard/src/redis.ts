import { Redis } from "ioredis";

/**
 * A Redis connection for shared counters, connected before the service serves: an unreachable
 * `REDIS_URL` stops the start with one line naming it. Commands fail at once while disconnected (no
 * offline queue) and time out after a second, so callers can fall back instead of waiting on Redis.
 */
export async function connectRedis(url: string, options: { name: string; onError?: (error: unknown) => void }): Promise<Redis> {
  const redis = new Redis(url, {
    // Shows in CLIENT LIST.
    connectionName: `${options.name}-${process.pid}`,
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  });
  let lastErrorLog = 0;
  redis.on("error", (error: unknown) => {
    if (Date.now() - lastErrorLog < 60_000) return;
    lastErrorLog = Date.now();
    options.onError?.(error);
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
  }
  return redis;
}

/** Closes a connection from `connectRedis`, politely when it is up. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "ready") await redis.quit();
  else redis.disconnect();
}
