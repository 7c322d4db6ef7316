export * from "./schema/index.ts";
export * as schema from "./schema/index.ts";
export { openDb, queryRows, isUniqueViolation, isForeignKeyViolation, sql } from "./client.ts";
export type { Database, Db, Driver, OpenDbOptions, Schema } from "./client.ts";
export { migrate, MIGRATIONS_FOLDER } from "./migrate.ts";
export { preparedFor } from "./prepared.ts";
export { escapeLike, pgArray } from "./sql-values.ts";
export { lockDataDir } from "./lock.ts";
export { isConnectionError } from "./connection-errors.ts";
