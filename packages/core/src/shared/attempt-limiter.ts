/**
 * Failed tries per key (a client address and a link), in a fixed window: link passwords on the visitor
 * side, stats passwords on the API. In memory: each process counts its own, so with N processes a
 * client gets at most N × `max` tries a window (docs/adr/0008-visitor-side.md).
 */
export function createAttemptLimiter(options: { max: number; windowMs: number; now: () => number }) {
  const attempts = new Map<string, { count: number; resetAt: number }>();
  return {
    /** Seconds until the client may try again, or 0 when it may try now. */
    retryAfter(key: string): number {
      const entry = attempts.get(key);
      const now = options.now();
      if (!entry || entry.resetAt <= now) return 0;
      return entry.count >= options.max ? Math.ceil((entry.resetAt - now) / 1000) : 0;
    },
    fail(key: string): void {
      const now = options.now();
      const entry = attempts.get(key);
      if (!entry || entry.resetAt <= now) attempts.set(key, { count: 1, resetAt: now + options.windowMs });
      else entry.count++;
      if (attempts.size > 100_000) {
        for (const [k, e] of attempts) if (e.resetAt <= now) attempts.delete(k);
      }
    },
    succeed(key: string): void {
      attempts.delete(key);
    },
  };
}

export type AttemptLimiter = ReturnType<typeof createAttemptLimiter>;
