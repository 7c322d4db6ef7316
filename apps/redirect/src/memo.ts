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
