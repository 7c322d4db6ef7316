import type { IncomingMessage } from "node:http";
import { findOrCreateVisitorSalt, nextUtcDayStart, utcDay, VISITOR_DAY_GRACE_MS, visitorHash, visitorKey, type AgentDigest, type VisitorKey } from "@shortener/core";
import type { Db } from "@shortener/db";
import { clientGroup } from "@shortener/web-guard";

type Log = { error(obj: unknown, msg?: string): void; warn?(obj: unknown, msg?: string): void };

/** A day's salt held in memory: for visits from `start` (inclusive) to `end` (exclusive), in ms. */
type DayKey = { day: string; start: number; end: number; key: VisitorKey };

/** How long before midnight (UTC) the next day's salt is fetched, so the first visits of the day wait for nothing. */
const PREFETCH_MS = 60_000;

/** How long a salt that could not be read is not asked for again. */
const RETRY_MS = 5_000;

/**
 * Unique visitors on the visitor side (CONTRACT §21, docs/adr/0041-unique-visitors-and-orphan-visits.md):
 * a visit's visitor is computed when it is answered — the hash of its client group, User-Agent and link
 * under the salt of its UTC day — and only the hash goes on with the click. The salts come from the
 * database (`visitor_salts`, the same for every process) and are held in memory for their day: today's is
 * read at start, the next day's a minute before midnight; a visit that finds none (the clock jumped, the
 * read failed) waits for it while its answer goes out. A day's salt is forgotten by this process once the
 * day and its grace are over. Neither the address nor the salt is ever logged.
 */
export function createVisitorHasher(db: Db, now: () => Date, clientIp: (req: IncomingMessage) => string, log?: Log) {
  let keys: DayKey[] = [];
  /** When the oldest salt held is past its day and grace, and must be forgotten. */
  let forgetAt = Number.POSITIVE_INFINITY;
  const loading = new Map<string, Promise<VisitorKey | null>>();
  /** A day whose salt could not be read, and until when it is not asked again (the database may be down). */
  const failedUntil = new Map<string, number>();

  function forget(at: number): void {
    keys = keys.filter((k) => k.end + VISITOR_DAY_GRACE_MS > at);
    forgetAt = keys.length ? Math.min(...keys.map((k) => k.end + VISITOR_DAY_GRACE_MS)) : Number.POSITIVE_INFINITY;
  }

  function load(day: string): Promise<VisitorKey | null> {
    let pending = loading.get(day);
    if (pending) return pending;
    if ((failedUntil.get(day) ?? 0) > Date.now()) return Promise.resolve(null);
    pending = findOrCreateVisitorSalt(db, day, now()).then(
      (salt) => {
        const key = visitorKey(salt);
        loading.delete(day);
        failedUntil.delete(day);
        const start = Date.parse(`${day}T00:00:00Z`);
        if (!keys.some((k) => k.day === day)) keys = [...keys, { day, start, end: nextUtcDayStart(start), key }].sort((a, b) => a.start - b.start).slice(-2);
        forget(now().getTime());
        return key;
      },
      (error: unknown) => {
        loading.delete(day);
        failedUntil.set(day, Date.now() + RETRY_MS);
        // The reason only: never a value the statement carried (the salt).
        (log?.warn ?? log?.error)?.({ day, reason: (error as Error).message }, "visitor salt unavailable: these visits count as clicks but not as unique visitors");
        return null;
      },
    );
    loading.set(day, pending);
    return pending;
  }

  /** The salt for a visit at `at` (ms): at once when held, else once read (null if it cannot be). */
  function keyAt(at: number): VisitorKey | Promise<VisitorKey | null> {
    if (at >= forgetAt) forget(at);
    for (const k of keys) {
      if (at >= k.start && at < k.end) {
        if (at >= k.end - PREFETCH_MS && !keys.some((n) => n.start === k.end)) void load(utcDay(k.end));
        return k.key;
      }
    }
    return load(utcDay(at));
  }

  return {
    /** Reads today's salt (at start: the first visits then hash at once). A failure is logged, not thrown. */
    async start(): Promise<void> {
      await load(utcDay(now()));
    },
    /**
     * The visitor of a person's visit to `linkId` at `at` (`agent`: its User-Agent as described once per
     * distinct string, with the digest the hash takes): 16 hex digits, at once when the day's salt is
     * in memory, else a promise (null when the salt could not be had).
     */
    visitorOf(req: IncomingMessage, agent: { readonly digest: AgentDigest }, linkId: number, at: Date): string | Promise<string | null> {
      const group = clientGroup(clientIp(req));
      const userAgent = agent.digest;
      const key = keyAt(at.getTime());
      if (!(key instanceof Promise)) return visitorHash(key, group, userAgent, linkId);
      return key.then((k) => (k ? visitorHash(k, group, userAgent, linkId) : null));
    },
  };
}

export type VisitorHasher = ReturnType<typeof createVisitorHasher>;
