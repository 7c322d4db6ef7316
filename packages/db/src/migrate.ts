import { fileURLToPath } from "node:url";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { Database } from "./client.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../migrations", import.meta.url));

/** An arbitrary constant: the advisory lock that serialises concurrent migrators on one Postgres. */
const MIGRATION_LOCK = 727_001;

/** Applies every committed migration. Safe to call from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER };
  if (database.driver === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, config);
    return;
  }
  // The lock is a session's: on the direct connection when the main pool goes through PgBouncer.
  const client = database.direct;
  if (!client) throw new Error("postgres client missing");
  const reserved = await client.reserve();
  try {
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(database.db as unknown as PostgresJsDatabase, config);
  } finally {
    await reserved`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    reserved.release();
  }
}
