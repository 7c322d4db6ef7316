import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { bootstrap, resolveSecret, type BootstrapResult } from "@shortener/core";
import { migrate, openDb, openReadRouter, sql, type Database, type ReadRouter } from "@shortener/db";
import type { createApi } from "@shortener/api";
import type { Importer } from "@shortener/worker";
import type { RedirectApp } from "@shortener/redirect";
import { dashboardDir } from "@shortener/web";
import { loggableError, openFailedTries } from "@shortener/web-guard";
import { createAccessLog } from "./access-log.ts";
import { EMBEDDED_SETTINGS, needsInitdb } from "./embedded.ts";
import { oidcSettingsOf, type Env } from "./env.ts";
import { lockDataDir } from "./lock.ts";
import { createMetrics, serveMetrics, type Metrics } from "./metrics.ts";
import { reasonOf, redactUrl, StartError } from "./start-errors.ts";
import { serviceVersion } from "./version.ts";

type ApiApp = Awaited<ReturnType<typeof createApi>>;

export type RunningServer = {
  server: Server;
  database: Database;
  url: string;
  boot: BootstrapResult;
  /** The metrics server (METRICS_PORT), if any. */
  metricsServer: Server | undefined;
  close(): Promise<void>;
};

export type StartOptions = {
  now?: () => Date;
  /**
   * Where access-log lines go (main.ts: stdout). Omitted, there is no access log whatever ACCESS_LOG
   * says: tests and benchmarks that start a server in process stay quiet.
   */
  writeAccessLog?: (line: string) => void;
  /**
   * Creates the embedded database when DATA_DIR holds none yet, before this process opens it (main.ts:
   * in a child process, see embedded.ts). Omitted, this process creates it itself.
   */
  prepareEmbedded?: (dataDir: string) => Promise<void>;
  /** The built dashboard to serve at /app/; omitted: apps/web's `dist/` (a browser test may build its own copy elsewhere). */
  dashboardDir?: string;
};

async function openEmbedded(dataDir: string, prepare: StartOptions["prepareEmbedded"]): Promise<Database> {
  if (prepare && needsInitdb(dataDir)) await prepare(dataDir);
  return openDb({ dataDir, pgliteSettings: EMBEDDED_SETTINGS });
}

/** The name visitors and the API use for this service's own address. */
export function localDomainName(host: string, port: number): string {
  const name = ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost"].includes(host) ? "localhost" : host;
  return `${name}:${port}`;
}

/** How long a start waits for DATABASE_URL or REDIS_URL to answer, and `/readyz` for the database. */
const PROBE_TIMEOUT_MS = 10_000;
const READY_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s from ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** `application_name` of a pool: which process and pool a Postgres session belongs to (metrics read it back). */
function applicationName(pool: string): string {
  return `shortener ${pool} ${hostname()}:${process.pid}`.slice(0, 63);
}

/**
 * A start that cannot use DATABASE_URL (or DATABASE_DIRECT_URL) stops with one line naming it (CONTRACT
 * §16). With `directUrl`, `url` is PgBouncer in transaction mode (CONTRACT §26).
 */
async function openPostgres(url: string, options: { poolSize: number; pool: string; isAsyncCommit?: boolean; directUrl?: string | undefined }): Promise<Database> {
  const database = await openDb({
    url,
    poolSize: options.poolSize,
    applicationName: applicationName(options.pool),
    ...(options.isAsyncCommit ? { isAsyncCommit: true } : {}),
    ...(options.directUrl ? { directUrl: options.directUrl } : {}),
  });
  try {
    await withTimeout(database.db.execute(sql`select 1`), PROBE_TIMEOUT_MS, "the database");
  } catch (error) {
    await database.close().catch(() => {});
    throw new StartError(`DATABASE_URL cannot be reached (${redactUrl(url)}): ${reasonOf(error)}.`);
  }
  if (options.directUrl && database.direct) {
    try {
      await withTimeout(database.direct`select 1`, PROBE_TIMEOUT_MS, "the database");
    } catch (error) {
      await database.close().catch(() => {});
      throw new StartError(`DATABASE_DIRECT_URL cannot be reached (${redactUrl(options.directUrl)}): ${reasonOf(error)}.`);
    }
  }
  return database;
}

/** A start with a REDIS_URL that does not answer stops with one line naming it (CONTRACT §16). */
async function probeRedis(url: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: PROBE_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // ioredis rejects with "Connection is closed."; the event says why.
  let cause: unknown;
  redis.on("error", (error: unknown) => (cause ??= error));
  try {
    await redis.connect();
    await withTimeout(redis.ping(), PROBE_TIMEOUT_MS, "Redis");
  } catch (error) {
    throw new StartError(`REDIS_URL cannot be reached (${redactUrl(url)}): ${reasonOf(cause ?? error)}.`);
  } finally {
    redis.disconnect();
  }
}

