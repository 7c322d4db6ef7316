/**
 * A bounded memo for values derived from a header's text (a User-Agent, an Accept-Language, a Referer),
 * which a visit looks up on every request: two generations of at most `max` entries each. A hit is one
 * `Map.get`; a value found only in the older generation moves to the newer one; when the newer one is
 * full it becomes the older and the oldest is dropped whole. So at most `2 × max` entries are held, and
 * a value in use is never dropped for longer than one turn. An LRU keeps a strict order at the price of
 * a list update on every hit (lru-cache's `get` cost ~3× a `Map.get` on the visit path, issue #26);
 * these values need no order, only a bound.
 */
export class Memo<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get(key: string): V | undefined {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: string, value: V): void {
    if (this.young.size >= this.max) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  /** Entries held, both generations (an entry moved up may be counted twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }
}

let clock: number | undefined;
const forgetClock = () => {
  clock = undefined;
};

/**
 * `Date.now()`, read at most once a millisecond: a clock read costs 0.2–0.3 µs on these machines (a
 * good part of a visit), and a TTL of seconds needs no finer time. The value is kept until a timer of
 * 1 ms drops it (the way lru-cache's `ttlResolution` does).
 */
export function coarseNow(): number {
  if (clock === undefined) {
    clock = Date.now();
    setTimeout(forgetClock, 1).unref();
  }
  return clock;
}

/** An entry of a `TtlMemo`: its value, and until when (ms, `Date.now()`'s clock) it is fresh. */
type Timed<V> = { value: V; freshUntil: number };

/**
 * A `Memo` whose entries also expire: the resolver's domains and links (cache.ts), looked up on every
 * visit. `get` answers only fresh entries; an expired one stays (until dropped with its generation) for
 * `getStale`, which serves it while the database is unreachable (CONTRACT §16). At most `max` entries
 * in all: two generations of `max / 2`. Times are the real clock's, read through `coarseNow`.
 */
export class TtlMemo<V> {
  private young = new Map<string, Timed<V>>();
  private old = new Map<string, Timed<V>>();
  private readonly half: number;
  private readonly ttlMs: number;

  constructor(max: number, ttlMs: number) {
    this.half = Math.max(1, Math.floor(max / 2));
    this.ttlMs = ttlMs;
  }

  /** The value if it is held and fresh. */
  get(key: string): V | undefined {
    const hit = this.young.get(key) ?? this.promote(key);
    return hit !== undefined && hit.freshUntil > coarseNow() ? hit.value : undefined;
  }

  /** The value if it is held, fresh or not. */
  getStale(key: string): V | undefined {
    return (this.young.get(key) ?? this.promote(key))?.value;
  }

  /** Holds `value` for `ttlMs` (the memo's own when omitted). */
  set(key: string, value: V, ttlMs: number = this.ttlMs): void {
    this.old.delete(key);
    this.put(key, { value, freshUntil: coarseNow() + ttlMs });
  }

  delete(key: string): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  /** Entries held (fresh or not). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** An entry found only in the older generation, moved to the newer one (so it is not dropped next). */
  private promote(key: string): Timed<V> | undefined {
    const aged = this.old.get(key);
    if (aged === undefined) return undefined;
    this.old.delete(key);
    this.put(key, aged);
    return aged;
  }

  private put(key: string, entry: Timed<V>): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, entry);
  }
}
