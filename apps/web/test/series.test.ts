import { describe, expect, it } from "vitest";
import {
  addDays,
  countTicks,
  dayLabel,
  dayMs,
  daysInRange,
  daysOf,
  dayTicks,
  describeChart,
  fillDays,
  formatShare,
  MAX_RANGE_DAYS,
  presetRange,
  rangeError,
  rangeFromSearch,
  searchForRange,
  totalsOf,
} from "../src/analytics/series.ts";

/** The analytics view's pure parts (apps/web/src/analytics/series.ts). */
const TODAY = new Date("2026-11-27T02:30:00Z");

describe("days", () => {
  it.each([
    ["2026-11-27", true],
    ["2024-02-29", true],
    ["2026-02-29", false],
    ["2026-02-30", false],
    ["2026-13-01", false],
    ["2026-00-10", false],
    ["0000-01-01", false],
    ["0001-01-01", true],
    ["0099-12-31", true],
    ["9999-12-31", true],
    ["2026-1-1", false],
    ["2026-11-27T00:00", false],
    ["", false],
    ["yesterday", false],
    ["２０２６-11-27", false],
  ])("%j is a day: %s", (day, isDay) => {
    expect(dayMs(day) !== null).toBe(isDay);
  });

  it("add across months, years and leap days, both ways", () => {
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
    expect(addDays("2026-11-27", -29)).toBe("2026-10-29");
    expect(() => addDays("2026-02-30", 1)).toThrow(RangeError);
  });

  it.each([
    [{ from: "2026-11-27", to: "2026-11-27" }, 1],
    [{ from: "2026-10-29", to: "2026-11-27" }, 30],
    [{ from: "2024-01-01", to: "2024-12-31" }, 366],
    [{ from: "2026-11-28", to: "2026-11-27" }, 0],
    [{ from: "nope", to: "2026-11-27" }, 0],
  ])("a range %j has %i days", (range, days) => {
    expect(daysInRange(range)).toBe(days);
    expect(daysOf(range)).toHaveLength(days);
  });

  it("lists every day of a range, oldest first, across a DST change and a month end", () => {
    expect(daysOf({ from: "2026-10-24", to: "2026-11-02" })).toEqual([
      "2026-10-24",
      "2026-10-25",
      "2026-10-26",
      "2026-10-27",
      "2026-10-28",
      "2026-10-29",
      "2026-10-30",
      "2026-10-31",
      "2026-11-01",
      "2026-11-02",
    ]);
  });

  it("never lists more than the API's longest range", () => {
    expect(daysOf({ from: "0001-01-01", to: "9999-12-31" })).toHaveLength(MAX_RANGE_DAYS);
  });

  it.each([
    ["2026-11-27", false, "27 Nov"],
    ["2026-01-01", true, "1 Jan 2026"],
    ["bad", false, "bad"],
  ])("label %s (year: %s) is %s", (day, withYear, label) => {
    expect(dayLabel(day, withYear)).toBe(label);
  });
});

