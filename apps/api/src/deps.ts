import type { FastifyBaseLogger } from "fastify";
import type { Database } from "@shortener/db";

export type ApiConfig = {
  /** Scheme of `short_url` and domain `url`; undefined: https, except http for localhost and IP addresses. */
  shortUrlScheme: "http" | "https" | undefined;
  rateLimitPerMinute: number;
  /** Addresses whose X-Forwarded-For is trusted: a list, `true` for any, or false. */
  trustProxy: string[] | boolean;
  bodyLimit: number;
  /** Largest import file (`POST /imports`), in bytes: a larger one is a 413. */
  importMaxBytes: number;
  /** Most data rows an import file may have: more is a 422. */
  importMaxRows: number;
};

export const DEFAULT_API_CONFIG: ApiConfig = {
  shortUrlScheme: undefined,
  rateLimitPerMinute: 120,
  trustProxy: false,
  bodyLimit: 1024 * 1024,
  importMaxBytes: 50 * 1024 * 1024,
  importMaxRows: 1_000_000,
};

export type ApiDeps = {
  database: Database;
  now: () => Date;
  config: ApiConfig;
  logger?: FastifyBaseLogger;
  /**
   * Hands a newly created import job to the worker queue (the launcher wires the importer's pg-boss
   * queue here). Omitted, or failing, the job still runs: workers also pick up queued jobs on their own.
   */
  enqueueImport?: (jobId: number) => Promise<void>;
};
