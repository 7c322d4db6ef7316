import { LRUCache } from "lru-cache";
import { CHANGES_CHANNEL, findDomainByHost, onLocalChange, type Change, type SystemCtx } from "@shortener/core";
import type { Database } from "@shortener/db";

/**
 * `lookupsPerSecond`: database lookups a second for names not in memory, in this process (a token
 * bucket holding as many); past it the answer is `limited`. `maxEntries`: names kept, served and unknown
 * each. `ttlMs`: how long an answer stays (changes are announced, so this is only a safety net).
 */
export type ServedHostsOptions = { lookupsPerSecond: number; maxEntries: number; ttlMs: number };
export const DEFAULT_SERVED_HOSTS: ServedHostsOptions = { lookupsPerSecond: 20, maxEntries: 10_000, ttlMs: 60_000 };

export type ServedAnswer = "served" | "unknown" | "limited";

/**
 * Which host names this service serves, for `GET /tls/ask` (docs/tls.md, docs/adr/0035-on-demand-tls.md):
 * the service's own hosts, and every verified domain whose name is the host (no port: a domain stored
 * with a port is served on that port, never behind a proxy on 443). Answers come from memory — the
 * served and the unknown names in two LRUs, so a flood of unknown names never evicts a served one — and a
 * name not in memory costs one indexed lookup, at most `lookupsPerSecond` a second; concurrent questions
 * for one name share it. A domain change drops that name in this process at once and in every other
 * process when its NOTIFY arrives, as the visitor side's cache does (apps/redirect/src/cache.ts).
 */
export function createServedHosts(database: Database, now: () => Date, ownHosts: readonly string[], options: ServedHostsOptions = DEFAULT_SERVED_HOSTS) {
  const sys: SystemCtx = { db: database.db, now };
  const own = new Set(ownHosts);
  const served = new LRUCache<string, true>({ max: options.maxEntries, ttl: options.ttlMs });
  const unknown = new LRUCache<string, true>({ max: options.maxEntries, ttl: options.ttlMs });
  const pending = new Map<string, Promise<ServedAnswer>>();
  /** Bumped by every change: a lookup that started before one does not cache its answer. */
  let generation = 0;
  let tokens = options.lookupsPerSecond;
  let refilledAt = now().getTime();
  let lookups = 0;

  function takeToken(): boolean {
    const at = now().getTime();
    tokens = Math.min(options.lookupsPerSecond, tokens + (Math.max(0, at - refilledAt) / 1000) * options.lookupsPerSecond);
    refilledAt = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }

  function forget(change: Change): void {
    if (change.kind !== "domain") return;
    // The answer for a host depends on the domain of that very name only.
    served.delete(change.name);
    unknown.delete(change.name);
    generation++;
  }

  /** Listening again after a lost connection: a change announced meanwhile never arrived. */
  function forgetAll(): void {
    served.clear();
    unknown.clear();
    generation++;
  }

  function lookUp(host: string): Promise<ServedAnswer> {
    const seen = generation;
    lookups++;
    const running = findDomainByHost(sys, host).then(
      (domain) => {
        pending.delete(host);
        const isServed = domain !== null;
        if (seen === generation) (isServed ? served : unknown).set(host, true);
        return isServed ? "served" : "unknown";
      },
      (error: unknown) => {
        pending.delete(host);
        throw error;
      },
    );
    pending.set(host, running);
    return running;
  }

  const offLocal = onLocalChange(forget);
  let unlisten: (() => Promise<void>) | undefined;

  return {
    async start(): Promise<void> {
      unlisten = await database.listen(
        CHANGES_CHANNEL,
        (payload) => {
          try {
            forget(JSON.parse(payload) as Change);
          } catch {
            // not ours
          }
        },
        forgetAll,
      );
    },
    /** `host` as `parseCertificateName` returns it (lower case, no port, no trailing dot). */
    answer(host: string): ServedAnswer | Promise<ServedAnswer> {
      if (own.has(host) || served.has(host)) return "served";
      if (unknown.has(host)) return "unknown";
      const running = pending.get(host);
      if (running) return running;
      return takeToken() ? lookUp(host) : "limited";
    },
    /** Database lookups made so far (tests and metrics). */
    lookups: () => lookups,
    async stop(): Promise<void> {
      offLocal();
      await unlisten?.();
    },
  };
}

export type ServedHosts = ReturnType<typeof createServedHosts>;
