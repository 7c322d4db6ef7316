/** How a failed delivery is retried and when a failing webhook is disabled (CONTRACT §18). */
export type RetryPolicy = {
  /** The first retry comes after about this long; each next one waits twice as long. */
  baseDelayMs: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
  /** A delivery is retried until this long after it was queued, then it fails (after at least one try). */
  retryForMs: number;
  /** A webhook whose every attempt has failed for this long is disabled. */
  disableAfterMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 10_000,
  maxDelayMs: 3_600_000,
  retryForMs: 24 * 3_600_000,
  disableAfterMs: 3 * 24 * 3_600_000,
};

/**
 * When to try a delivery again after its attempt number `attempt` (1-based) failed at `failedAt`, or
 * null to give up. Exponential backoff (base × 2^(attempt−1), capped) with "equal jitter": a random
 * wait between half the delay and all of it, so webhooks that failed together do not retry together.
 * The last try is at the end of the window (`queuedAt + retryForMs`); an attempt at or after it is the last.
 */
export function nextAttemptAt(policy: RetryPolicy, attempt: { number: number; queuedAt: Date; failedAt: Date }, random: () => number = Math.random): Date | null {
  const deadline = attempt.queuedAt.getTime() + policy.retryForMs;
  const failedAt = attempt.failedAt.getTime();
  if (failedAt >= deadline) return null;
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(attempt.number, 1) - 1, 40));
  const wait = delay / 2 + (random() * delay) / 2;
  return new Date(Math.min(deadline, failedAt + Math.max(1, Math.round(wait))));
}
