/**
 * At most `perSecond` request starts a second to any one destination host, in this process (CONTRACT
 * §25: "a few requests a second per destination host"): each host has the time its next request may
 * start, and `acquire` waits until then and moves it on by 1/`perSecond` s. Hosts are independent: a
 * slow host never holds back another. Entries of hosts not asked for a while are dropped, so the map
 * stays as small as the set of hosts in flight.
 */
export type HostLimiter = {
  /** Resolves when a request to `host` may start (at once when its last one was long enough ago); false when the limiter was closed meanwhile. */
  acquire(host: string): Promise<boolean>;
  /** Hosts with a pending slot (tests, and the pruning's bound). */
  readonly size: number;
  /** Wakes every waiter with false: nothing more is started. */
  close(): void;
};

export function createHostLimiter(options: { perSecond: number; clock?: () => number }): HostLimiter {
  const spacingMs = 1000 / options.perSecond;
  const clock = options.clock ?? (() => performance.now());
  const nextAt = new Map<string, number>();
  const waiting = new Set<{ timer: NodeJS.Timeout; resolve: (ok: boolean) => void }>();
  let isClosed = false;

  function prune(now: number): void {
    for (const [host, at] of nextAt) if (at <= now) nextAt.delete(host);
  }

  return {
    get size() {
      return nextAt.size;
    },
    acquire(host) {
      if (isClosed) return Promise.resolve(false);
      const key = host.toLowerCase();
      const now = clock();
      if (nextAt.size > 1024) prune(now);
      const at = Math.max(now, nextAt.get(key) ?? now);
      nextAt.set(key, at + spacingMs);
      if (at <= now) return Promise.resolve(true);
      return new Promise((resolve) => {
        const entry = {
          resolve,
          timer: setTimeout(() => {
            waiting.delete(entry);
            resolve(!isClosed);
          }, at - now),
        };
        waiting.add(entry);
      });
    },
    close() {
      isClosed = true;
      for (const entry of waiting) {
        clearTimeout(entry.timer);
        entry.resolve(false);
      }
      waiting.clear();
    },
  };
}
