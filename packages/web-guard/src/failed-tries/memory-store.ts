import { LRUCache } from "lru-cache";
import type { TryCount, TryStore } from "./store.ts";

/**
 * Counters in this process's memory: the fallback while the shared store fails, and the store of unit
 * tests. Bounded: at most `maxKeys` keys, the least recently used one dropped first, so memory and the
 * cost of a try stay the same however many clients there are (O(1) a call, no scans).
 */
export function createMemoryStore(options: { maxKeys?: number } = {}): TryStore & { size(): number } {
  const counts = new LRUCache<string, TryCount>({ max: options.maxKeys ?? 100_000 });
  return {
    name: "memory",
    size: () => counts.size,
    async add(key, windowMs, now) {
      const entry = counts.get(key);
      if (!entry || entry.resetAt <= now) {
        const fresh = { count: 1, resetAt: now + windowMs };
        counts.set(key, fresh);
        return { ...fresh };
      }
      entry.count++;
      return { ...entry };
    },
    async remove(key, now) {
      const entry = counts.get(key, { updateAgeOnGet: false });
      if (entry && entry.resetAt > now && entry.count > 0) entry.count--;
    },
    async close() {
      counts.clear();
    },
  };
}
