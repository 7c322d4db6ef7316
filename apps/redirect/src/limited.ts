import { admittedCounts, countLimitedClicks } from "@shortener/core";
import type { Db } from "@shortener/db";

/** The most visitors of one link admitted by one statement. */
const MAX_GROUP = 1_000;

type Waiter = { resolve(count: number | null): void; reject(error: unknown): void };

/**
 * Counts visits to click-limited links in the database before they are answered, grouping the visits
 * that arrive while a link's previous statement is in flight: a lone visitor costs one `UPDATE`, a
 * crowd of 64 costs one `UPDATE` too instead of 64 queued on the same row lock. Each visitor is still
 * admitted only after the database has counted it, and the database alone decides how many fit under
 * the limit, so the limit stays exact across any number of processes.
 */
export function createLimitedCounter(db: Db, now: () => Date) {
  const ctx = { db, now };
  const waiting = new Map<number, Waiter[]>();
  const busy = new Set<number>();

  async function run(linkId: number): Promise<void> {
    try {
      for (;;) {
        const queue = waiting.get(linkId);
        if (!queue?.length) break;
        const group = queue.splice(0, MAX_GROUP);
        try {
          const counts = admittedCounts(await countLimitedClicks(ctx, linkId, group.length), group.length);
          group.forEach((waiter, i) => waiter.resolve(counts[i] ?? null));
        } catch (error) {
          for (const waiter of group) waiter.reject(error);
        }
      }
    } finally {
      busy.delete(linkId);
      waiting.delete(linkId);
    }
  }

  return {
    /** Counts one visit: resolves to the link's count after it, or null when the limit was already reached. */
    count(linkId: number): Promise<number | null> {
      return new Promise((resolve, reject) => {
        const queue = waiting.get(linkId);
        if (queue) queue.push({ resolve, reject });
        else waiting.set(linkId, [{ resolve, reject }]);
        if (!busy.has(linkId)) {
          // Start on the next turn of the event loop, so that the visits read in this one go together
          // (PGlite answers on this thread: without the wait each statement would carry one visit).
          busy.add(linkId);
          setImmediate(() => void run(linkId));
        }
      });
    },
  };
}

export type LimitedCounter = ReturnType<typeof createLimitedCounter>;