describe("the daily series", () => {
  const range = { from: "2026-11-20", to: "2026-11-26" };

  it("has every day of the range, zero days included, when the API sent only some", () => {
    const points = fillDays(
      [
        { value: "2026-11-21", count: 5, unique: 4, bots: 2 },
        { value: "2026-11-24", count: 1 },
      ],
      range,
    );
    expect(points.map((p) => p.day)).toEqual(daysOf(range));
    expect(points.map((p) => p.humans)).toEqual([0, 5, 0, 0, 1, 0, 0]);
    expect(points.map((p) => p.unique)).toEqual([0, 4, 0, 0, 0, 0, 0]);
    expect(points.map((p) => p.bots)).toEqual([0, 2, 0, 0, 0, 0, 0]);
  });

  it("has every day with no rows at all", () => {
    const points = fillDays([], range);
    expect(points).toHaveLength(7);
    expect(totalsOf(points)).toEqual({ humans: 0, unique: 0, bots: 0 });
  });

  it("ignores rows outside the range, adds a day sent twice, and reads nonsense as zero", () => {
    const points = fillDays(
      [
        { value: "2026-11-19", count: 100 },
        { value: "2026-11-27", count: 100 },
        { value: "2026-11-22", count: 2, bots: 1 },
        { value: "2026-11-22", count: 3, bots: 1 },
        { value: "2026-11-23", count: -4, unique: Number.NaN, bots: Number.POSITIVE_INFINITY },
        { value: "not a day", count: 9 },
        // An hourly row names its day first: counted on that day.
        { value: "2026-11-26T13:00Z", count: 1 },
      ],
      range,
    );
    expect(points.map((p) => p.humans)).toEqual([0, 0, 5, 0, 0, 0, 1]);
    expect(points.map((p) => p.bots)).toEqual([0, 0, 2, 0, 0, 0, 0]);
    expect(totalsOf(points)).toEqual({ humans: 6, unique: 0, bots: 2 });
  });

  it("is empty for a reversed range", () => {
    expect(fillDays([{ value: "2026-11-20", count: 1 }], { from: "2026-11-26", to: "2026-11-20" })).toEqual([]);
  });
});

describe("the axes' ticks", () => {
  it.each([
    [0, [0, 1]],
    [-3, [0, 1]],
    [Number.NaN, [0, 1]],
    [1, [0, 1]],
    [3, [0, 1, 2, 3]],
    [4, [0, 1, 2, 3, 4]],
    [7, [0, 2, 4, 6, 8]],
    [10, [0, 5, 10]],
    [11, [0, 5, 10, 15]],
    [99, [0, 50, 100]],
    [1234, [0, 500, 1000, 1500]],
    [1_000_000, [0, 500_000, 1_000_000]],
  ])("counts up to %d: %j", (max, ticks) => {
    expect(countTicks(max)).toEqual(ticks);
  });

  it("always start at 0, rise in one whole step, reach the maximum, and stay few", () => {
    for (let max = 1; max < 5000; max += 7) {
      const ticks = countTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(5);
      const step = ticks[1] ?? 0;
      expect(Number.isInteger(step) && step > 0).toBe(true);
      ticks.forEach((t, i) => expect(t).toBe(i * step));
    }
  });

  it.each([
    [0, 6, []],
    [1, 6, [0]],
    [7, 7, [0, 1, 2, 3, 4, 5, 6]],
    [7, 4, [0, 2, 4, 6]],
    [30, 6, [4, 9, 14, 19, 24, 29]],
    [90, 6, [14, 29, 44, 59, 74, 89]],
    [5, 0, [4]],
  ])("%i days with at most %i labels: %j (the last day always labelled)", (count, max, ticks) => {
    expect(dayTicks(count, max)).toEqual(ticks);
  });
});

