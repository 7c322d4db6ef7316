import fastifyRateLimit, { normalizeIP } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import type { ApiConfig } from "../deps.ts";
import { HttpError } from "../errors.ts";

/** CONTRACT §10: every window is one minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

declare module "fastify" {
  interface FastifyRequest {
    /** The counter the next rate-limit call reads: `k:<api key id>` or `a:<client address>`. */
    rateLimitBucket: string;
  }
}

type LimitResult = { max: number; remaining: number; ttl: number; isExceeded: boolean };
type LimitFn = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<LimitResult>;

/**
 * The API's two limits (docs/adr/0006-rate-limits.md): `consumeKey` counts the requests of an API key,
 * `checkAddress` / `failAddress` the failed authentications of a client address. Each sets
 * `X-RateLimit-Limit` and `X-RateLimit-Remaining`; past a limit it adds `Retry-After` and
 * `X-RateLimit-Reset` (epoch seconds) and throws a 429 `HttpError`.
 */
export type RateLimiter = {
  /** Counts `cost` requests of the API key `keyId` (a tRPC batch costs one per call). */
  consumeKey(request: FastifyRequest, reply: FastifyReply, keyId: number, cost?: number): Promise<void>;
  /** Without counting: a 429 when the client address is locked out by failed authentications. */
  checkAddress(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts one failed authentication of the client address; a 429 past the limit. */
  failAddress(request: FastifyRequest, reply: FastifyReply): Promise<void>;
};

export const tooManyAttempts = () => new HttpError(429, "rate_limited", "Too Many Attempts.");

/** The counter of a client address: `request.ip` (X-Forwarded-For only from TRUST_PROXY), IPv6 by /64. */
function addressBucket(request: FastifyRequest): string {
  return `a:${normalizeIP(request.ip)}`;
}

/**
 * Registers @fastify/rate-limit (no route gets it automatically) and returns the limiter. With
 * `config.redisUrl` the counters live in Redis, shared by every process; when Redis fails later, the
 * process falls back to counters in its own memory until Redis answers again (logged).
 */
export async function registerRateLimits(app: FastifyInstance, config: ApiConfig): Promise<RateLimiter> {
  app.decorateRequest("rateLimitBucket", "");
  const options = {
    global: false,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    max: (_request: FastifyRequest, key: string) => (key.startsWith("a:") ? config.failedAuthPerMinute : config.rateLimitPerMinute),
    keyGenerator: (request: FastifyRequest) => request.rateLimitBucket,
    cache: 100_000,
  };

  const local = await createLimitFn(app, options);
  let shared: LimitFn | undefined;
  if (config.redisUrl) {
    const redis = await connectRedis(app, config.redisUrl);
    shared = await createLimitFn(app, { ...options, redis, nameSpace: config.redisKeyPrefix });
  }

  let lastFailureLog = 0;
  const limit: LimitFn = async (request, callOptions) => {
    if (!shared) return local(request, callOptions);
    try {
      return await shared(request, callOptions);
    } catch (error) {
      if (Date.now() - lastFailureLog > RATE_LIMIT_WINDOW_MS) {
        lastFailureLog = Date.now();
        request.log.error({ err: error }, "rate limits: Redis failed, counting in this process's memory meanwhile");
      }
      return local(request, callOptions);
    }
  };

  const apply = (reply: FastifyReply, result: LimitResult) => {
    reply.header("x-ratelimit-limit", result.max);
    reply.header("x-ratelimit-remaining", result.remaining);
    if (!result.isExceeded) return;
    const seconds = Math.max(1, Math.ceil(result.ttl / 1000));
    reply.header("retry-after", seconds);
    reply.header("x-ratelimit-reset", Math.ceil(Date.now() / 1000) + seconds);
    throw tooManyAttempts();
  };

  return {
    async consumeKey(request, reply, keyId, cost = 1) {
      request.rateLimitBucket = `k:${keyId}`;
      let result = await limit(request);
      for (let i = 1; i < cost && !result.isExceeded; i++) result = await limit(request);
      apply(reply, result);
    },
    async checkAddress(request, reply) {
      request.rateLimitBucket = addressBucket(request);
      const result = await limit(request, { increment: false });
      if (result.isExceeded) apply(reply, result);
    },
    async failAddress(request, reply) {
      request.rateLimitBucket = addressBucket(request);
      apply(reply, await limit(request));
    },
  };
}

/** One @fastify/rate-limit instance in a scope of its own, so that a local and a Redis one can coexist. */
async function createLimitFn(app: FastifyInstance, options: Parameters<typeof fastifyRateLimit>[1]): Promise<LimitFn> {
  let fn: ReturnType<FastifyInstance["createRateLimit"]> | undefined;
  await app.register(async (scope) => {
    await scope.register(fastifyRateLimit, options);
    fn = scope.createRateLimit();
  });
  const created = fn;
  if (!created) throw new Error("@fastify/rate-limit did not register");
  return async (request, callOptions) => {
    const result = await created(request, callOptions);
    // `isAllowed` is only true for an allow list, which these limits do not use.
    if (result.isAllowed) return { max: 0, remaining: 0, ttl: 0, isExceeded: false };
    return { max: result.max, remaining: result.remaining, ttl: result.ttl, isExceeded: result.isExceeded };
  };
}

/** Connects before the API serves (an unreachable Redis stops the start) and disconnects on close. */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const redis = new Redis(url, {
    // Shows in CLIENT LIST; the tests use it to see the connection closed with the app.
    connectionName: `shortener-api-${process.pid}`,
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    // While disconnected, fail at once (and count locally) instead of queueing requests behind Redis.
    enableOfflineQueue: false,
  });
  let lastErrorLog = 0;
  redis.on("error", (error: unknown) => {
    if (Date.now() - lastErrorLog < RATE_LIMIT_WINDOW_MS) return;
    lastErrorLog = Date.now();
    app.log.error({ err: error }, "rate limits: Redis connection error");
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL cannot be reached: ${(error as Error).message}`, { cause: error });
  }
  app.addHook("onClose", async () => {
    if (redis.status === "ready") await redis.quit();
    else redis.disconnect();
  });
  return redis;
}
