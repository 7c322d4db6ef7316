import { beforeAll, describe, expect, it } from "vitest";
import { indexBlocks, ipv4ToNumber, loadGeoIp, searchV4, type GeoIp, type V4Table } from "../src/geoip.ts";

describe("ipv4ToNumber", () => {
  it.each([
    ["0.0.0.0", 0],
    ["1.2.3.4", 16_909_060],
    ["127.0.0.1", 2_130_706_433],
    ["255.255.255.255", 4_294_967_295],
    ["10.0.0.10", 167_772_170],
  ])("%s → %i", (ip, expected) => {
    expect(ipv4ToNumber(ip)).toBe(expected);
  });

  it.each(["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "01.2.3.4", "1..2.3", "a.b.c.d", "1.2.3.4 ", " 1.2.3.4", "1.2.3.", ".1.2.3", "::1", "1.2.3.-4", "9999.1.1.1"])(
    "%j is not an IPv4 address",
    (ip) => {
      expect(ipv4ToNumber(ip)).toBe(-1);
    },
  );

  it("reads an address from an offset (IPv4-mapped IPv6)", () => {
    expect(ipv4ToNumber("::ffff:1.2.3.4", 7)).toBe(16_909_060);
  });
});

describe("searchV4 with its /16 index", () => {
  /** Ascending, non-overlapping ranges with gaps, some spanning many /16 blocks, some inside one. */
  function randomTable(seed: number): V4Table {
    let state = seed;
    const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const starts: number[] = [];
    const ends: number[] = [];
    let at = Math.floor(next() * 1000);
    while (at < 2 ** 32 - 1) {
      const size = next() < 0.3 ? Math.floor(next() * 300) : next() < 0.8 ? Math.floor(next() * 200_000) : Math.floor(next() * 40_000_000);
      const end = Math.min(at + size, 2 ** 32 - 1);
      starts.push(at);
      ends.push(end);
      at = end + 1 + (next() < 0.5 ? 0 : Math.floor(next() * 100_000));
    }
    const endArray = Uint32Array.from(ends);
    return { starts: Uint32Array.from(starts), ends: endArray, codes: Uint16Array.from(starts, (_, i) => i % 60_000), blocks: indexBlocks(endArray) };
  }

  /** The reference: bisect every range. */
  function searchAll(table: V4Table, key: number): number {
    let lo = 0;
    let hi = table.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((table.starts[mid] as number) > key) hi = mid - 1;
      else if ((table.ends[mid] as number) < key) lo = mid + 1;
      else return table.codes[mid] ?? -1;
    }
    return -1;
  }

  it.each([1, 2, 3])("finds what a search of every range finds (seed %i)", (seed) => {
    const table = randomTable(seed);
    const keys = [0, 2 ** 32 - 1, 65_535, 65_536, 65_537];
    for (let i = 0; i < table.starts.length; i += 7) keys.push(table.starts[i] as number, table.ends[i] as number, (table.ends[i] as number) + 1, (table.starts[i] as number) - 1);
    for (let i = 0; i < 50_000; i++) keys.push(Math.floor((i / 50_000) * 2 ** 32) + (i % 977));
    for (const key of keys) {
      if (key < 0 || key > 2 ** 32 - 1) continue;
      expect(searchV4(table, key), `key ${key}`).toBe(searchAll(table, key));
    }
  });
});

describe("GeoIP lookup (DB-IP data)", () => {
  let geo: GeoIp;
  beforeAll(async () => {
    geo = loadGeoIp();
    await geo.ready;
  });

  it.each([
    ["8.8.8.8", "US"],
    ["::ffff:8.8.8.8", "US"],
    ["2a00:1450:4001:80b::200e", "DE"],
    ["127.0.0.1", null],
    ["10.1.2.3", null],
    ["::1", null],
    ["not an address", null],
    ["", null],
  ])("%s → %s", (ip, country) => {
    expect(geo.lookup(ip)).toBe(country);
  });
});
