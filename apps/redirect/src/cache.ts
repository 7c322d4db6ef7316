import { LRUCache } from "lru-cache";
import { CHANGES_CHANNEL, findAppLinks, findDomainByHost, findLinkForVisit, onLocalChange, type AppLinks, type Change, type ServedDomain, type VisitLink } from "@shortener/core";
import { isConnectionError, type Database, type Db, type ReadRouter } from "@shortener/db";
import { TtlMemo } from "./memo.ts";

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

/** What `lookup` and `staleWhileDown` need of a cache: the visit's memos and the app-link files' LRU alike. */
type Cache<T> = {
  getStale(key: string): Entry<T> | undefined;
  set(key: string, entry: Entry<T>, ttlMs?: number): void;
};

/**
 * The app-link files kept in memory (CONTRACT §25): at most this many UTF-16 units of JSON text in all
 * (a file is at most 64 KiB), so a thousand domains with files cost at most ~32 MB.
 */
const APP_LINKS_MAX_CHARS = 16 * 1024 * 1024;

/**
 * Resolved domains and links in memory (bounded LRU). Every change made through the API to something
 * that exists is announced on a Postgres NOTIFY channel (CONTRACT §7.12); each process drops what
 * changed when it hears of it. The TTL is a safety net for a notification lost while the listening
 * connection was down. A link's creation is not announced: misses are cached for under a second.
 *
 * While the database is unreachable (CONTRACT §16), a domain or link found before and past its TTL
 * is still served: expired entries stay in the LRU (until evicted) and are used only when the fresh
 * read fails on a lost connection. Nothing can change them meanwhile, since changes go through the
 * same database. Misses are never served stale: an unknown alias then needs the database (a 503).
 *
 * With read replicas (`reads`, CONTRACT §26) a fill reads a replica, but only one known to hold every
 * commit made before the last change this process heard of (or before it started): an announced edit
 * is never read back stale from a replica and cached. A replica's "no such link or domain" is asked
 * again of the primary, since creations are not announced and a miss is cached (CONTRACT §7.12).
 */
