import { describe, expect, it } from "vitest";
import { rollupBatch, rollupRowsOf, type Click } from "../src/visits/record-clicks.ts";

/** The rule itself: every row `rollupRowsOf` gives for each click, added up one by one (`count` times). */
function naiveRollup(clicks: Click[]) {
  const sums = new Map<string, number>();
  for (const click of clicks) {
    for (let i = 0; i < (click.count ?? 1); i++) {
      const { day, pairs } = rollupRowsOf(click);
      for (const [dimension, value] of pairs) {
        const key = [click.linkId, dimension, day, value].join("|");
        sums.set(key, (sums.get(key) ?? 0) + 1);
      }
    }
  }
  return sums;
}

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number) {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

describe("rollupBatch", () => {
  it.each([1, 2, 3, 4, 5])("sums exactly what rollupRowsOf gives click by click (seed %i)", (seed) => {
    const next = random(seed);
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T;
    const long = `${"é".repeat(300)}x`;
    const start = Date.UTC(2026, 10, 21, 22, 30);
    const clicks: Click[] = Array.from({ length: 3_000 }, () => ({
      linkId: pick([1, 2, 3, 70_000]),
      // Across three UTC days and many hours, with the last millisecond of an hour in the mix.
      at: new Date(next() < 0.05 ? Date.UTC(2026, 10, 21, 23, 59, 59, 999) : start + Math.floor(next() * 50 * 3_600_000)),
      country: pick(["FR", "US", null]),
      platform: pick(["Windows", "iOS", null]),
      browser: pick(["Chrome", "Firefox", null, long]),
      device: pick(["desktop", "mobile"]),
      language: pick(["en", "fr-ca", null]),
      // Values that land on one row: null and '', a long value and its first 255 characters.
      referrer: pick(["example.org", null, "", long, long.slice(0, 255), `${"é".repeat(300)}y`]),
      counted: false,
      rotation: null,
      // Rotation entries served (CONTRACT §25): the `variant` dimension, by URL.
      ...(next() < 0.3 ? { variant: pick(["https://a.example/", "https://b.example/", `https://c.example/${long}`]) } : {}),
      // Groups of identical clicks as the visitor side writes them, and single ones without a count.
      ...(next() < 0.5 ? { count: 1 + Math.floor(next() * 40) } : {}),
      // Bots' visits (CONTRACT §21): counted by name and hour only.
      ...(next() < 0.15 ? { bot: pick(["Googlebot", "Slackbot", long]) } : {}),
    }));
    const rows = rollupBatch(clicks);
    const fast = new Map(rows.map((r) => [[r.linkId, r.dimension, r.day, r.value].join("|"), r.n]));
    expect(fast).toEqual(naiveRollup(clicks));
    // One row per key: the statement's upsert cannot take two rows for one key.
    expect(rows).toHaveLength(fast.size);
  });

  it("gives nothing for no clicks", () => {
    expect(rollupBatch([])).toEqual([]);
  });
});
