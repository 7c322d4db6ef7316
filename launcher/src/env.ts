import { parseSettings, Settings } from "@shortener/settings";

/**
 * The launcher's settings: every setting of CONTRACT §13 (the one table is `@shortener/settings`,
 * shared with the importer's CLI). Read once, in main.ts.
 */
export const Env = Settings;
export type Env = Settings;

/** Parses the environment; an empty value counts as unset. Throws one line naming the first bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  return parseSettings(Env, source);
}
