import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { openDb, type Database } from "./client.ts";
import { migrate, MIGRATIONS_FOLDER } from "./migrate.ts";

/** The database a test file runs on, chosen by the vitest project (`TEST_DB_DRIVER`). */
export function testDriver(): "pglite" | "postgres" {
  return process.env.TEST_DB_DRIVER === "postgres" ? "postgres" : "pglite";
}

/** Name of the migrated template database that the Postgres project's global setup creates. */
export const TEMPLATE_DB = `shortener_template_${process.env.TEST_RUN_ID ?? "dev"}`;

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DATABASE_URL is not set for the postgres test project");
  return url;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A fresh, migrated database of its own for one test file: an in-memory PGlite, or a new Postgres
 * database cloned from the migrated template. `close()` also drops the Postgres database.
 */
export async function openTestDb(options: { poolSize?: number } = {}): Promise<Database & { url?: string }> {
  if (testDriver() === "pglite") {
    const database = await openDb({ dataDir: undefined });
    await migrate(database);
    return database;
  }
  const name = `shortener_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${TEMPLATE_DB}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl(), name);
  const database = await openDb({ url, poolSize: options.poolSize ?? 10 });
  return {
    ...database,
    url,
    async close() {
      await database.close();
      const cleanup = postgres(adminUrl(), { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/** Global setup of the Postgres project: (re)creates the migrated template database. */
export async function createTemplateDb(): Promise<() => Promise<void>> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists "${TEMPLATE_DB}" with (force)`);
    await admin.unsafe(`create database "${TEMPLATE_DB}"`);
  } finally {
    await admin.end();
  }
  const template = await openDb({ url: withDatabase(adminUrl(), TEMPLATE_DB), poolSize: 2 });
  try {
    await migrate(template);
  } finally {
    await template.close();
  }
  return async () => {
    const cleanup = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    try {
      await cleanup.unsafe(`drop database if exists "${TEMPLATE_DB}" with (force)`);
    } finally {
      await cleanup.end();
    }
  };
}

/** An empty database of this run's driver, no migration applied: PGlite in memory, or a new Postgres database (dropped on close). */
export async function openEmptyDb(): Promise<Database> {
  if (testDriver() === "pglite") return openDb({ dataDir: undefined });
  const name = `shortener_empty_${randomBytes(6).toString("hex")}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const database = await openDb({ url: withDatabase(adminUrl(), name), poolSize: 2 });
  return {
    ...database,
    async close() {
      await database.close();
      const cleanup = postgres(adminUrl(), { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}

/**
 * Applies the committed migrations up to (not including) the one whose tag ends with `tagSuffix`, as a
 * database of an older release has them: the upgrade test of that migration then plants old rows and
 * runs `migrate`.
 */
export async function migrateBefore(database: Database, tagSuffix: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "migrations-"));
  try {
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
    const cut = journal.entries.findIndex((e) => e.tag.endsWith(tagSuffix));
    if (cut <= 0) throw new Error(`no migration ${tagSuffix} after the first`);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
    if (database.driver === "pglite") await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    else await migratePostgres(database.db as unknown as PostgresJsDatabase, { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export { freePort } from "./free-port.ts";

/**
 * Storage for a whole server under test, of the current driver: a temporary `DATA_DIR` for PGlite, or an
 * empty Postgres database of its own (the server migrates it on start). `settings` are the environment
 * variables that point the launcher at it; `close()` removes it.
 */
export async function openServerStorage(): Promise<{ settings: Record<string, string>; close(): Promise<void> }> {
  if (testDriver() === "pglite") {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "shortener-server-"));
    return { settings: { DATA_DIR: dir }, close: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const db = await openTestDb();
  await db.db.execute("drop schema public cascade; create schema public; drop schema if exists drizzle cascade;" as never);
  return { settings: { DATABASE_URL: db.url ?? "" }, close: () => db.close() };
}

/**
 * A migrated database that a test shares with a process it starts (the CLI, a launcher in a child
 * process), of the current driver. On Postgres, a database of its own that the test keeps open. PGlite
 * takes one process at a time: a temporary data folder that `withDb` opens (and migrates) only for the
 * length of its callback, so run it between the other process's runs. `settings` point that process at
 * it (DATA_DIR or DATABASE_URL); `close()` removes it.
 */
export type SharedTestDb = { settings: Record<string, string>; withDb<T>(fn: (database: Database) => Promise<T>): Promise<T>; close(): Promise<void> };

export async function openSharedTestDb(): Promise<SharedTestDb> {
  if (testDriver() === "postgres") {
    const database = await openTestDb();
    return { settings: { DATABASE_URL: database.url ?? "" }, withDb: (fn) => fn(database), close: () => database.close() };
  }
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dataDir = mkdtempSync(join(tmpdir(), "shortener-shared-"));
  return {
    settings: { DATA_DIR: dataDir },
    async withDb(fn) {
      const database = await openDb({ dataDir });
      try {
        await migrate(database);
        return await fn(database);
      } finally {
        await database.close();
      }
    },
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/**
 * A TCP proxy on 127.0.0.1 in front of `target` (host:port), for outage tests (CONTRACT §16): `stop()`
 * closes its port (new connections are refused) and cuts every connection through it, as a database
 * that went away; `start()` opens the same port again. `via(url)` is a database URL through it.
 */
export async function createTcpProxy(target: { host: string; port: number }) {
  const { createServer, connect } = await import("node:net");
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  function open(): Promise<void> {
    const listener = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server = listener;
    return new Promise((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(port, "127.0.0.1", () => {
        const address = listener.address();
        port = typeof address === "object" && address ? address.port : port;
        resolve();
      });
    });
  }

  await open();
  return {
    get port() {
      return port;
    },
    /** `url` with its host and port replaced by the proxy's. */
    via(url: string): string {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    /** The database goes away: the port is closed and every connection through it cut. */
    async stop(): Promise<void> {
      const closing = server;
      server = undefined;
      if (!closing) return;
      const closed = new Promise<void>((resolve) => closing.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await closed;
    },
    /** The database is back, on the same port. */
    async start(): Promise<void> {
      if (!server) await open();
    },
    get isUp(): boolean {
      return server !== undefined;
    },
  };
}

export type TcpProxy = Awaited<ReturnType<typeof createTcpProxy>>;

export type ProxiedTestDb = { direct: Database & { url?: string }; viaProxy: Database; proxy: TcpProxy; close(): Promise<void> };

/**
 * For outage tests (Postgres only): a test database of its own (`openTestDb`), `direct` to set up and
 * check with, and `viaProxy`, a pool of `poolSize` through a TCP proxy the test stops and starts, for
 * the code under test. `close()` brings the proxy back, closes both and drops the database.
 */
export async function openTestDbBehindProxy(poolSize = 4): Promise<ProxiedTestDb> {
  const direct = await openTestDb();
  const target = new URL(direct.url ?? "");
  const proxy = await createTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = await openDb({ url: proxy.via(direct.url ?? ""), poolSize });
  return {
    direct,
    viaProxy,
    proxy,
    async close() {
      await proxy.start();
      await viaProxy.close();
      await proxy.stop();
      await direct.close();
    },
  };
}

export { startReplicatedPostgres, type ReplicatedPostgres } from "./replication-harness.ts";
