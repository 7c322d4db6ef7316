import type { Database } from "@shortener/db";

export type RedirectConfig = {
  redirectStatus: 301 | 302 | 307 | 308;
};

export const DEFAULT_REDIRECT_CONFIG: RedirectConfig = { redirectStatus: 302 };

export type RedirectDeps = {
  database: Database;
  now: () => Date;
  config: RedirectConfig;
  log?: { error(obj: unknown, msg?: string): void };
};
