import { describe, expect, it } from "vitest";
import { createHostLimiter } from "../src/health/host-limiter.ts";

/** Whether `promise` has settled by the time already-queued work has run (no timer involved). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol("pending");
  return (await Promise.race([promise, Promise.resolve().then(() => marker)])) !== marker;
}

/** The per-host limiter of the health checks (apps/worker/src/health/host-limiter.ts), on an injected clock. */
describe("the per-host limiter", () => {
  it("lets the first request to each host go at once, and makes the second to the same host wait", async () => {
    const limiter = createHostLimiter({ perSecond: 2, clock: () => 1000 });
    expect(await isSettled(limiter.acquire("a.example"))).toBe(true);
    expect(await isSettled(limiter.acquire("b.example"))).toBe(true);
    const second = limiter.acquire("A.EXAMPLE");
    expect(await isSettled(second)).toBe(false);
    limiter.close();
    expect(await second).toBe(false);
  });

  it("lets a host go again once its spacing has passed", async () => {
    let now = 0;
    const limiter = createHostLimiter({ perSecond: 4, clock: () => now });
    expect(await limiter.acquire("a.example")).toBe(true);
    now = 250;
    expect(await isSettled(limiter.acquire("a.example"))).toBe(true);
    now = 300;
    expect(await isSettled(limiter.acquire("a.example"))).toBe(false);
    limiter.close();
  });

  it("refuses everything once closed, and forgets hosts whose turn has passed", async () => {
    let now = 0;
    const limiter = createHostLimiter({ perSecond: 1000, clock: () => now });
    for (let i = 0; i < 2000; i++) await limiter.acquire(`h${i}.example`);
    now = 10_000;
    await limiter.acquire("late.example");
    expect(limiter.size).toBeLessThan(1100);
    limiter.close();
    expect(await limiter.acquire("a.example")).toBe(false);
  });
});
