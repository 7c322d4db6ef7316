import type { QrCacheOptions, UrlScheme } from "@shortener/core";
import type { Database, ReadRouter } from "@shortener/db";
import type { FailedTries } from "@shortener/web-guard";
import type { CacheOptions } from "./cache.ts";
import type { ClickBufferOptions } from "./clicks.ts";
import type { GeoIp } from "./geoip.ts";
import type { OrphanBufferOptions } from "./orphans.ts";

export type RedirectConfig = {
  redirectStatus: 301 | 302 | 307 | 308;
  /** Signs password cookies. */
  secret: string;
  /** Addresses whose X-Forwarded-For is trusted: a list (addresses, CIDR ranges), `true` for any, or false. */
  trustProxy: string[] | boolean;
  /** Read the visitor's country from this request header (lower-case name) instead of GeoIP. */
  geoCountryHeader: string | undefined;
  clickBuffer: ClickBufferOptions;
  /** How orphan visits are buffered (CONTRACT §21); omitted: DEFAULT_ORPHAN_BUFFER. */
  orphanBuffer?: OrphanBufferOptions;
  cache: CacheOptions;
  /** Scheme of the `short_url` a QR code encodes, as the API's SHORT_URL_SCHEME; undefined: https, http for localhost and IPs. */
  shortUrlScheme?: UrlScheme | undefined;
  /** Drawn QR codes kept in memory; omitted: DEFAULT_QR_CACHE. */
  qrCache?: QrCacheOptions;
};

/** One answered visit, as the access log (`ACCESS_LOG=all`) and the metrics see it: never the query string. */
export type VisitRecord = { method: string; host: string; path: string; status: number; durationMs: number };

/** What the click buffer reports when it writes or drops clicks (metrics). */
export type ClickEvents = {
  /** A batch written: its clicks, its rows, and how long the write took. */
  written(clicks: number, rows: number, seconds: number): void;
  /** Clicks given up on (the buffer was full after failed writes). */
  dropped(clicks: number): void;
};

export type RedirectDeps = {
  database: Database;
  /**
   * Read replicas (DATABASE_READ_URL, CONTRACT §26): the cache's fills read there (resolver in cache.ts);
   * admissions of click-limited links, clicks and LISTEN stay on the primary. Omitted: all on `database`.
   */
  reads?: ReadRouter;
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
  /** Called once per answered visit (CONTRACT §16). Omitted: the visit path does no extra work at all. */
  onVisitDone?: (record: VisitRecord) => void;
  clickEvents?: ClickEvents;
};
