import { parseSettings, Settings } from "@shortener/settings";

/**
 * The importer CLI's settings: the launcher's names, defaults and checks (one table,
 * `@shortener/settings`), so the operator CLI opens the database the way `pnpm start` does.
 */
export const ImporterEnv = Settings.pick({ DATA_DIR: true, DATABASE_URL: true, DATABASE_DIRECT_URL: true, IMPORT_BATCH_SIZE: true });
export type ImporterEnv = typeof ImporterEnv._zod.output;

/** Parses the environment; an empty value counts as unset. Throws one line naming the first bad variable. */
export function parseImporterEnv(source: Record<string, string | undefined>): ImporterEnv {
  return parseSettings(ImporterEnv, source);
}
