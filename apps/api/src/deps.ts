import type { FastifyBaseLogger } from "fastify";
import type { Database, ReadRouter } from "@shortener/db";
import type { FailedTries } from "@shortener/web-guard";
import type { OidcSettings } from "./sso/oidc-client.ts";

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
  /** `dns`: a non-admin's domain serves once its TXT record is found (CONTRACT §14); `off`: at once. */
  domainVerification: "dns" | "off";
  /** Resolvers of the verification lookup (`ip`, `ip:port`, `[ipv6]:port`); empty: the system's. */
  dnsServers: string[];
  /** A verification lookup gives up (a 422) after this long. */
  dnsTimeoutMs: number;
  /** Host names no non-admin may claim; `*.name` for every subdomain of name. */
  reservedHosts: string[];
  /** WEBHOOK_ALLOW_PRIVATE: webhooks may target private, loopback and link-local addresses (CONTRACT §18). */
  webhookAllowPrivate: boolean;
  /**
   * `/tls/ask`: database lookups a second, in this process, for names it has no answer for in memory;
   * past it a `429` (docs/tls.md). Answers in memory are never limited.
   */
  tlsAskLookupsPerSecond: number;
  /** The built dashboard (apps/web's `dist/`) served at `/app/` (CONTRACT §19); undefined: a "not built" page. */
  dashboardDir: string | undefined;
  /** The release `/healthz` reports (CONTRACT §22): the launcher passes the root package.json's version. */
  version: string;
  /** SMTP_URL: workspace invitations with an email are mailed through it (CONTRACT §24); undefined: never mailed. */
  smtpUrl: string | undefined;
  /** MAIL_FROM: the sender of those mails; undefined: `no-reply@` the host of `publicUrl`. */
  mailFrom: string | undefined;
  /** Single sign-on for the dashboard (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET; docs/sso.md); undefined: off. */
  oidc: OidcSettings | undefined;
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
  domainVerification: "dns",
  dnsServers: [],
  dnsTimeoutMs: 5_000,
  reservedHosts: [],
  webhookAllowPrivate: false,
  tlsAskLookupsPerSecond: 20,
  dashboardDir: undefined,
  /** For tests only: the launcher always passes the release's version (launcher/src/version.ts). */
  version: "0.0.0-test",
  smtpUrl: undefined,
  mailFrom: undefined,
  oidc: undefined,
};

/** One answered API request, as the access log and the metrics see it: never the key, the query string or the body. */
export type ApiRequestRecord = {
  method: string;
  /** The route pattern (`/api/v1/links/:id`), or `unmatched` for a path no route serves. */
  route: string;
  status: number;
  durationMs: number;
  /** The API key's id once the request was authenticated, otherwise null. */
  keyId: number | null;
};

export type ApiDeps = {
  database: Database;
  /**
   * Read replicas (DATABASE_READ_URL, CONTRACT §26): GET requests (lists, shows, statistics, exports,
   * tRPC queries) read through `readerFor(user)`, and every other request, once answered, marks its user
   * as having written (read-your-writes). Omitted: everything on `database`.
   */
  reads?: ReadRouter;
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
  /** Called once per answered request (access log, metrics; CONTRACT §16). Omitted: no per-request hook at all. */
  onRequestDone?: (record: ApiRequestRecord) => void;
  /**
   * `GET /admin/backup` of the embedded database (CONTRACT §22): its data folder, and what to write
   * before the copy (the launcher: the visitor side's click buffer). Omitted (PostgreSQL): a 409.
   */
  backup?: { dataDir: string; beforeSnapshot?: () => Promise<void> };
};
