/** `pnpm db:migrate`: applies the committed migrations to DATABASE_URL. */
import { openDb } from "./client.ts";
import { migrate } from "./migrate.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: db:migrate needs the Postgres to migrate (embedded mode migrates on start).");
  process.exit(1);
}
const database = await openDb({ url, poolSize: 2 });
try {
  await migrate(database);
  console.log("migrations applied");
} finally {
  await database.close();
}
