import { describe, expect, it } from "vitest";
import { holds, parseLsn } from "../src/replicas.ts";

describe("WAL positions (docs/adr/0055-read-replicas-and-a-pooler.md)", () => {
  it.each([
    ["0/0", 0n],
    ["0/16B3748", 0x16b3748n],
    ["16/B374D848", (0x16n << 32n) | 0xb374d848n],
    ["FFFFFFFF/FFFFFFFF", (1n << 64n) - 1n],
  ])("%s reads as %s", (text, value) => {
    expect(parseLsn(text)).toBe(value);
  });

  it("orders across the 32-bit halves", () => {
    expect(parseLsn("1/0") > parseLsn("0/FFFFFFFF")).toBe(true);
  });

  it.each([
    ["replayed exactly to the reported position", "0/3000148", "0/3000148", true],
    ["replayed past it", "0/3000200", "0/3000148", true],
    ["one record behind", "0/3000100", "0/3000148", false],
    ["a page's end, the reported position past the next page's short header", "0/3002000", "0/3002018", true],
    ["a segment's end, the reported position past its first page's long header", "0/4000000", "0/4000028", true],
    ["behind that page's start", "0/3001FF8", "0/3002018", false],
    ["a page's end, but the reported position further into the next page", "0/3002000", "0/3002030", false],
  ])("%s: %s against %s holds it: %s", (_, replayed, inserted, expected) => {
    expect(holds(parseLsn(replayed), parseLsn(inserted))).toBe(expected);
  });
});
