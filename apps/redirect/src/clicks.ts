import { recordClicks, type Click } from "@shortener/core";
import type { Db } from "@shortener/db";

export type ClickBufferOptions = { flushMs: number; maxBatch: number; maxBuffered: number };

export const DEFAULT_CLICK_BUFFER: ClickBufferOptions = { flushMs: 1_000, maxBatch: 2_000, maxBuffered: 200_000 };

/**
 * Clicks wait in memory and are written in batches: every `flushMs`, or as soon as `maxBatch` are
 * waiting. A flush drains the whole buffer in chunks of `maxBatch` (one insert and one counter update
 * each), yielding to the event loop between chunks so visitors are not kept waiting behind it. A failed
 * write keeps its clicks for the next try; past `maxBuffered` the oldest are dropped and logged.
 * `close()` flushes.
 */
export function createClickBuffer(db: Db, options: ClickBufferOptions, log?: { error(obj: unknown, msg?: string): void }) {
  let buffer: Click[] = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  function schedule(): void {
    if (!timer && !flushing) {
      timer = setTimeout(() => void flush(), options.flushMs);
      timer.unref();
    }
  }

  async function drain(): Promise<void> {
    try {
      while (buffer.length) {
        const batch = buffer.splice(0, options.maxBatch);
        try {
          await recordClicks(db, batch);
        } catch (error) {
          log?.error({ err: error, clicks: batch.length }, "writing clicks failed; keeping them for the next flush");
          buffer = batch.concat(buffer);
          const excess = buffer.length - options.maxBuffered;
          if (excess > 0) {
            buffer.splice(0, excess);
            log?.error({ dropped: excess }, "click buffer full: dropped the oldest clicks");
          }
          return;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      flushing = null;
      if (buffer.length) schedule();
    }
  }

  /** Writes what is waiting (joining a flush under way, then draining what came meanwhile). */
  async function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (flushing) await flushing;
    if (!buffer.length) return;
    if (!flushing) flushing = drain();
    await flushing;
  }

  return {
    add(click: Click): void {
      buffer.push(click);
      if (buffer.length >= options.maxBatch && !flushing) void flush();
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
      timer = null;
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
