import { LRUCache } from "lru-cache";
import { CHANGES_CHANNEL, findDomainByHost, findLinkForVisit, onLocalChange, type Change, type ServedDomain, type VisitLink } from "@shortener/core";
import type { Database } from "@shortener/db";

/**
 * `ttlMs`: how long a found link or domain stays cached (changes are announced, so this is only a safety
 * net). `missTtlMs`: how long "no such link" stays cached. Creating a link announces nothing (a notifying
 * commit is serialised in PostgreSQL, which capped creates at ~1,300/s): a new link shows once its cached
 * miss expires, so this must stay under CONTRACT §7.12's one second.
 */
export type CacheOptions = { maxLinks: number; ttlMs: number; missTtlMs: number };
export const DEFAULT_CACHE: CacheOptions = { maxLinks: 100_000, ttlMs: 30_000, missTtlMs: 900 };

/** A cached lookup: the value, or null for "known not to exist" (cached too, so misses stay cheap). */
type Entry<T> = { value: T | null };

/**
 * Resolved domains and links in memory (bounded LRU). Every change made through the API to something
 * that exists is announced on a Postgres NOTIFY channel (CONTRACT §7.12); each process drops what
 * changed when it hears of it. The TTL is a safety net for a notification lost while the listening
 * connection was down. A link's creation is not announced: misses are cached for under a second.
 */
export function createResolver(database: Database, now: () => Date, options: CacheOptions = DEFAULT_CACHE) {
  const sys = { db: database.db, now };
  const domains = new LRUCache<string, Entry<ServedDomain>>({ max: 10_000, ttl: options.ttlMs });
  const links = new LRUCache<string, Entry<VisitLink>>({ max: options.maxLinks, ttl: options.ttlMs });
  const pendingLinks = new Map<string, Promise<VisitLink | null>>();
  let generation = 0;

  function onNotification(payload: string): void {
    let change: Change;
    try {
      change = JSON.parse(payload) as Change;
    } catch {
      return;
    }
    onChange(change);
  }

  function onChange(change: Change): void {
    if (change.kind === "link") {
      links.delete(`${change.domainId}/${change.alias}`);
    } else if (change.kind === "domain") {
      // A domain changed: its cached host entries and, if it went away, its links.
      domains.clear();
      links.clear();
    }
    generation++;
  }

  let unlisten: (() => Promise<void>) | undefined;
  let offLocal: (() => void) | undefined;

  return {
    async start(): Promise<void> {
      unlisten = await database.listen(CHANGES_CHANNEL, onNotification);
      // Changes made in this process (a create, which is not announced) count at once.
      offLocal = onLocalChange(onChange);
    },
    /** The domain a Host names: from memory (synchronously) or one read. */
    domain(host: string): Promise<ServedDomain | null> | ServedDomain | null {
      const key = host.toLowerCase();
      const hit = domains.get(key);
      if (hit) return hit.value;
      const seen = generation;
      return findDomainByHost(sys, key).then((value) => {
        if (seen === generation) domains.set(key, { value });
        return value;
      });
    },
    /** The link, from memory or one indexed read; concurrent misses for one key share that read. */
    link(domainId: number, alias: string): Promise<VisitLink | null> | VisitLink | null {
      const key = `${domainId}/${alias}`;
      const hit = links.get(key);
      if (hit) return hit.value;
      let pending = pendingLinks.get(key);
      if (!pending) {
        const seen = generation;
        pending = findLinkForVisit(sys, domainId, alias).then(
          (value) => {
            pendingLinks.delete(key);
            if (seen === generation) links.set(key, { value }, value ? undefined : { ttl: options.missTtlMs });
            return value;
          },
          (error: unknown) => {
            pendingLinks.delete(key);
            throw error;
          },
        );
        pendingLinks.set(key, pending);
      }
      return pending;
    },
    /** Marks a click-limited link as used up in this process, so the next visits skip the database. */
    markExhausted(link: VisitLink): void {
      link.clicks = Math.max(link.clicks, link.expirationClicks);
    },
    async stop(): Promise<void> {
      offLocal?.();
      await unlisten?.();
    },
  };
}

export type Resolver = ReturnType<typeof createResolver>;
