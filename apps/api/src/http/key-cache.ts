import { LRUCache } from "lru-cache";
import { authenticateApiKey, CHANGES_CHANNEL, onLocalChange, sha256, type Authenticated, type Change, type SystemCtx } from "@shortener/core";
import type { Database } from "@shortener/db";

/**
 * Live API keys in memory, so an authenticated request costs no query. Only hits are kept (an unknown
 * token is looked up every time, and limited per address). A key change — rotation, a deleted user —
 * drops the cache in this process at once and in every other process when its NOTIFY arrives; the TTL
 * bounds the damage of a lost notification.
 */
export function createKeyCache(database: Database, now: () => Date, options = { max: 10_000, ttlMs: 60_000 }) {
  const sys: SystemCtx = { db: database.db, now };
  const keys = new LRUCache<string, Authenticated>({ max: options.max, ttl: options.ttlMs });
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
      return keys.get(sha256(token));
    },
    async authenticate(token: string): Promise<Authenticated | null> {
      const hash = sha256(token);
      const hit = keys.get(hash);
      if (hit) return hit;
      const seen = generation;
      const auth = await authenticateApiKey(sys, token);
      if (auth && seen === generation) keys.set(hash, auth);
      return auth;
    },
    async stop(): Promise<void> {
      offLocal();
      await unlisten?.().catch(() => {});
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
