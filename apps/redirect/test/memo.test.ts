import { describe, expect, it } from "vitest";
import { Memo, TtlMemo } from "../src/memo.ts";

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

describe("TtlMemo (the resolver's domains and links)", () => {
  it("answers a fresh entry, and an expired one only to getStale", async () => {
    const memo = new TtlMemo<string>(10, 30);
    memo.set("a", "A");
    memo.set("miss", "M", 1_000);
    expect(memo.get("a")).toBe("A");
    await new Promise((ok) => setTimeout(ok, 60));
    expect(memo.get("a")).toBeUndefined();
    expect(memo.getStale("a")).toBe("A");
    // Its own TTL outlives the memo's.
    expect(memo.get("miss")).toBe("M");
  });

  it("forgets what is deleted or cleared, in both generations", () => {
    const memo = new TtlMemo<number>(4, 60_000);
    memo.set("a", 1);
    memo.set("b", 2);
    memo.set("c", 3); // a, b now the older generation
    memo.delete("a");
    expect(memo.getStale("a")).toBeUndefined();
    expect(memo.get("b")).toBe(2);
    memo.clear();
    expect(memo.size).toBe(0);
    expect(memo.getStale("c")).toBeUndefined();
  });

  it("holds at most its size, and keeps what is read", () => {
    const memo = new TtlMemo<number>(100, 60_000);
    for (let i = 0; i < 5_000; i++) {
      memo.set(`k${i}`, i);
      expect(memo.get("hot")).toBe(i === 0 ? undefined : 0);
      if (i === 0) memo.set("hot", 0);
    }
    expect(memo.size).toBeLessThanOrEqual(100);
  });
});
