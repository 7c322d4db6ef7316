import { isIPv4, isIPv6 } from "node:net";

/**
 * The group a client address counts in (CONTRACT §15): an IPv4 address on its own, an IPv6 address by
 * its /64 — one host usually owns a whole /64 and could otherwise rotate through 2⁶⁴ addresses. An
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports) is its IPv4 address.
 * Anything else (no address at all) is one group of its own.
 */
export function clientGroup(address: string | undefined): string {
  const ip = (address ?? "").trim();
  if (isIPv4(ip)) return ip;
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const zoneless = bare.split("%")[0] ?? "";
  if (!isIPv6(zoneless)) return "unknown";
  const groups = expandIPv6(zoneless);
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) return `${(groups[6] ?? 0) >> 8}.${(groups[6] ?? 0) & 255}.${(groups[7] ?? 0) >> 8}.${(groups[7] ?? 0) & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted quad as two groups). */
function expandIPv6(ip: string): number[] {
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
  return [...left, ...Array<string>(zeros).fill("0"), ...right].map((g) => parseInt(g, 16));
}
