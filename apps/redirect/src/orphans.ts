import { orphanAliasValue, recordDomainVisits, utcDay, type DomainVisit } from "@shortener/core";
import { isConnectionError, type Db, type OrphanKind } from "@shortener/db";

/** `maxKeys`: distinct (domain, kind, day, value) counters held at most; past it, unknown aliases are no longer named. */
export type OrphanBufferOptions = { flushMs: number; maxKeys: number };

export const DEFAULT_ORPHAN_BUFFER: OrphanBufferOptions = { flushMs: 1_000, maxKeys: 20_000 };

type Log = { error(obj: unknown, msg?: string): void; warn?(obj: unknown, msg?: string): void };

/**
 * Orphan visits (CONTRACT §21): visits to a served domain's `/`, to an unknown alias, to a disabled or an
 * expired link — never clicks. They are added up in memory per domain, kind, UTC day and value, and written
 * every `flushMs` in one upsert (core's `recordDomainVisits`, rows in key order). A person's visit counts
 * under its kind (an unknown alias also under `alias`, named); a bot's under `bots` only. A failed write
 * keeps its counts for the next try; past `maxKeys` counters, unknown aliases are counted but no longer
 * named (a scanner trying millions of aliases cannot fill the memory). `close()` writes what is left.
 */
export function createOrphanBuffer(db: Db, options: OrphanBufferOptions, log?: Log) {
  let counts = new Map<string, DomainVisit>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;

  function add(domainId: number, kind: OrphanKind, day: string, value: string): void {
    const key = `${domainId}\u0000${kind}\u0000${day}\u0000${value}`;
    const row = counts.get(key);
    if (row) row.count += 1;
    else if (kind !== "alias" || counts.size < options.maxKeys) counts.set(key, { domainId, kind, day, value, count: 1 });
  }

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
    while (flushing) await flushing;
    if (!counts.size) return;
    const taken = counts;
    counts = new Map();
    flushing = recordDomainVisits(db, [...taken.values()])
      .catch((error: unknown) => {
        if (isConnectionError(error)) (log?.warn ?? log?.error)?.({ reason: (error as Error).message }, "database unreachable: orphan visits wait in memory");
        else log?.error({ err: error }, "writing orphan visits failed; keeping them for the next flush");
        // Put them back under what came meanwhile.
        for (const [key, row] of taken) {
          const newer = counts.get(key);
          if (newer) newer.count += row.count;
          else counts.set(key, row);
        }
        schedule();
      })
      .finally(() => (flushing = null));
    await flushing;
  }

  return {
    /**
     * One orphan visit to `domainId` at `at`: `bot` is the bot's name (botOf) or null for a person;
     * `alias` the unknown alias tried (kind `not_found` only).
     */
    record(domainId: number, kind: Exclude<OrphanKind, "alias" | "bots">, at: Date, bot: string | null, alias?: string): void {
      const day = utcDay(at);
      if (bot !== null) add(domainId, "bots", day, "");
      else {
        add(domainId, kind, day, "");
        if (alias !== undefined) add(domainId, "alias", day, orphanAliasValue(alias));
      }
      schedule();
    },
    flush,
    /** Orphan visits waiting to be written. */
    get pending(): number {
      let n = 0;
      for (const row of counts.values()) if (row.kind !== "alias") n += row.count;
      return n;
    },
    async close(): Promise<void> {
      for (let attempt = 0; attempt < 5 && (counts.size || flushing); attempt++) await flush();
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type OrphanBuffer = ReturnType<typeof createOrphanBuffer>;
