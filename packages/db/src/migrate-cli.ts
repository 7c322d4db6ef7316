/** `pnpm db:migrate`: applies the committed migrations to DATABASE_URL (with DATABASE_DIRECT_URL when that is PgBouncer). */
import { openDb } from "./client.ts";
import { migrate } from "./migrate.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: db:migrate needs the Postgres to migrate (embedded mode migrates on start).");
  process.exit(1);
}
// Behind PgBouncer in transaction mode, the migration lock is a session's: on DATABASE_DIRECT_URL.
const directUrl = process.env.DATABASE_DIRECT_URL;
const database = await openDb({ url, poolSize: 2, ...(directUrl ? { directUrl } : {}) });
try {
  await migrate(database);
  console.log("migrations applied");
} finally {
  await database.close();
}
