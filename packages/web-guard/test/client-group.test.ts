import { describe, expect, it } from "vitest";
import { clientGroup } from "../src/index.ts";

describe("clientGroup: IPv4 on its own, IPv6 by /64 (CONTRACT §15)", () => {
  it.each([
    ["IPv4", "203.0.113.9", "203.0.113.9"],
    ["IPv4 with spaces", " 203.0.113.9 ", "203.0.113.9"],
    ["IPv4-mapped IPv6 (dual-stack socket)", "::ffff:203.0.113.9", "203.0.113.9"],
    ["IPv4-mapped IPv6 in hex", "::ffff:cb00:7109", "203.0.113.9"],
    ["IPv6, full", "2001:0db8:0001:0002:0003:0004:0005:0006", "2001:db8:1:2::/64"],
    ["IPv6, same /64, other host", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["IPv6, compressed", "2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["IPv6, upper case", "2001:DB8:1:2::1", "2001:db8:1:2::/64"],
    ["IPv6, next /64", "2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["IPv6, :: in the first half", "2001:db8::1", "2001:db8:0:0::/64"],
    ["IPv6 loopback", "::1", "0:0:0:0::/64"],
    ["IPv6 with a zone", "fe80::1%eth0", "fe80:0:0:0::/64"],
    ["IPv6 in brackets", "[2001:db8:1:2::7]", "2001:db8:1:2::/64"],
    ["IPv6 with an embedded IPv4 tail", "64:ff9b:1:2::192.0.2.33", "64:ff9b:1:2::/64"],
    ["no address", undefined, "unknown"],
    ["empty", "", "unknown"],
    ["garbage", "not-an-ip", "unknown"],
    ["SQL in the header", "1.2.3.4' or 1=1 --", "unknown"],
    ["a long string", "1".repeat(10_000), "unknown"],
    ["out of range IPv4", "256.1.1.1", "unknown"],
  ])("%s", (_name, address, expected) => {
    expect(clientGroup(address)).toBe(expected);
  });
});
