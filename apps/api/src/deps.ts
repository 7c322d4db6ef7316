import type { FastifyBaseLogger } from "fastify";
import type { Database } from "@shortener/db";

export type ApiConfig = {
  /** Scheme of `short_url` and domain `url`; undefined: https, except http for localhost and IP addresses. */
  shortUrlScheme: "http" | "https" | undefined;
  rateLimitPerMinute: number;
  /** Addresses whose X-Forwarded-For is trusted: a list, `true` for any, or false. */
  trustProxy: string[] | boolean;
  bodyLimit: number;
};

export const DEFAULT_API_CONFIG: ApiConfig = {
  shortUrlScheme: undefined,
  rateLimitPerMinute: 120,
  trustProxy: false,
  bodyLimit: 1024 * 1024,
};

export type ApiDeps = {
  database: Database;
  now: () => Date;
  config: ApiConfig;
  logger?: FastifyBaseLogger;
};
