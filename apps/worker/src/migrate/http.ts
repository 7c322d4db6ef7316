import { setTimeout as sleep } from "node:timers/promises";
import { SourceError, type SourceHttp } from "./source.ts";

export type HttpOptions = {
  /** The source's base URL: request paths are resolved against it. */
  baseUrl: string;
  /** Headers of every request (the source's auth). */
  headers?: Record<string, string>;
  /** Tries of one request on 429, 5xx or a dropped connection before giving up (default 6). */
  tries?: number;
  /** The first wait, doubled at each retry up to `maxDelayMs` (defaults 250 ms, 10 s); a `Retry-After` wins when the source sends one, capped at `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Told before each wait (the CLI prints it). */
  onRetry?: (info: { status: number | null; attempt: number; waitMs: number; path: string }) => void;
};

/**
 * The HTTP client of the live sources (CONTRACT §23): JSON in and out, retries with backoff on 429, 5xx
 * and dropped connections, `SourceError` on 401/403 (the key) and any other 4xx, and on an answer that
 * is not JSON. Nothing of a failed page reaches the adapter, so no half page is ever imported.
 */
export function createSourceHttp(options: HttpOptions): SourceHttp {
  const tries = options.tries ?? 6;
  const baseDelay = options.baseDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 10_000;
  const timeout = options.timeoutMs ?? 30_000;
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;

  return async ({ path, query, headers, method = "GET", body }, signal) => {
    const url = new URL(path.replace(/^\//, ""), base);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    for (let attempt = 1; ; attempt++) {
      let status: number | null = null;
      let retryAfter: number | null = null;
      try {
        const response = await fetch(url, {
          method,
          headers: { accept: "application/json", ...options.headers, ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeout)]) : AbortSignal.timeout(timeout),
        });
        status = response.status;
        const text = await response.text();
        if (response.ok) {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            throw new SourceError(`${url.pathname} answered ${status} with a body that is not JSON.`, status);
          }
        }
        if (status === 401 || status === 403) throw new SourceError(`The source refused the key (${status} on ${url.pathname}): check --key.`, status);
        if (status !== 429 && status < 500) throw new SourceError(`${url.pathname} answered ${status}: ${text.slice(0, 200)}`, status);
        retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      } catch (error) {
        if (error instanceof SourceError) throw error;
        if (signal?.aborted) throw error;
        // A dropped connection or a timeout: retried like a 5xx.
      }
      if (attempt >= tries) throw new SourceError(`${url.pathname} still failed after ${tries} tries (last: ${status ?? "no answer"}).`, status ?? undefined);
      const waitMs = Math.min(maxDelay, retryAfter ?? baseDelay * 2 ** (attempt - 1));
      options.onRetry?.({ status, attempt, waitMs, path: url.pathname });
      await sleep(waitMs, undefined, { signal });
    }
  };
}

/**
 * `Retry-After` as milliseconds to wait; null when absent or unreadable. The standard forms are seconds
 * and an HTTP date; some sources (Dub) send the reset time as a Unix timestamp instead, in seconds or
 * milliseconds — a number too large to be a wait (past 10^9) is read as that moment.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const number = Number(value);
  if (Number.isFinite(number)) {
    if (number < 0) return null;
    if (number < 1e9) return number * 1000;
    return Math.max(0, (number < 1e12 ? number * 1000 : number) - now);
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
