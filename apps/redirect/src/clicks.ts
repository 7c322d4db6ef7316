import { recordClicks, type Click } from "@shortener/core";
import { isConnectionError, type Db } from "@shortener/db";
import type { ClickEvents } from "./deps.ts";

/**
 * `maxBatch` and `maxBuffered` count rows: groups of identical clicks (same link, second and traits),
 * not single clicks.
 */
export type ClickBufferOptions = { flushMs: number; maxBatch: number; maxBuffered: number };

export const DEFAULT_CLICK_BUFFER: ClickBufferOptions = { flushMs: 1_000, maxBatch: 2_000, maxBuffered: 200_000 };

/**
 * Where identical clicks meet: nested maps keyed by the link, the second, `counted` and each trait in
 * turn, down to the row. Map keys tell null from "" and need no encoding, and a repeat visit builds no
 * key string (docs/adr/0015-click-groups.md).
 */
type Index = Map<unknown, Index | Click>;

/**
 * Clicks wait in memory and are written in batches: every `flushMs`, or as soon as `maxBatch` rows are
 * waiting. Identical clicks (same link, second and traits) are added up into one row as they arrive,
 * so a busy link costs one row per second and combination of traits, not one per visit
 * (docs/adr/0015-click-groups.md). A flush drains the whole buffer in chunks of `maxBatch` rows (one
 * insert and one counter update each), yielding to the event loop between chunks so visitors are not
 * kept waiting behind it. A failed write keeps its clicks for the next try — while the database is
 * unreachable (CONTRACT §16) they wait in memory and are written when it is back; past `maxBuffered`
 * rows the oldest are dropped, counted (`dropped`) and logged. `close()` flushes.
 *
 * A write whose COMMIT reached the database but whose answer was lost with the connection is retried
 * and so counted twice: clicks are written at least once, not exactly once (the window is the round
 * trip of one COMMIT).
 */
