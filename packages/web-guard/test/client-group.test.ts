import { isIPv6 } from "node:net";
import { describe, expect, it } from "vitest";
import { clientGroup } from "../src/index.ts";

describe("clientGroup: IPv4 on its own, IPv6 by /64 (CONTRACT §15)", () => {
  it.each([
    ["IPv4", "203.0.113.9", "203.0.113.9"],
    ["IPv4 with spaces", " 203.0.113.9 ", "203.0.113.9"],
    ["IPv4-mapped IPv6 (dual-stack socket)", "::ffff:203.0.113.9", "203.0.113.9"],
    ["IPv4-mapped IPv6 in hex", "::ffff:cb00:7109", "203.0.113.9"],
    ["IPv4-mapped IPv6, upper case", "::FFFF:203.0.113.9", "203.0.113.9"],
    ["IPv4-mapped IPv6, written out", "0:0:0:0:0:ffff:cb00:7109", "203.0.113.9"],
    ["IPv4-mapped IPv6 with a bad IPv4", "::ffff:203.0.113.256", "unknown"],
    ["IPv4-compatible IPv6 (deprecated)", "::203.0.113.9", "0:0:0:0::/64"],
    ["IPv6, unspecified", "::", "0:0:0:0::/64"],
    ["IPv6, :: at the end", "2001:db8:1::", "2001:db8:1:0::/64"],
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

/** The expansion as it was first written (strings, splits and arrays): the oracle the one-pass parser must agree with. */
function slowGroup(ip: string): string {
  if (!isIPv6(ip)) return "unknown";
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(zeros).fill("0"), ...right].map((g) => parseInt(g, 16));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${(groups[6] as number) >> 8}.${(groups[6] as number) & 255}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

describe("clientGroup's IPv6 parser agrees with the plain expansion", () => {
  it("on 5,000 random addresses in every written form (compressed anywhere, upper case, leading zeros, dotted tails, mapped)", () => {
    let seed = 26;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let checked = 0;
    for (let i = 0; i < 5_000; i++) {
      const groups = Array.from({ length: 8 }, () => [0, 0, 1, 0xffff, random(0x10000)][random(5)] as number);
      if (random(4) === 0) groups.splice(0, 6, 0, 0, 0, 0, 0, 0xffff);
      let words = groups.map((g) => {
        const hex = g.toString(16);
        return random(3) === 0 ? hex.padStart(4, "0") : random(3) === 0 ? hex.toUpperCase() : hex;
      });
      if (random(3) === 0) words = [...words.slice(0, 6), `${(groups[6] as number) >> 8}.${(groups[6] as number) & 255}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 255}`];
      // Compress one run of zero groups (any of them, not only the longest: all are valid).
      const start = random(8);
      let end = start;
      while (end < 6 && groups[end] === 0) end++;
      const address = end > start + 1 ? `${words.slice(0, start).join(":")}::${words.slice(end).join(":")}` : words.join(":");
      if (!isIPv6(address)) continue;
      expect(clientGroup(address), address).toBe(slowGroup(address));
      checked++;
    }
    expect(checked).toBeGreaterThan(4_000);
  });
});
