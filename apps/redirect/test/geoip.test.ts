import { beforeAll, describe, expect, it } from "vitest";
import { ipv4ToNumber, loadGeoIp, type GeoIp } from "../src/geoip.ts";

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
