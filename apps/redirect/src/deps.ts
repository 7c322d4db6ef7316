import type { Database } from "@shortener/db";
import type { FailedTries } from "@shortener/web-guard";
import type { CacheOptions } from "./cache.ts";
import type { ClickBufferOptions } from "./clicks.ts";
import type { GeoIp } from "./geoip.ts";

export type RedirectConfig = {
  redirectStatus: 301 | 302 | 307 | 308;
  /** Signs password cookies. */
  secret: string;
  /** Addresses whose X-Forwarded-For is trusted: a list (addresses, CIDR ranges), `true` for any, or false. */
  trustProxy: string[] | boolean;
  /** Read the visitor's country from this request header (lower-case name) instead of GeoIP. */
  geoCountryHeader: string | undefined;
  clickBuffer: ClickBufferOptions;
  cache: CacheOptions;
};

export type RedirectDeps = {
  database: Database;
  /** Where click counts and click batches are written; the main database when omitted. */
  clicksDatabase?: Database;
  now: () => Date;
  config: RedirectConfig;
  /**
   * The failed-try limiter of link passwords (shared with the API in one deployment). Omitted: one over
   * `database` (its `failed_tries` table), closed with the app.
   */
  failedTries?: FailedTries;
  /** Country data; omitted, the visitor side loads DB-IP's in the background. */
  geoIp?: GeoIp;
  log?: { error(obj: unknown, msg?: string): void; warn?(obj: unknown, msg?: string): void };
};