export function createClickBuffer(db: Db, options: ClickBufferOptions, log?: { error(obj: unknown, msg?: string): void; warn?(obj: unknown, msg?: string): void }, events?: ClickEvents) {
  /** The rows waiting, oldest first, and the index that finds a click's row. */
  let rows: Click[] = [];
  let index: Index = new Map();
  /** The rotation index each rotating link served last: every row of the link carries it when written. */
  let rotations = new Map<number, number>();
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  /** Clicks dropped because `maxBuffered` rows were waiting. */
  let dropped = 0;
  /** Clicks taken by the write under way and not yet committed. */
  let writing = 0;

  function schedule(): void {
    if (!timer && !flushing) {
      timer = setTimeout(() => void flush(), options.flushMs);
      timer.unref();
    }
  }

  /**
   * The visitors not yet seen in this buffer's rows, per link: a row keeps the distinct visitors of its
   * clicks (identical clicks may be different people), and a visitor already waiting in another row of
   * its link adds nothing (docs/adr/0041-unique-visitors-and-orphan-visits.md). Emptied with the rows.
   */
  let seen = new Map<number, Set<string>>();
  /** Visitors held in rows: past `maxBuffered` × 4 (a long outage), new ones are no longer kept. */
  let heldVisitors = 0;

  /** The click's visitors not yet held for its link (undefined: none), now marked as held. */
  function freshVisitors(click: Click): string[] | undefined {
    const visitors = click.visitors;
    if (!visitors?.length || heldVisitors >= options.maxBuffered * 4) return undefined;
    let held = seen.get(click.linkId);
    if (!held) seen.set(click.linkId, (held = new Set()));
    let fresh: string[] | undefined;
    for (const visitor of visitors) {
      if (held.has(visitor)) continue;
      held.add(visitor);
      (fresh ??= []).push(visitor);
    }
    if (fresh) heldVisitors += fresh.length;
    return fresh;
  }

  /** One level down the index (made if it is new): no array of keys per click. */
  function down(level: Index, key: unknown): Index {
    let next = level.get(key) as Index | undefined;
    if (!next) level.set(key, (next = new Map()));
    return next;
  }

  /**
   * The row the last click went to, and its second: a click of the same group as the one before it (a
   * busy link's visitors, one after another) goes straight there instead of down eleven maps.
   */
  let last: Click | undefined;
  let lastSecond = 0;

  /** Whether `click` belongs to `row`'s group (the index's keys, compared as the maps compare them). */
  function isSameGroup(row: Click, click: Click, second: number): boolean {
    return (
      second === lastSecond &&
      row.linkId === click.linkId &&
      row.counted === click.counted &&
      row.bot === (click.bot ?? null) &&
      row.variant === (click.variant ?? null) &&
      row.country === click.country &&
      row.platform === click.platform &&
      row.browser === click.browser &&
      row.device === click.device &&
      row.language === click.language &&
      row.referrer === click.referrer
    );
  }

  /** Adds a click (or a group of them) to the row of its group, opening the row if it is the first. */
  function keep(click: Click): void {
    const n = click.count ?? 1;
    const at = Math.floor(click.at.getTime() / 1000);
    const fresh = freshVisitors(click);
    let row = last !== undefined && isSameGroup(last, click, at) ? last : undefined;
    let level = index;
    if (!row) {
      // Down the index: link, second, counted, bot, rotation entry served, then the traits; the referrer finds the row.
      level = down(down(down(down(down(level, click.linkId), at), click.counted), click.bot ?? null), click.variant ?? null);
      level = down(down(down(down(down(level, click.country), click.platform), click.browser), click.device), click.language);
      row = level.get(click.referrer) as Click | undefined;
    }
    if (row) {
      row.count = (row.count ?? 1) + n;
      // A row's list is always one `freshVisitors` made: this buffer's own, safe to extend.
      if (fresh) {
        if (row.visitors) (row.visitors as string[]).push(...fresh);
        else row.visitors = fresh;
      }
    } else {
      // Built field by field in the one order every row has (no spread, no `delete`, which would leave
      // the row in V8's slow dictionary mode): the flush reads thousands of them.
      const opened: Click = {
        linkId: click.linkId,
        at: click.at,
        country: click.country,
        platform: click.platform,
        browser: click.browser,
        device: click.device,
        language: click.language,
        referrer: click.referrer,
        counted: click.counted,
        rotation: click.rotation,
        variant: click.variant ?? null,
        count: n,
        bot: click.bot ?? null,
        visitors: fresh,
      };
      level.set(click.referrer, opened);
      rows.push(opened);
      row = opened;
    }
    last = row;
    lastSecond = at;
  }

  /** Past `maxBuffered` rows, drops the oldest (only after a failed write: otherwise the timer drains). */
  function dropExcess(): void {
    const excess = rows.length - options.maxBuffered;
    if (excess <= 0) return;
    const lost = rows.slice(0, excess).reduce((n, row) => n + (row.count ?? 1), 0);
    dropped += lost;
    const kept = rows.slice(excess);
    rows = [];
    index = new Map();
    last = undefined;
    seen = new Map();
    heldVisitors = 0;
    for (const row of kept) keep(row);
    log?.error({ dropped: lost, droppedInAll: dropped }, "click buffer full: dropped the oldest clicks");
    events?.dropped(lost);
  }

  /** Writes what is waiting now; what comes meanwhile waits for the next flush (timer or size). */
  async function drain(): Promise<void> {
    const taken = rows;
    const takenRotations = rotations;
    rows = [];
    index = new Map();
    last = undefined;
    seen = new Map();
    heldVisitors = 0;
    rotations = new Map();
    for (const group of taken) group.rotation = takenRotations.get(group.linkId) ?? null;
    writing = taken.reduce((n, g) => n + (g.count ?? 1), 0);
    let failed = false;
    try {
      for (let start = 0; start < taken.length; start += options.maxBatch) {
        const batch = taken.slice(start, start + options.maxBatch);
        try {
          const started = events ? performance.now() : 0;
          await recordClicks(db, batch);
          const visits = batch.reduce((n, g) => n + (g.count ?? 1), 0);
          writing -= visits;
          // Metrics count people's clicks: bots' visits are written in the same batches, but are no clicks.
          if (events)
            events.written(
              batch.reduce((n, g) => (g.bot ? n : n + (g.count ?? 1)), 0),
              batch.length,
              (performance.now() - started) / 1000,
            );
        } catch (error) {
          const unwritten = taken.slice(start);
          const waiting = unwritten.reduce((n, g) => n + (g.count ?? 1), 0);
          if (isConnectionError(error)) (log?.warn ?? log?.error)?.({ clicks: waiting, reason: (error as Error).message }, "database unreachable: clicks wait in memory");
          else log?.error({ err: error, clicks: waiting }, "writing clicks failed; keeping them for the next flush");
          // Put them back in front of what came meanwhile, so the oldest are the first dropped.
          const newer = rows;
          rows = [];
          index = new Map();
          last = undefined;
          seen = new Map();
          heldVisitors = 0;
          for (const row of unwritten) keep(row);
          for (const row of newer) keep(row);
          for (const [linkId, rotation] of takenRotations) if (!rotations.has(linkId)) rotations.set(linkId, rotation);
          dropExcess();
          failed = true;
          return;
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      writing = 0;
      flushing = null;
      // A full buffer is written at once, unless the write just failed: then the timer paces the retries.
      if (rows.length >= options.maxBatch && !failed) void flush();
      else if (rows.length) schedule();
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
    if (!rows.length) return;
    flushing = drain();
    await flushing;
  }

  return {
    add(click: Click): void {
      keep(click);
      if (click.rotation !== null) rotations.set(click.linkId, click.rotation);
      if (rows.length >= options.maxBatch && !flushing) void flush();
      else schedule();
    },
    flush,
    /** Clicks waiting to be written, those of a write under way included. */
    get pending(): number {
      let n = writing;
      for (const row of rows) n += row.count ?? 1;
      return n;
    },
    /** Clicks dropped since the start because too many were waiting (`maxBuffered` rows). */
    get dropped(): number {
      return dropped;
    },
    /** Rows waiting to be written: one per group of identical clicks. */
    get pendingRows(): number {
      return rows.length;
    },
    /** Writes everything still waiting; retries a failed write a few times before giving up. */
    async close(): Promise<void> {
      for (let attempt = 0; attempt < 5 && (rows.length || flushing); attempt++) await flush();
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type ClickBuffer = ReturnType<typeof createClickBuffer>;