export function createResolver(database: Database, now: () => Date, options: CacheOptions = DEFAULT_CACHE, reads?: ReadRouter) {
  const sys = { db: database.db, now };
  /** When this process last heard of a change (its clock, ms): fills must see every commit before it. */
  let changedAt = Date.now();
  /** A fill's read: on a replica that holds every change heard of, a found row as it is, a miss confirmed on the primary. */
  function fill<T>(find: (ctx: { db: Db; now: () => Date }) => Promise<T | null>): () => Promise<T | null> {
    if (!reads) return () => find(sys);
    return async () => {
      const db = reads.reader(changedAt);
      const found = await find({ db, now });
      return found === null && reads.isReplica(db) ? find(sys) : found;
    };
  }
  // Looked up on every visit: a `TtlMemo` (one Map.get on a hit) rather than an LRU's list upkeep (issue #26).
  const domains = new TtlMemo<Entry<ServedDomain>>(10_000, options.ttlMs);
  const links = new TtlMemo<Entry<VisitLink>>(options.maxLinks, options.ttlMs);
  const pendingDomains = new Map<string, Promise<ServedDomain | null>>();
  const pendingLinks = new Map<string, Promise<VisitLink | null>>();
  // App-link files by domain id, read only when one is asked for; dropped with the domains on any domain change.
  const appLinkFiles = new LRUCache<string, Entry<AppLinks>>({
    max: 10_000,
    maxSize: APP_LINKS_MAX_CHARS,
    sizeCalculation: (e) => 1 + (e.value?.appleAppSiteAssociation?.length ?? 0) + (e.value?.assetLinks?.length ?? 0),
    ttl: options.ttlMs,
    noDeleteOnStaleGet: true,
  });
  const appLinks = {
    get: (key: string) => appLinkFiles.get(key),
    getStale: (key: string) => appLinkFiles.get(key, { allowStale: true }),
    set: (key: string, entry: Entry<AppLinks>, ttlMs?: number) => void appLinkFiles.set(key, entry, ttlMs === undefined ? undefined : { ttl: ttlMs }),
    clear: () => appLinkFiles.clear(),
  };
  const pendingAppLinks = new Map<string, Promise<AppLinks | null>>();
  let generation = 0;
  /**
   * The last lookup failed on a lost connection, and none has succeeded since: expired entries are
   * served at once (their lookup goes on in the background) instead of waiting for the database to
   * answer or fail again.
   */
  let isDatabaseDown = false;

  /**
   * One lookup per key at a time (concurrent misses share it). Its result is cached unless a change
   * came meanwhile; on a lost connection it falls back to the expired entry (a found value, never a
   * miss), or fails.
   */
  function lookup<T>(cache: Cache<T>, pending: Map<string, Promise<T | null>>, key: string, read: () => Promise<T | null>, missTtl?: number): Promise<T | null> {
    let running = pending.get(key);
    if (running) return running;
    const seen = generation;
    running = read().then(
      (value) => {
        pending.delete(key);
        isDatabaseDown = false;
        if (seen === generation) cache.set(key, { value }, value === null ? missTtl : undefined);
        return value;
      },
      (error: unknown) => {
        pending.delete(key);
        if (!isConnectionError(error)) throw error;
        isDatabaseDown = true;
        const stale = cache.getStale(key);
        if (stale?.value) return stale.value;
        throw error;
      },
    );
    pending.set(key, running);
    return running;
  }

  /**
   * An expired entry, served while the database is down; undefined when it must be looked up. Called
   * only after a fresh hit was missed: the hot path (a fresh hit) creates no `read` closure.
   */
  function staleWhileDown<T>(cache: Cache<T>, pending: Map<string, Promise<T | null>>, key: string, read: () => Promise<T | null>, missTtl?: number): Entry<T> | undefined {
    if (!isDatabaseDown) return undefined;
    const stale = cache.getStale(key);
    if (!stale?.value) return undefined;
    // Whether the database is back: this lookup (or the next) tells.
    lookup(cache, pending, key, read, missTtl).catch(() => {});
    return stale;
  }

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
    } else if (change.kind === "links") {
      // A bulk change: one notification for the whole batch.
      for (const [, domainId, alias] of change.links) links.delete(`${domainId}/${alias}`);
    } else if (change.kind === "domain") {
      // A domain changed: its cached host entries, its app-link files and, if it went away, its links.
      domains.clear();
      appLinks.clear();
      links.clear();
    }
    generation++;
    changedAt = Date.now();
  }

  /** Listening again after the connection was lost: what changed meanwhile was not announced, so nothing cached is trusted. */
  function onListenAgain(): void {
    domains.clear();
    appLinks.clear();
    links.clear();
    generation++;
    changedAt = Date.now();
  }

  let unlisten: (() => Promise<void>) | undefined;
  let offLocal: (() => void) | undefined;

  return {
    async start(): Promise<void> {
      unlisten = await database.listen(CHANGES_CHANNEL, onNotification, onListenAgain);
      // Changes made in this process (a create, which is not announced) count at once.
      offLocal = onLocalChange(onChange);
    },
    /** The domain a Host names: from memory (synchronously) or one read. */
    domain(host: string): Promise<ServedDomain | null> | ServedDomain | null {
      const key = host.toLowerCase();
      const hit = domains.get(key);
      if (hit) return hit.value;
      const read = fill((ctx) => findDomainByHost(ctx, key));
      const old = staleWhileDown(domains, pendingDomains, key, read);
      return old ? old.value : lookup(domains, pendingDomains, key, read);
    },
    /** The link, from memory or one indexed read; concurrent misses for one key share that read. */
    link(domainId: number, alias: string): Promise<VisitLink | null> | VisitLink | null {
      const key = `${domainId}/${alias}`;
      const hit = links.get(key);
      if (hit) return hit.value;
      const read = fill((ctx) => findLinkForVisit(ctx, domainId, alias));
      const old = staleWhileDown(links, pendingLinks, key, read, options.missTtlMs);
      return old ? old.value : lookup(links, pendingLinks, key, read, options.missTtlMs);
    },
    /** A served domain's app-link files (CONTRACT §25): from memory, or one read by primary key. */
    appLinks(domainId: number): Promise<AppLinks> | AppLinks {
      const key = String(domainId);
      const hit = appLinks.get(key);
      if (hit?.value) return hit.value;
      const read = () => findAppLinks(sys, domainId);
      const old = staleWhileDown(appLinks, pendingAppLinks, key, read);
      if (old?.value) return old.value;
      return lookup(appLinks, pendingAppLinks, key, read).then((found) => found ?? NO_APP_LINKS);
    },
    async stop(): Promise<void> {
      offLocal?.();
      await unlisten?.();
    },
  };
}

export type Resolver = ReturnType<typeof createResolver>;

const NO_APP_LINKS: AppLinks = Object.freeze({ appleAppSiteAssociation: null, assetLinks: null });
