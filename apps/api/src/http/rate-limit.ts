import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { closeRedis, connectRedis, type TryVerdict } from "@shortener/web-guard";
import type { ApiConfig } from "../deps.ts";
import { HttpError } from "../errors.ts";

/** CONTRACT §10: every window is one minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

declare module "fastify" {
  interface FastifyRequest {
    /** The counter the next rate-limit call reads: `k:<api key id>`. */
    rateLimitBucket: string;
  }
}

type LimitResult = { max: number; remaining: number; ttl: number; isExceeded: boolean };
type LimitFn = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<LimitResult>;

/**
 * The API's limit of requests per key (docs/adr/0006-rate-limits.md): `consumeKey` counts them, sets
 * `X-RateLimit-Limit` and `X-RateLimit-Remaining`, and past the limit adds `Retry-After` and
 * `X-RateLimit-Reset` (epoch seconds) and throws a 429 `HttpError`. Failed authentications are the
 * failed-try limiter's (web-guard, `applyTryHeaders`).
 */
export type RateLimiter = {
  /** Counts `cost` requests of the API key `keyId` (a tRPC batch costs one per call). */
  consumeKey(request: FastifyRequest, reply: FastifyReply, keyId: number, cost?: number): Promise<void>;
};

export const tooManyAttempts = () => new HttpError(429, "rate_limited", "Too Many Attempts.");

/**
 * The limit headers of a failed-try verdict (a request without a key this process knows): the limit,
 * what is left of it, and on a refusal `Retry-After` and `X-RateLimit-Reset`, then the 429.
 */
export function applyTryHeaders(reply: FastifyReply, max: number, verdict: TryVerdict): void {
  reply.header("x-ratelimit-limit", max);
  reply.header("x-ratelimit-remaining", verdict.remaining);
  if (verdict.isAllowed) return;
  reply.header("retry-after", verdict.retryAfter);
  reply.header("x-ratelimit-reset", Math.ceil(verdict.resetAt / 1000));
  throw tooManyAttempts();
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
    max: config.rateLimitPerMinute,
    keyGenerator: (request: FastifyRequest) => request.rateLimitBucket,
    cache: 100_000,
  };

  const local = await createLimitFn(app, options);
  let shared: LimitFn | undefined;
  if (config.redisUrl) {
    const redis = await connectRedis(config.redisUrl, { name: "shortener-api", onError: (error) => app.log.error({ err: error }, "rate limits: Redis connection error") });
    app.addHook("onClose", async () => closeRedis(redis));
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
