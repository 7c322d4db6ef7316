import { recordClicks, type Click } from "@shortener/core";
import type { Db } from "@shortener/db";

/**
 * `maxBatch` and `maxBuffered` count rows: groups of identical clicks (same link, second and traits),
 * not single clicks.
 */
export type ClickBufferOptions = { flushMs: number; maxBatch: number; maxBuffered: number };

export const DEFAULT_CLICK_BUFFER: ClickBufferOptions = { flushMs: 1_000, maxBatch: 2_000, maxBuffered: 200_000 };

/** A value as part of a group key: length-prefixed, so no two different lists of values share a key. */
function part(value: string | null): string {
  return value === null ? "-|" : `${value.length}:${value}|`;
}

/** Clicks that may share a row: same link, same second, same traits, same `counted`. */
function groupKey(click: Click): string {
  return (
    `${click.linkId}|${Math.floor(click.at.getTime() / 1000)}|${click.counted ? 1 : 0}|` +
    part(click.country) +
    part(click.platform) +
    part(click.browser) +
    part(click.device) +
    part(click.language) +
    part(click.referrer)
  );
}

/**
 * Clicks wait in memory and are written in batches: every `flushMs`, or as soon as `maxBatch` rows are
 * waiting. Identical clicks (same link, second and traits) are added up into one row as they arrive,
 * so a busy link costs one row per second and combination of traits, not one per visit
 * (docs/adr/0015-click-groups.md). A flush drains the whole buffer in chunks of `maxBatch` rows (one
 * insert and one counter update each), yielding to the event loop between chunks so visitors are not
 * kept waiting behind it. A failed write keeps its clicks for the next try; past `maxBuffered` rows the
 * oldest are dropped and logged. `close()` flushes.
 */
export function createClickBuffer(db: Db, options: ClickBufferOptions, log?: { error(obj: unknown, msg?: string): void }) {
  let groups = new Map<string, Click>();
  /** The rotation index each rotating link served last: every row of the link carries it when written. */
  let rotations = new Map<number, number>();
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;

  function schedule(): void {
    if (!timer && !flushing) {
      timer = setTimeout(() => void flush(), options.flushMs);
      timer.unref();
    }
  }

  /** Adds a click (or a group of them) to the row of its group, opening the row if it is the first. */
  function keep(click: Click): void {
    const key = groupKey(click);
    const group = groups.get(key);
    if (group) group.count = (group.count ?? 1) + (click.count ?? 1);
    else groups.set(key, { ...click, count: click.count ?? 1 });
  }

  function dropExcess(): void {
    let excess = groups.size - options.maxBuffered;
    if (excess <= 0) return;
    let dropped = 0;
    for (const [key, group] of groups) {
      if (excess-- <= 0) break;
      dropped += group.count ?? 1;
      groups.delete(key);
    }
    log?.error({ dropped }, "click buffer full: dropped the oldest clicks");
  }

  /** Writes what is waiting now; what comes meanwhile waits for the next flush (timer or size). */
  async function drain(): Promise<void> {
    const taken = [...groups.values()];
    const takenRotations = rotations;
    groups = new Map();
    rotations = new Map();
    for (const group of taken) group.rotation = takenRotations.get(group.linkId) ?? null;
    let failed = false;
    try {
      for (let start = 0; start < taken.length; start += options.maxBatch) {
        const batch = taken.slice(start, start + options.maxBatch);
        try {
          await recordClicks(db, batch);
        } catch (error) {
          const unwritten = taken.slice(start);
          log?.error({ err: error, clicks: unwritten.reduce((n, g) => n + (g.count ?? 1), 0) }, "writing clicks failed; keeping them for the next flush");
          // Put them back in front of what came meanwhile, so the oldest are the first dropped.
          const newer = groups;
          groups = new Map();
          for (const group of unwritten) keep(group);
          for (const group of newer.values()) keep(group);
          for (const [linkId, rotation] of takenRotations) if (!rotations.has(linkId)) rotations.set(linkId, rotation);
          dropExcess();
          failed = true;
          return;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      flushing = null;
      // A full buffer is written at once, unless the write just failed: then the timer paces the retries.
      if (groups.size >= options.maxBatch && !failed) void flush();
      else if (groups.size) schedule();
    }
  }

  /** Writes what is waiting (joining a flush under way, then writing what came meanwhile). */
  async function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    // A write under way may start the next one as it ends (a full buffer): wait for all of them.
    while (flushing) await flushing;
    if (!groups.size) return;
    flushing = drain();
    await flushing;
  }

  return {
    add(click: Click): void {
      keep(click);
      if (click.rotation !== null) rotations.set(click.linkId, click.rotation);
      if (groups.size >= options.maxBatch && !flushing) void flush();
      else schedule();
    },
    flush,
    /** Clicks waiting to be written. */
    get pending(): number {
      let n = 0;
      for (const group of groups.values()) n += group.count ?? 1;
      return n;
    },
    /** Rows waiting to be written: one per group of identical clicks. */
    get pendingRows(): number {
      return groups.size;
    },
    /** Writes everything still waiting; retries a failed write a few times before giving up. */
    async close(): Promise<void> {
      for (let attempt = 0; attempt < 5 && (groups.size || flushing); attempt++) await flush();
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
