import { describe, expect, it } from "vitest";
import { indexedPieces, patternTrigrams } from "../src/links/search.ts";

const shares = (common: string[]) => new Map(common.map((t) => [t, 0.9]));
/** The trigrams every `https://example-N.test/path/M` URL has (as ANALYZE reports them). */
const BENCH_COMMON = shares(["exa", "xam", "amp", "mpl", "ple", "le ", "  t", " te", "tes", "est", "st ", "  e", " ex", "  h", " ht", "htt", "ttp", "tps", "ps "]);

describe("patternTrigrams: what pg_trgm takes from ILIKE '%term%'", () => {
  it("pads a word with two spaces after a separator and one before one, lower-cased", () => {
    expect(patternTrigrams("example-1234.TEST").map((t) => t.text)).toEqual(["exa", "xam", "amp", "mpl", "ple", "le ", "  1", " 12", "123", "234", "34 ", "  t", " te", "tes", "est"]);
  });
  it("maps each trigram to the span of the term it comes from (a padding space to its separator)", () => {
    const term = "ab-cd";
    expect(patternTrigrams(term).map((t) => [t.text, term.slice(t.from, t.to + 1)])).toEqual([
      ["ab ", "ab-"],
      ["  c", "-c"],
      [" cd", "-cd"],
    ]);
  });
  it("has none for a term without a three-character word run", () => {
    expect(patternTrigrams("ab")).toEqual([]);
    expect(patternTrigrams("%_.")).toEqual([]);
  });
});

describe("indexedPieces: what the trigram index is asked for", () => {
  it("leaves out the parts of the benchmark's term that every URL has", () => {
    expect(indexedPieces("example-1234.test", BENCH_COMMON)).toEqual(["-1234."]);
    // Words starting with 1 are common too: "1234." then, without the "  1" that "-1234." brings.
    expect(indexedPieces("example-1234.test", new Map([...BENCH_COMMON, ["  1", 0.3]]))).toEqual(["1234."]);
  });
  it("cuts a word between its common and its rare trigrams", () => {
    expect(indexedPieces("example1234", BENCH_COMMON)).toEqual(["le1234"]);
  });
  it("keeps rare parts of several words apart, joined when one separator links them", () => {
    expect(indexedPieces("https://example-7.test/path/99", BENCH_COMMON)).toEqual(["-7.", "/path/99"]);
  });
  it("is the whole term (undefined) without statistics, without a common trigram, or with nothing rare", () => {
    expect(indexedPieces("example-1234.test", new Map())).toBeUndefined();
    expect(indexedPieces("zebra-42", BENCH_COMMON)).toBeUndefined();
    expect(indexedPieces("example.test", BENCH_COMMON)).toBeUndefined();
  });
  it("returns only substrings of the term, each with a trigram, whatever the term", () => {
    const alphabet = ["a", "B", "1", "-", ".", "%", "_", "\\", " ", "é", "ß", "😀", "x", "y", "z"];
    const common = shares(["  a", " a1", "a1 ", "xyz", "  x", " xy", "1  "]);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % alphabet.length;
    for (let n = 0; n < 2000; n++) {
      const term = Array.from({ length: 1 + (n % 24) }, () => alphabet[next()]).join("");
      for (const piece of indexedPieces(term, common) ?? []) {
        expect(term.includes(piece)).toBe(true);
        expect(patternTrigrams(piece).length).toBeGreaterThan(0);
      }
    }
  });
});
