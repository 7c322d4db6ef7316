import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/testing/seeded-random.ts";
import { isoDateTime, splitShortUrl } from "../src/imports/formats/format.ts";

/**
 * The export formats read short URLs and dates without a URL or Date object where the value has the
 * common shape (issue #31). These compare them, over generated values of every shape, with the reading
 * the URL parser and `Date.parse` give, which is what the formats did for every value before.
 */
function urlReading(value: string) {
  const text = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { domain: undefined, alias: text };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { domain: undefined, alias: text };
  const alias = url.pathname.replace(/^\/+/, "").replace(/\/+$/, "");
  return { domain: url.host || undefined, alias: alias + url.search + url.hash };
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
function dateParseReading(value: string) {
  const match = DATE_TIME.exec(value);
  if (!match) return value;
  const [, date, time, zone] = match;
  const offset = zone === undefined || /^z$/i.test(zone) ? "Z" : zone.length === 3 ? `${zone}:00` : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const parsed = Date.parse(time === undefined ? `${date}T00:00:00Z` : `${date}T${time}${offset}`);
  return Number.isNaN(parsed) ? value : new Date(parsed).toISOString();
}

describe("export formats: short URLs and dates", () => {
  it("split a short URL as the URL parser reads it, for values of every shape", () => {
    const random = seededRandom(2311);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const starts = ["https://", "http://", "HTTP://", "", " ", "ftp://", "//"];
    const pieces = ["xn--", "Xn--a", "a", "B", "0", "9", "-", ".", "..", "/", "//", "_", "x", "ly", "0x", "12", "abc", "ß", "%41", ":", "80", "@", "?", "#", "\\", " ", "\t", "~", "a--b"];
    const values = ["https://bit.ly/abc", "bit.ly/abc", "https://bit.ly:443/x", "https://127.0.0.1/a", "https://1.2.3/a", "http://[::1]/a", "https://bit.ly./a"];
    for (let i = 0; i < 20_000; i++) {
      let value = pick(starts);
      for (let n = 1 + Math.floor(random() * 8); n > 0; n--) value += pick(pieces);
      values.push(value);
    }
    for (const value of values) expect(splitShortUrl(value), JSON.stringify(value)).toEqual(urlReading(value));
  });

  it("turn a date-time into ISO UTC as Date.parse reads it, for values of every shape", () => {
    const random = seededRandom(2312);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    const two = (max: number) => String(Math.floor(random() * max)).padStart(2, "0");
    const years = ["0000", "0999", "1000", "1900", "1970", "2000", "2023", "2024", "2100", "9999"];
    const zones = ["", "Z", "z", "+00", "+0000", "+00:00", "-00:00", "+02", "+0530", "-08:00", "+24:00", "+99"];
    const fractions = ["", ".", ".0", ".1", ".12", ".123", ".1234", ".999", ".9999999"];
    for (let i = 0; i < 20_000; i++) {
      let value = `${pick(years)}-${two(14)}-${two(33)}`;
      if (random() < 0.8) {
        value += `${pick(["T", " ", "t"])}${two(26)}:${two(62)}`;
        if (random() < 0.75) value += `:${two(62)}${pick(fractions)}`;
        value += pick(zones);
      }
      expect(isoDateTime(value), value).toBe(dateParseReading(value));
    }
  });
});
