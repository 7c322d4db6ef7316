import { describe, expect, it } from "vitest";
import { keepableTags } from "../src/migrate/run-migration.ts";

/** A source's tags as links here keep them (CONTRACT §25): a tag that cannot be kept is dropped, never the link. */
describe("keepableTags", () => {
  it.each([
    ["kept as written, trimmed", [" launch ", "Spring"], ["launch", "Spring"], []],
    ["copies alike but for case once, the first spelling", ["Sale", "sale", "SALE"], ["Sale"], []],
    ["a comma or semicolon is dropped", ["a,b", "c;d", "ok"], ["ok"], ["a,b", "c;d"]],
    ["too long is dropped", ["x".repeat(33), "y".repeat(32)], ["y".repeat(32)], ["x".repeat(33)]],
    ["control and bidirectional override characters are dropped", ["bad\u0007", "rtl\u202e", "fine"], ["fine"], ["bad\u0007", "rtl\u202e"]],
    ["empty is dropped", ["", "  "], [], ["", "  "]],
    ["past 20 are dropped", Array.from({ length: 22 }, (_, i) => `t${i}`), Array.from({ length: 20 }, (_, i) => `t${i}`), ["t20", "t21"]],
  ])("%s", (_name, tags, kept, dropped) => {
    expect(keepableTags(tags)).toEqual({ kept, dropped });
  });
});
