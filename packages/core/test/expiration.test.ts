import { describe, expect, it } from "vitest";
import { admitClicks, admittedCounts, gateVisit, isClickLimited, linkStatus, noteAdmission, type VisitLink } from "../src/index.ts";
import { ADMISSION_CASES, STATUS_CASES, STATUS_NOW } from "./expiration-cases.ts";

/** Pure tests of expiration/ (no database): the database tests hold the SQL copies to the same tables. */
describe("the status rule (CONTRACT §6)", () => {
  it.each(STATUS_CASES)("disabled $disabled, ends $endsAt, clicks $clicks of $expirationClicks → $expected", ({ expected, ...fields }) => {
    expect(linkStatus(fields, STATUS_NOW)).toBe(expected);
  });
});

describe("the click-limit admission rule (CONTRACT §7 step 11)", () => {
  it.each(ADMISSION_CASES)("limit $limit, count $before, $wanted wanted → $admitted admitted, count $after", (c) => {
    const admission = admitClicks({ clicks: c.before, expirationClicks: c.limit }, c.wanted);
    expect(admission).toEqual({ admitted: c.admitted, clicks: c.after });
    expect(isClickLimited({ expirationClicks: c.limit })).toBe(c.limit > 0);
  });

  it("hands each visitor of a group its own count, in arrival order, and null to those past the limit", () => {
    expect(admittedCounts({ admitted: 2, clicks: 5 }, 4)).toEqual([4, 5, null, null]);
    expect(admittedCounts({ admitted: 3, clicks: 3 }, 3)).toEqual([1, 2, 3]);
    expect(admittedCounts({ admitted: 0, clicks: 0 }, 2)).toEqual([null, null]);
    expect(admittedCounts({ admitted: 0, clicks: 0 }, 0)).toEqual([]);
  });

  it("a group never admits more than the limit, and the counts it hands out are distinct", () => {
    for (let limit = 1; limit <= 6; limit++) {
      for (let before = 0; before <= limit + 1; before++) {
        for (let wanted = 1; wanted <= 8; wanted++) {
          const admission = admitClicks({ clicks: before, expirationClicks: limit }, wanted);
          const counts = admittedCounts(admission, wanted).filter((n): n is number => n !== null);
          expect(counts.length).toBe(admission.admitted);
          expect(new Set(counts).size).toBe(counts.length);
          expect(counts.every((n) => n > before && n <= limit)).toBe(true);
        }
      }
    }
  });

  it("a cached link learns its count, and once refused it is expired without asking the database", () => {
    const link = { id: 1, disabled: false, passwordHash: null, endsAt: null, expirationClicks: 3, clicks: 0 } as unknown as VisitLink;
    noteAdmission(link, 2);
    expect(link.clicks).toBe(2);
    expect(gateVisit(link, STATUS_NOW, { hasPasswordPass: false })).toBe("open");
    noteAdmission(link, 1); // a late answer never lowers the count
    expect(link.clicks).toBe(2);
    noteAdmission(link, null);
    expect(link.clicks).toBe(3);
    expect(gateVisit(link, STATUS_NOW, { hasPasswordPass: false })).toBe("expired");
  });
});
