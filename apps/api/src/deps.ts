import type { FastifyBaseLogger } from "fastify";
import type { Database } from "@shortener/db";
import type { FailedTries } from "@shortener/web-guard";

export type ApiConfig = {
  /** Scheme of `short_url` and domain `url`; undefined: https, except http for localhost and IP addresses. */
  shortUrlScheme: "http" | "https" | undefined;
  /**
   * The service's own address (scheme and host): list links use it when a request's Host is neither it
   * nor one of the service's domains (the launcher passes `http://localhost:PORT`, or HOST:PORT).
   */
  publicUrl: string;
  /** Requests a minute per API key (CONTRACT §10); a tRPC batch counts each of its calls. */
  rateLimitPerMinute: number;
  /** Share the rate-limit counters through this Redis; undefined: in this process's memory. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key the rate limits write (one per deployment, or per test run). */
  redisKeyPrefix: string;
  /** Addresses whose X-Forwarded-For is trusted: a list, `true` for any, or false. */
  trustProxy: string[] | boolean;
  bodyLimit: number;
  /** Signs the stats page's password cookies (the launcher's `resolveSecret`). */
  secret: string;
  /** Largest import file (`POST /imports`), in bytes: a larger one is a 413. */
  importMaxBytes: number;
  /** Most data rows an import file may have: more is a 422. */
  importMaxRows: number;
};

export const DEFAULT_API_CONFIG: ApiConfig = {
  shortUrlScheme: undefined,
  publicUrl: "http://localhost",
  rateLimitPerMinute: 120,
  redisUrl: undefined,
  redisKeyPrefix: "shortener:rate-limit:",
  trustProxy: false,
  bodyLimit: 1024 * 1024,
  /** For tests only: the launcher always passes the service's own secret. */
  secret: "insecure-test-secret-insecure-test-secret",
  importMaxBytes: 50 * 1024 * 1024,
  importMaxRows: 1_000_000,
};

export type ApiDeps = {
  database: Database;
  now: () => Date;
  config: ApiConfig;
  logger?: FastifyBaseLogger;
  /**
   * The failed-try limiter (CONTRACT §15) of API keys, stats-page owner keys and stats passwords, shared
   * with the visitor side in one deployment. Omitted: one over Redis (`config.redisUrl`) or the
   * database's `failed_tries` table, closed with the app.
   */
  failedTries?: FailedTries;
  /**
   * Hands a newly created import job to the worker queue (the launcher wires the importer's pg-boss
   * queue here). Omitted, or failing, the job still runs: workers also pick up queued jobs on their own.
   */
  enqueueImport?: (jobId: number) => Promise<void>;
};