/**
 * `/healthz` (alive, and which release: CONTRACT §22) and `/readyz` (the database answers), the same on
 * every role (CONTRACT §16). The `/healthz` body is made once: it is the baseline of `bench:api`.
 */
function createHealth(database: Database, version: string) {
  const alive = JSON.stringify({ status: "ok", version });
  const send = (res: ServerResponse, status: number, body: string, isHead: boolean) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "content-length": Buffer.byteLength(body) });
    res.end(isHead ? undefined : body);
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? "/").split("?", 1)[0];
    const isHead = req.method === "HEAD";
    if (req.method !== "GET" && !isHead) {
      res.setHeader("allow", "GET, HEAD");
      send(res, 405, '{"message":"Only GET and HEAD are supported here.","code":"method_not_allowed","status":405}', false);
    } else if (path === "/healthz") {
      send(res, 200, alive, isHead);
    } else {
      withTimeout(database.db.execute(sql`select 1`), READY_TIMEOUT_MS, "the database").then(
        () => send(res, 200, '{"status":"ok"}', isHead),
        () => send(res, 503, '{"status":"unavailable"}', isHead),
      );
    }
  };
}

/**
 * The service in one process on one port, running the roles of SERVICES: API, tRPC and stats
 * (`api`), the visitor side (`redirect`), the worker (`worker`, alias `importer`: imports, webhook deliveries, click partitions). Every role answers
 * `/healthz` and `/readyz`. A role that does not run is not even loaded: a visitor-side process
 * carries no Fastify, tRPC or pg-boss.
 */
