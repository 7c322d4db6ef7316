/** A try counted in a window: how many there are now, and when the window ends (epoch ms). */
export type TryCount = { count: number; resetAt: number };

/**
 * Where tries are counted. `add` must be atomic: two concurrent calls on one key never read the same
 * count. A window starts with the first try of a key and is not extended by later ones.
 */
export type TryStore = {
  readonly name: string;
  /** Adds one try to `key` (opening a new window of `windowMs` when none is open) and returns the count. */
  add(key: string, windowMs: number, now: number): Promise<TryCount>;
  /** Takes one try of `key` back (a try that turned out right), while its window is open. */
  remove(key: string, now: number): Promise<void>;
  close(): Promise<void>;
};
