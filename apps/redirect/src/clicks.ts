import { recordClicks, type Click } from "@shortener/core";
import type { Db } from "@shortener/db";

export type ClickBufferOptions = { flushMs: number; maxBatch: number; maxBuffered: number };

export const DEFAULT_CLICK_BUFFER: ClickBufferOptions = { flushMs: 1_000, maxBatch: 5_000, maxBuffered: 200_000 };

/**
 * Clicks wait in memory and are written in batches (every `flushMs`, or at once when `maxBatch` are
 * waiting): one insert and one counter update per batch instead of per visit. A failed write keeps the
 * clicks for the next try; past `maxBuffered` the oldest are dropped and logged. `close()` flushes.
 */
export function createClickBuffer(db: Db, options: ClickBufferOptions, log?: { error(obj: unknown, msg?: string): void }) {
  let buffer: Click[] = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  function schedule(): void {
    if (!timer) {
      timer = setTimeout(() => void flush(), options.flushMs);
      timer.unref();
    }
  }

  async function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (flushing) return flushing.then(() => (buffer.length ? flush() : undefined));
    if (!buffer.length) return;
    const batch = buffer.slice(0, options.maxBatch);
    buffer = buffer.slice(batch.length);
    flushing = recordClicks(db, batch)
      .catch((error: unknown) => {
        log?.error({ err: error, clicks: batch.length }, "writing clicks failed; keeping them for the next flush");
        buffer = batch.concat(buffer);
        const excess = buffer.length - options.maxBuffered;
        if (excess > 0) {
          buffer.splice(0, excess);
          log?.error({ dropped: excess }, "click buffer full: dropped the oldest clicks");
        }
      })
      .finally(() => {
        flushing = null;
      });
    await flushing;
    if (buffer.length) schedule();
  }

  return {
    add(click: Click): void {
      buffer.push(click);
      if (buffer.length >= options.maxBatch) void flush();
      else schedule();
    },
    flush,
    get pending(): number {
      return buffer.length;
    },
    /** Writes everything still waiting; retries a failed write a few times before giving up. */
    async close(): Promise<void> {
      for (let attempt = 0; attempt < 5 && (buffer.length || flushing); attempt++) await flush();
      if (timer) clearTimeout(timer);
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