export async function startServer(env: Env, baseLogger: Logger, options: StartOptions | (() => Date) = {}): Promise<RunningServer> {
  // Errors are logged without the values of database queries, hashes or secrets (CONTRACT §15).
  const logger = baseLogger.child({}, { serializers: { err: loggableError } });
  const opts: StartOptions = typeof options === "function" ? { now: options } : options;
  const now = opts.now ?? (() => new Date());
  // Read before anything opens: a root package.json without a version stops the start with one line.
  const version = serviceVersion();
  const runs = new Set(env.SERVICES);
  const unlock = env.DATABASE_URL ? () => {} : lockDataDir(resolve(env.DATA_DIR));
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((error: unknown) => logger.error({ err: error }, "close failed"));
    closers.length = 0;
  };
  try {
    // The roles' modules start loading now, while the database opens (on a first embedded start, while a
    // child process creates it): the imports below then find them loaded. A failure surfaces there.
    if (runs.has("api") || runs.has("worker")) void import("@shortener/worker").catch(() => {});
    if (runs.has("api")) void import("@shortener/api").catch(() => {});
    if (runs.has("redirect")) void import("@shortener/redirect").catch(() => {});
    if (env.REDIS_URL) await probeRedis(env.REDIS_URL);
    const database = env.DATABASE_URL
      ? await openPostgres(env.DATABASE_URL, { poolSize: env.DATABASE_POOL_SIZE, pool: "main", directUrl: env.DATABASE_DIRECT_URL })
      : await openEmbedded(resolve(env.DATA_DIR), opts.prepareEmbedded);
    closers.push(() => database.close());
    await migrate(database);
    // Read replicas (CONTRACT §26): the API's reads and the visitor side's cache fills; PostgreSQL only.
    let reads: ReadRouter | undefined;
    if (env.DATABASE_READ_URL && database.driver === "postgres" && (runs.has("api") || runs.has("redirect"))) {
      const router = openReadRouter({
        primary: database,
        urls: env.DATABASE_READ_URL,
        maxLagMs: env.READ_MAX_LAG_MS,
        poolSize: env.DATABASE_POOL_SIZE,
        applicationName: applicationName("read"),
        log: logger,
      });
      closers.push(() => router.close());
      // A replica that does not answer at start is not an error: it is skipped until it does.
      await router.start();
      reads = router;
    }
    const sys = { db: database.db, now };
    const localDomain = localDomainName(env.HOST, env.PORT);
    const boot = await bootstrap(sys, { adminApiKey: env.ADMIN_API_KEY, localDomain });
    const secret = await resolveSecret(database.db, env.SECRET);
    // One failed-try limiter for link passwords, stats passwords and API keys: in Redis with REDIS_URL,
    // else in the database, so every process of the deployment counts together (CONTRACT §15).
    const failedTries = runs.has("api") || runs.has("redirect") ? await openFailedTries({ database, redisUrl: env.REDIS_URL, now: () => now().getTime(), log: logger, keySecret: secret }) : undefined;
    if (failedTries) closers.push(() => failedTries.close());

    const metrics: Metrics | undefined = env.METRICS_PORT ? createMetrics(version) : undefined;
    metrics?.addPool({ name: "main", database, max: database.driver === "postgres" ? env.DATABASE_POOL_SIZE : 1 });
    if (reads) metrics?.setReads(reads);
    const accessLog = env.ACCESS_LOG === "off" || !opts.writeAccessLog ? undefined : createAccessLog(opts.writeAccessLog);

    // The import queue: the API sends jobs to it; with "worker" (or its alias "importer") in SERVICES this process also runs them.
    // A finished job is announced to webhooks with the API's JSON of it (the serialisers only, not Fastify).
    let queue: Importer | undefined;
    if (runs.has("api") || runs.has("worker")) {
      const { createImporter } = await import("@shortener/worker");
      const { createEventData } = await import("@shortener/api/events");
      queue = createImporter({
        database,
        now,
        log: logger,
        config: { batchSize: env.IMPORT_BATCH_SIZE },
        events: createEventData({ shortUrlScheme: env.SHORT_URL_SCHEME }),
        ...(metrics ? { onRows: metrics.importRows } : {}),
      });
      const started = queue;
      closers.push(() => started.close());
    }

    let api: ApiApp | undefined;
    let isApiPath: (url: string) => boolean = () => false;
    // A backup (embedded only) first writes the visitor side's waiting clicks, once that side exists (below).
    let redirect: RedirectApp | undefined;
    const backup = database.driver === "pglite" ? { dataDir: resolve(env.DATA_DIR), beforeSnapshot: async () => redirect?.flushClicks() } : undefined;
    if (runs.has("api")) {
      const apiModule = await import("@shortener/api");
      isApiPath = apiModule.isApiPath;
      const enqueue = queue;
      const onApi = [metrics?.apiRequest, accessLog?.api].filter((f) => f !== undefined);
      api = await apiModule.createApi({
        database,
        ...(reads ? { reads } : {}),
        now,
        logger,
        config: {
          ...apiModule.DEFAULT_API_CONFIG,
          shortUrlScheme: env.SHORT_URL_SCHEME,
          publicUrl: `${env.SHORT_URL_SCHEME ?? "http"}://${localDomain}`,
          rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
          redisUrl: env.REDIS_URL,
          trustProxy: env.TRUST_PROXY ?? false,
          secret,
          importMaxBytes: env.IMPORT_MAX_BYTES,
          importMaxRows: env.IMPORT_MAX_ROWS,
          domainVerification: env.DOMAIN_VERIFICATION,
          dnsServers: env.DNS_SERVERS ?? [],
          reservedHosts: env.RESERVED_HOSTS,
          webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE,
          // The dashboard's build (apps/web), served at /app/ (CONTRACT §19).
          dashboardDir: opts.dashboardDir ?? dashboardDir,
          version,
          // Workspace invitations are mailed when SMTP_URL is set (docs/teams.md).
          smtpUrl: env.SMTP_URL,
          mailFrom: env.MAIL_FROM,
          oidc: oidcSettingsOf(env),
        },
        ...(enqueue ? { enqueueImport: (jobId: number) => enqueue.enqueue(jobId) } : {}),
        ...(backup ? { backup } : {}),
        ...(failedTries ? { failedTries } : {}),
        ...(onApi.length ? { onRequestDone: onApi.length === 1 ? onApi[0] : (record) => onApi.forEach((f) => f(record)) } : {}),
      });
      const started = api;
      closers.push(() => started.close());
      await api.ready();
    }
    if (runs.has("worker")) {
      await queue?.start();
      // Webhook deliveries are the worker role's too (docs/adr/0023-webhooks.md).
      const { createWebhookWorker } = await import("@shortener/worker");
      const webhooks = createWebhookWorker({ database, now, log: logger, config: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE } });
      closers.push(() => webhooks.close());
      await webhooks.start();
      // And the upkeep of clicks' monthly partitions: made ahead, dropped past CLICK_RETENTION_DAYS (ADR 0025).
      const { createClickPartitionKeeper } = await import("@shortener/worker");
      // The same hourly run deletes the audit entries past AUDIT_RETENTION_DAYS (docs/audit.md).
      const partitions = createClickPartitionKeeper({ database, now, log: logger, retentionDays: env.CLICK_RETENTION_DAYS, auditRetentionDays: env.AUDIT_RETENTION_DAYS });
      closers.push(() => partitions.close());
      await partitions.start();
      // And destination health: each active link's destination looked at about once a day (CONTRACT §25, ADR 0054).
      if (env.HEALTH_CHECKS === "on") {
        const { createHealthChecker } = await import("@shortener/worker");
        const { createEventData } = await import("@shortener/api/events");
        const health = createHealthChecker({
          database,
          now,
          log: logger,
          events: createEventData({ shortUrlScheme: env.SHORT_URL_SCHEME }),
          config: { hostRatePerSecond: env.HEALTH_HOST_RATE, timeoutMs: env.HEALTH_TIMEOUT_MS, allowPrivate: env.HEALTH_ALLOW_PRIVATE },
        });
        closers.push(() => health.close());
        health.start();
      }
    }

    if (runs.has("redirect")) {
      const { createRedirect, DEFAULT_CACHE, DEFAULT_CLICK_BUFFER } = await import("@shortener/redirect");
      // The visitor side counts clicks on its own small pool with asynchronous commit (ADR 0008).
      // Its sessions start with `synchronous_commit = off`, a setting PgBouncer does not pass on: on the
      // direct URL when DATABASE_URL is a pooler.
      const clicksUrl = env.DATABASE_DIRECT_URL ?? env.DATABASE_URL;
      const clicksDatabase = clicksUrl ? await openPostgres(clicksUrl, { poolSize: 8, pool: "clicks", isAsyncCommit: true }) : undefined;
      if (clicksDatabase) {
        closers.push(() => clicksDatabase.close());
        metrics?.addPool({ name: "clicks", database: clicksDatabase, max: 8 });
      }
      const onVisit = [metrics?.visit, env.ACCESS_LOG === "all" ? accessLog?.visit : undefined].filter((f) => f !== undefined);
      redirect = createRedirect({
        database,
        ...(reads ? { reads } : {}),
        ...(failedTries ? { failedTries } : {}),
        ...(clicksDatabase ? { clicksDatabase } : {}),
        now,
        log: logger,
        config: {
          redirectStatus: env.REDIRECT_STATUS,
          secret,
          trustProxy: env.TRUST_PROXY ?? false,
          geoCountryHeader: env.GEO_COUNTRY_HEADER,
          clickBuffer: DEFAULT_CLICK_BUFFER,
          cache: DEFAULT_CACHE,
          shortUrlScheme: env.SHORT_URL_SCHEME,
        },
        ...(metrics ? { clickEvents: metrics.clickEvents } : {}),
        ...(onVisit.length ? { onVisitDone: onVisit.length === 1 ? onVisit[0] : (record) => onVisit.forEach((f) => f(record)) } : {}),
      });
      const started = redirect;
      closers.push(() => started.close());
      metrics?.setClickStats(() => started.clickStats());
      await redirect.start();
    }

    // One port: health first (every role), API paths to Fastify's router, every other path straight to the visitor side.
    const health = createHealth(database, version);
    const notServed = (res: ServerResponse) => {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end('{"message":"Resource not found.","code":"not_found","status":404}');
    };
    const server = createServer((req, res) => {
      const url = req.url ?? "/";
      if (isHealthPath(url)) health(req, res);
      else if (api && isApiPath(url)) api.routing(req, res);
      else if (redirect) redirect.handle(req, res);
      else notServed(res);
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen(env.PORT, env.HOST, () => ok());
    });
    closers.push(async () => {
      const closed = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 5_000);
      await closed;
      clearTimeout(force);
    });

    let metricsServer: Server | undefined;
    if (metrics && env.METRICS_PORT) {
      metricsServer = await serveMetrics(metrics, env.HOST, env.METRICS_PORT).catch((error: NodeJS.ErrnoException) => {
        throw new StartError(`METRICS_PORT ${env.METRICS_PORT} on ${env.HOST} cannot be used: ${error.code === "EADDRINUSE" ? "it is already in use" : reasonOf(error)}.`);
      });
      const started = metricsServer;
      closers.push(() => new Promise<void>((ok) => started.close(() => ok())));
    }

    return {
      server,
      database,
      url: `http://${localDomain}`,
      boot,
      metricsServer,
      async close() {
        await closeAll();
        unlock();
      },
    };
  } catch (error) {
    await closeAll();
    unlock();
    throw error;
  }
}

/** A few comparisons: this runs before every visit. */
function isHealthPath(url: string): boolean {
  const c = url.charCodeAt(1);
  if (c !== 104 /* h */ && c !== 114 /* r */) return false;
  return url === "/healthz" || url === "/readyz" || url.startsWith("/healthz?") || url.startsWith("/readyz?");
}