describe("the range presets and the address bar", () => {
  it.each([
    [7, { from: "2026-11-21", to: "2026-11-27" }],
    [30, { from: "2026-10-29", to: "2026-11-27" }],
    [90, { from: "2026-08-30", to: "2026-11-27" }],
  ])("the last %i days end today (UTC)", (days, range) => {
    expect(presetRange(days, TODAY)).toEqual(range);
    expect(daysInRange(range)).toBe(days);
  });

  it("uses today's UTC day, not the local one", () => {
    expect(presetRange(7, new Date("2026-11-27T23:59:59.999Z")).to).toBe("2026-11-27");
    expect(presetRange(7, new Date("2026-11-28T00:00:00Z")).to).toBe("2026-11-28");
  });

  it.each([
    ["", { preset: 30, range: { from: "2026-10-29", to: "2026-11-27" }, error: null }],
    ["days=7", { preset: 7, range: { from: "2026-11-21", to: "2026-11-27" }, error: null }],
    ["days=90", { preset: 90, range: { from: "2026-08-30", to: "2026-11-27" }, error: null }],
    ["days=8", { preset: 30, error: null }],
    ["days=-1", { preset: 30, error: null }],
    ["from=2026-01-01&to=2026-01-31", { preset: null, range: { from: "2026-01-01", to: "2026-01-31" }, error: null }],
    ["from=2026-01-01&to=2026-01-31&days=7", { preset: null, range: { from: "2026-01-01", to: "2026-01-31" } }],
    ["from=2026-02-01&to=2026-01-31", { preset: 30, error: "The start day must not be after the end day." }],
    ["from=2026-02-30&to=2026-03-01", { preset: 30, error: "Choose a valid start day (YYYY-MM-DD)." }],
    ["from=2026-01-01", { preset: 30, error: "Choose a valid end day (YYYY-MM-DD)." }],
    ["to=2026-01-01", { preset: 30, error: "Choose a valid start day (YYYY-MM-DD)." }],
    ["from=<script>&to=2026-01-01", { preset: 30, error: "Choose a valid start day (YYYY-MM-DD)." }],
    ["from=0001-01-01&to=9999-12-31", { preset: 30, error: "Choose at most 3,660 days." }],
  ])("?%s", (search, expected) => {
    expect(rangeFromSearch(new URLSearchParams(search), TODAY)).toMatchObject(expected);
  });

  it("a refused range never reaches the API: the default range is asked for instead", () => {
    const choice = rangeFromSearch(new URLSearchParams("from=2026-02-01&to=2026-01-31"), TODAY);
    expect(rangeError(choice.range)).toBeNull();
  });

  it("writes a preset or a chosen range into the address, keeping other keys", () => {
    const start = new URLSearchParams("from=2026-01-01&to=2026-01-31&domain=4");
    expect(searchForRange(start, { preset: 7 }).toString()).toBe("domain=4&days=7");
    expect(searchForRange(start, { preset: 30 }).toString()).toBe("domain=4");
    expect(searchForRange(new URLSearchParams("days=7"), { range: { from: "2026-03-01", to: "2026-03-02" } }).toString()).toBe("from=2026-03-01&to=2026-03-02");
  });

  it("round-trips through the address", () => {
    for (const preset of [7, 30, 90] as const) {
      expect(rangeFromSearch(searchForRange(new URLSearchParams(), { preset }), TODAY)).toMatchObject({ preset, range: presetRange(preset, TODAY) });
    }
    const range = { from: "2025-12-01", to: "2026-02-28" };
    expect(rangeFromSearch(searchForRange(new URLSearchParams(), { range }), TODAY)).toMatchObject({ preset: null, range });
  });
});

describe("the chart's description for screen readers", () => {
  const series = [
    { key: "humans" as const, label: "Humans", tone: "humans" as const },
    { key: "bots" as const, label: "Bots", tone: "bots" as const },
  ];

  it("says the range, each series' total and the busiest day", () => {
    const points = fillDays(
      [
        { value: "2026-11-21", count: 5, bots: 2 },
        { value: "2026-11-24", count: 9, bots: 1 },
      ],
      { from: "2026-11-20", to: "2026-11-26" },
    );
    expect(describeChart(points, series)).toBe("7 days from 20 Nov 2026 to 26 Nov 2026: 14 humans, 3 bots. Busiest day: 24 Nov 2026 with 9 humans.");
  });

  it("names no busiest day when every day is zero, and says when there are no days", () => {
    expect(describeChart(fillDays([], { from: "2026-11-20", to: "2026-11-21" }), series)).toBe("2 days from 20 Nov 2026 to 21 Nov 2026: 0 humans, 0 bots.");
    expect(describeChart([], series)).toBe("No days to show.");
  });
});

describe("a breakdown's shares", () => {
  it.each([
    [142, 1427, "10%"],
    [99, 1427, "6.9%"],
    [1, 3, "33%"],
    [0, 10, "0%"],
    [1, 100_000, "0%"],
    [1, 10_000, "0%"],
    [3, 1000, "0.3%"],
    [5, 0, "0%"],
    [-2, 10, "0%"],
    [10, 10, "100%"],
  ])("%i of %i is %s", (count, total, text) => {
    expect(formatShare(count, total)).toBe(text);
  });
});
