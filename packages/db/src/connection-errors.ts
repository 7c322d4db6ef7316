/**
 * The one place that tells "the database cannot be reached" from every other failure (CONTRACT §16):
 * the API answers those with 503, the visitor side with its 503 page, the import worker keeps the job
 * to resume it, and the click buffer keeps its clicks for the next try.
 */

/** Socket errors (Node), and postgres.js's own codes for a connection that closed, ended or never opened in time. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
]);

/**
 * Postgres's own SQLSTATEs for a server going away or not taking connections: class 08 (connection
 * exception), 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
 * shutting down), 53300 too_many_connections.
 */
function isConnectionSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

/**
 * True when `error` (or what it wraps: drizzle's query error, an AggregateError of connection
 * attempts) says the database could not be reached or the connection was lost.
 */
export function isConnectionError(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length && seen.size < 10) {
    const current = queue.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const e = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof e.code === "string" && (CONNECTION_CODES.has(e.code) || isConnectionSqlState(e.code))) return true;
    if (e.cause) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return false;
}
