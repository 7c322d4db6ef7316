import { describe, expect, it } from "vitest";
import { Memo } from "../src/memo.ts";

describe("Memo (the header memos' bound)", () => {
  it("returns what was set, and undefined for what was not", () => {
    const memo = new Memo<number>(3);
    memo.set("a", 1);
    expect(memo.get("a")).toBe(1);
    expect(memo.get("b")).toBeUndefined();
  });

  it("holds at most twice its size, dropping the older generation whole", () => {
    const memo = new Memo<number>(100);
    for (let i = 0; i < 10_000; i++) memo.set(`k${i}`, i);
    expect(memo.size).toBeLessThanOrEqual(200);
    expect(memo.get("k9999")).toBe(9999);
    expect(memo.get("k0")).toBeUndefined();
  });

  it("keeps a value in use: a hit in the older generation moves it to the newer", () => {
    const memo = new Memo<number>(2);
    memo.set("hot", 1);
    memo.set("x", 2); // young: hot, x
    memo.set("y", 3); // young full → old: hot, x; young: y
    expect(memo.get("hot")).toBe(1); // moved up: young: y, hot
    memo.set("z", 4); // young full → old: y, hot; young: z
    memo.set("w", 5); // young: z, w
    memo.set("v", 6); // young full → old: z, w; hot dropped unless read meanwhile
    expect(memo.get("hot")).toBeUndefined();
    expect(memo.get("w")).toBe(5);
  });
});
