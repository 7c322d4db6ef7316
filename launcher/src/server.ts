import { createServer, type Server } from "node:http";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { createApi, DEFAULT_API_CONFIG, isApiPath } from "@shortener/api";
import { bootstrap, resolveSecret, type BootstrapResult } from "@shortener/core";
import { migrate, openDb, type Database } from "@shortener/db";
import { createImporter, type Importer } from "@shortener/importer";
import { createRedirect, DEFAULT_CACHE, DEFAULT_CLICK_BUFFER } from "@shortener/redirect";
import { loggableError, openFailedTries, type FailedTries } from "@shortener/web-guard";
import type { Env } from "./env.ts";
import { lockDataDir } from "./lock.ts";

export type RunningServer = {
  server: Server;
  database: Database;
  url: string;
  boot: BootstrapResult;
  close(): Promise<void>;
};

/** The name visitors and the API use for this service's own address. */
export function localDomainName(host: string, port: number): string {
  const name = ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost"].includes(host) ? "localhost" : host;
  return `${name}:${port}`;
}

/** Everything in one process on one port: API, tRPC, stats, health, and the visitor side. */
export async function startServer(env: Env, baseLogger: Logger, now: () => Date = () => new Date()): Promise<RunningServer> {
  // Errors are logged without the values of database queries, hashes or secrets (CONTRACT §15).
  const logger = baseLogger.child({}, { serializers: { err: loggableError } });
  const unlock = env.DATABASE_URL ? () => {} : lockDataDir(resolve(env.DATA_DIR));
  let database: Database | undefined;
  let clicksDatabase: Database | undefined;
  let importer: Importer | undefined;
  let failedTries: FailedTries | undefined;
  try {
    database = env.DATABASE_URL
      ? await openDb({ url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE })
      : await openDb({ dataDir: resolve(env.DATA_DIR) });
    await migrate(database);
    const sys = { db: database.db, now };
    const localDomain = localDomainName(env.HOST, env.PORT);
    const boot = await bootstrap(sys, { adminApiKey: env.ADMIN_API_KEY, localDomain });
    const secret = await resolveSecret(database.db, env.SECRET);
    const runs = new Set(env.SERVICES);
    // One failed-try limiter for link passwords, stats passwords and API keys: in Redis with REDIS_URL,
    // else in the database, so every process of the deployment counts together (CONTRACT §15).
    failedTries = await openFailedTries({ database, redisUrl: env.REDIS_URL, now: () => now().getTime(), log: logger });

    // The import queue: the API sends jobs to it; with "importer" in SERVICES this process also runs them.
    const queue = createImporter({ database, now, log: logger, config: { batchSize: env.IMPORT_BATCH_SIZE } });
    importer = queue;
    const api = await createApi({
      database,
      now,
      logger,
      config: {
        ...DEFAULT_API_CONFIG,
        shortUrlScheme: env.SHORT_URL_SCHEME,
        publicUrl: `${env.SHORT_URL_SCHEME ?? "http"}://${localDomain}`,
        rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
        redisUrl: env.REDIS_URL,
        trustProxy: env.TRUST_PROXY ?? false,
        secret,
        importMaxBytes: env.IMPORT_MAX_BYTES,
        importMaxRows: env.IMPORT_MAX_ROWS,
      },
      enqueueImport: (jobId) => queue.enqueue(jobId),
      failedTries,
    });
    await api.ready();
    // The visitor side counts clicks on its own small pool with asynchronous commit (ADR 0008).
    clicksDatabase = env.DATABASE_URL && runs.has("redirect") ? await openDb({ url: env.DATABASE_URL, poolSize: 8, isAsyncCommit: true }) : undefined;
    if (runs.has("importer")) await queue.start();
    const redirect = createRedirect({
      database,
      ...(clicksDatabase ? { clicksDatabase } : {}),
      now,
      failedTries,
      log: logger,
      config: {
        redirectStatus: env.REDIRECT_STATUS,
        secret,
        trustProxy: env.TRUST_PROXY ?? false,
        geoCountryHeader: env.GEO_COUNTRY_HEADER,
        clickBuffer: DEFAULT_CLICK_BUFFER,
        cache: DEFAULT_CACHE,
      },
    });
    if (runs.has("redirect")) await redirect.start();

    // One port: API paths to Fastify's router, every other path straight to the visitor side.
    const notServed = (res: import("node:http").ServerResponse) => {
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end('{"message":"Resource not found.","code":"not_found","status":404}');
    };
    const server = createServer((req, res) => {
      if (isApiPath(req.url ?? "/")) {
        if (runs.has("api")) api.routing(req, res);
        else notServed(res);
      } else if (runs.has("redirect")) redirect.handle(req, res);
      else notServed(res);
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen(env.PORT, env.HOST, () => ok());
    });
    const db = database;
    const tries = failedTries;
    return {
      server,
      database: db,
      url: `http://${localDomain}`,
      boot,
      async close() {
        const closed = new Promise<void>((ok) => server.close(() => ok()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        await closed;
        clearTimeout(force);
        await redirect.close();
        await api.close();
        await queue.close();
        await tries.close();
        await clicksDatabase?.close();
        await db.close();
        unlock();
      },
    };
  } catch (error) {
    await importer?.close().catch(() => {});
    await failedTries?.close().catch(() => {});
    await clicksDatabase?.close().catch(() => {});
    await database?.close().catch(() => {});
    unlock();
    throw error;
  }
}
