/*
 * What an alias may be (CONTRACT §4), in one place: its shape, the paths it may not take, and the
 * random alias a link gets when none is sent. The links schema, the import, the API's router and the
 * visitor side all ask this file.
 */
import { randomBase62Pooled } from "../secrets/random.ts";

export const MAX_ALIAS_LENGTH = 255;

/** The characters of an alias: `A-Z a-z 0-9 - _`, case-sensitive. */
export const ALIAS_CHARACTERS = /^[A-Za-z0-9_-]+$/;

/** Whether `value` has the shape of an alias: 1–255 of `ALIAS_CHARACTERS`. */
export function isAliasShaped(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_ALIAS_LENGTH && ALIAS_CHARACTERS.test(value);
}

/**
 * The first path segments the service answers itself on its one port: REST (`/api/…`), tRPC, the
 * public stats pages, the health checks and the dashboard (`/app/`, CONTRACT §19). The API's router
 * takes exactly these (`isApiPath`); every other path is a visit. A test asks the live API for its
 * routes and holds them to this list.
 */
export const SERVICE_PATHS = ["api", "trpc", "stats", "healthz", "readyz", "app"] as const;

/**
 * Whole paths the service answers itself without taking a first segment from the aliases: `/tls/ask`,
 * the TLS proxy's question (docs/tls.md). An alias has no `/`, and the only two-segment path of the
 * visitor side is `/{alias}/qr`, so these shadow no link: `tls` stays a free alias.
 */
export const SERVICE_ROUTES = ["/tls/ask"] as const;

/** Paths that are never an alias, in any case: the service's own (§4). */
export const RESERVED_PATHS: readonly string[] = [...SERVICE_PATHS];

const RESERVED = new Set(RESERVED_PATHS);

export function isReservedAlias(alias: string): boolean {
  return RESERVED.has(alias.toLowerCase());
}

/** A random alias is at least this long: 62⁶ ≈ 5.7·10¹⁰ of them per domain. */
export const RANDOM_ALIAS_LENGTH = 6;

/** How many times a write tries a new random alias after a collision before it gives up. */
export const RANDOM_ALIAS_ATTEMPTS = 8;

/**
 * The random alias for try `attempt` (0 first, below `RANDOM_ALIAS_ATTEMPTS`): cryptographically random
 * base-62 (from the process's pool of random bytes: an alias is no secret), one character longer every
 * second try, so a crowded length is left quickly.
 */
export function randomAlias(attempt = 0): string {
  return randomBase62Pooled(RANDOM_ALIAS_LENGTH + Math.floor(attempt / 2));
}
