import { resolve } from "node:path";
import { lockDataDir, openDb, type Database } from "@shortener/db";
import type { ImporterEnv } from "../env.ts";
import { CliError } from "./args.ts";

/** The embedded database's settings for a CLI import (docs/adr/0013-import-memory-and-storage.md). */
export const PGLITE_CLI_SETTINGS = { shared_buffers: "48MB" } as const;

/**
 * The database the CLI imports into: DATABASE_URL, else the embedded one in DATA_DIR, which
 * is locked for this process (`unlock` releases it; a no-op for a server).
 */
export async function openCliDatabase(settings: ImporterEnv): Promise<{ database: Database; unlock: () => void }> {
  let database: Database;
  let unlock: () => void = () => {};
  if (settings.DATABASE_URL) {
    // Behind PgBouncer in transaction mode, its job locks need DATABASE_DIRECT_URL (docs/scaling.md).
    database = await openDb({ url: settings.DATABASE_URL, poolSize: 4, ...(settings.DATABASE_DIRECT_URL ? { directUrl: settings.DATABASE_DIRECT_URL } : {}) });
  } else {
    const dataDir = resolve(settings.DATA_DIR);
    try {
      unlock = lockDataDir(dataDir);
    } catch (error) {
      throw new CliError(`${(error as Error).message} (the embedded database is one process at a time: stop the service, or import through the API).`);
    }
    // A small buffer pool: PGlite's 128 MB default is resident memory in its WebAssembly heap, and an
    // import gains nothing measurable from it (the operating system caches the files anyway).
    try {
      database = await openDb({ dataDir, pgliteSettings: PGLITE_CLI_SETTINGS });
    } catch (error) {
      unlock();
      throw error;
    }
  }
  return { database, unlock };
}
