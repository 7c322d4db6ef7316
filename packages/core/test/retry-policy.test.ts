import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, nextAttemptAt } from "../src/index.ts";

const queuedAt = new Date("2026-11-22T00:00:00.000Z");
const after = (ms: number) => new Date(queuedAt.getTime() + ms);

describe("nextAttemptAt: exponential backoff with jitter for 24 hours", () => {
  it("doubles the wait each time, between half and all of it, capped at an hour", () => {
    const waits = (random: number) =>
      [1, 2, 3, 4, 5, 12, 30].map((number) => (nextAttemptAt(DEFAULT_RETRY_POLICY, { number, queuedAt, failedAt: after(1000) }, () => random)?.getTime() ?? 0) - after(1000).getTime());
    expect(waits(0)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 1_800_000, 1_800_000]);
    expect(waits(0.999999)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 3_600_000, 3_600_000].map((ms) => Math.round(ms / 2 + (0.999999 * ms) / 2)));
  });

  it("spreads retries that failed together", () => {
    const times = new Set(Array.from({ length: 50 }, () => nextAttemptAt(DEFAULT_RETRY_POLICY, { number: 6, queuedAt, failedAt: after(0) })?.getTime()));
    expect(times.size).toBeGreaterThan(40);
  });

  it("tries one last time at the end of the window, then gives up", () => {
    const day = DEFAULT_RETRY_POLICY.retryForMs;
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, { number: 20, queuedAt, failedAt: after(day - 60_000) }, () => 1)).toEqual(after(day));
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, { number: 21, queuedAt, failedAt: after(day) })).toBeNull();
    expect(nextAttemptAt(DEFAULT_RETRY_POLICY, { number: 1, queuedAt, failedAt: after(day + 1) })).toBeNull();
  });

  it("runs on the timings it is given (tests use milliseconds)", () => {
    const fast = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 20, maxDelayMs: 100, retryForMs: 1000 };
    expect(nextAttemptAt(fast, { number: 1, queuedAt, failedAt: after(0) }, () => 1)).toEqual(after(20));
    expect(nextAttemptAt(fast, { number: 9, queuedAt, failedAt: after(500) }, () => 1)).toEqual(after(600));
    expect(nextAttemptAt(fast, { number: 9, queuedAt, failedAt: after(950) }, () => 1)).toEqual(after(1000));
  });
});
