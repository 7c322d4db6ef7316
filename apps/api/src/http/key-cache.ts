import { LRUCache } from "lru-cache";
import { authenticateApiKey, CHANGES_CHANNEL, isKeyExpired, onLocalChange, recordKeyUse, sha256, type Authenticated, type Change, type SystemCtx } from "@shortener/core";
import type { Database } from "@shortener/db";

/** `last_used_at` is written at most this often per key and process (CONTRACT §17, docs/adr/0027-scoped-api-keys.md). */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Live API keys in memory, so an authenticated request costs no query. Only hits are kept (an unknown
 * token is looked up every time, and limited per address). A key change — rotation, a deleted user, a
 * deleted named key — drops the cache in this process at once and in every other process when its
 * NOTIFY arrives; the TTL bounds the damage of a lost notification. A key that expires while in memory
 * is dropped at its first use after the moment (by the injected clock).
 */
export function createKeyCache(database: Database, now: () => Date, options = { max: 10_000, ttlMs: 60_000 }) {
  const sys: SystemCtx = { db: database.db, now };
  const keys = new LRUCache<string, Authenticated>({ max: options.max, ttl: options.ttlMs });
  /** Key id → when this process last wrote its `last_used_at` (ms); bounded like the keys. */
  const lastWritten = new LRUCache<number, number>({ max: options.max });
  const writes = new Set<Promise<void>>();
  let generation = 0;
  const drop = (change: Change) => {
    if (change.kind === "keys") {
      keys.clear();
      generation++;
    }
  };
  const offLocal = onLocalChange(drop);
  let unlisten: (() => Promise<void>) | undefined;

  return {
    async start(): Promise<void> {
      unlisten = await database.listen(
        CHANGES_CHANNEL,
        (payload) => {
          try {
            drop(JSON.parse(payload) as Change);
          } catch {
            // not ours
          }
        },
        // Listening again after a lost connection: a rotation announced meanwhile never arrived.
        () => drop({ kind: "keys", userId: 0 }),
      );
    },
    /** The key if this process has verified it lately (no query, no promise), else undefined. */
    peek(token: string): Authenticated | undefined {
      const hash = sha256(token);
      const hit = keys.get(hash);
      if (hit && isKeyExpired(hit, now())) {
        keys.delete(hash);
        return undefined;
      }
      return hit;
    },
    async authenticate(token: string): Promise<Authenticated | null> {
      const hash = sha256(token);
      const hit = keys.get(hash);
      if (hit && !isKeyExpired(hit, now())) return hit;
      if (hit) keys.delete(hash);
      const seen = generation;
      const auth = await authenticateApiKey(sys, token);
      if (auth && seen === generation) keys.set(hash, auth);
      return auth;
    },
    /**
     * Notes a use of the key: writes `last_used_at` unless this process wrote it less than a minute
     * ago, so a busy key costs one write a minute, not one a request. The write does not hold up the
     * request; a failed one is tried again at the next use.
     */
    touch(keyId: number): void {
      const at = now().getTime();
      const last = lastWritten.get(keyId);
      if (last !== undefined && at - last < LAST_USED_WRITE_INTERVAL_MS) return;
      lastWritten.set(keyId, at);
      const write = recordKeyUse(sys, keyId)
        .catch(() => lastWritten.delete(keyId))
        .then(() => undefined)
        .finally(() => writes.delete(write));
      writes.add(write);
    },
    /** Waits for the `last_used_at` writes under way (tests; a clean stop). */
    async settle(): Promise<void> {
      await Promise.all([...writes]);
    },
    async stop(): Promise<void> {
      await Promise.all([...writes]);
      offLocal();
      await unlisten?.().catch(() => {});
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
