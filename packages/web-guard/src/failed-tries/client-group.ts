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
  // What a dual-stack socket reports for every IPv4 client: no need to expand it.
  if (ip.length > 7 && ip.charCodeAt(0) === 58 && ip.charCodeAt(1) === 58 && ip.slice(2, 7).toLowerCase() === "ffff:" && isIPv4(ip.slice(7))) return ip.slice(7);
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const zone = bare.indexOf("%");
  const zoneless = zone === -1 ? bare : bare.slice(0, zone);
  if (!isIPv6(zoneless)) return "unknown";
  const g = expandIPv6(zoneless);
  const isMapped = g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
  if (isMapped) return `${(g[6] as number) >> 8}.${(g[6] as number) & 255}.${(g[7] as number) >> 8}.${(g[7] as number) & 255}`;
  return `${(g[0] as number).toString(16)}:${(g[1] as number).toString(16)}:${(g[2] as number).toString(16)}:${(g[3] as number).toString(16)}::/64`;
}

/** The groups of the address being expanded (one call at a time: the visitor side hashes every visit's group). */
const parts = new Int32Array(8);
const groups = new Int32Array(8);

/**
 * The eight 16-bit groups of a valid IPv6 address (`isIPv6` said so): `::` expanded, a trailing dotted
 * quad as two groups. One pass over the characters, no intermediate strings or arrays; the result is
 * this module's own array, valid until the next call.
 */
function expandIPv6(ip: string): Int32Array {
  let end = ip.length;
  let quad: [number, number] | null = null;
  const lastColon = ip.lastIndexOf(":");
  if (ip.indexOf(".", lastColon) !== -1) {
    const [a, b, c, d] = ip
      .slice(lastColon + 1)
      .split(".")
      .map(Number) as [number, number, number, number];
    quad = [(a << 8) | b, (c << 8) | d];
    end = lastColon + 1;
  }
  let n = 0;
  let gap = -1;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < end; i++) {
    const c = ip.charCodeAt(i);
    if (c === 58) {
      if (digits) parts[n++] = value;
      value = 0;
      digits = 0;
      if (i + 1 < end && ip.charCodeAt(i + 1) === 58) {
        gap = n;
        i++;
      }
      continue;
    }
    value = value * 16 + (c <= 57 ? c - 48 : (c | 32) - 87);
    digits++;
  }
  if (digits) parts[n++] = value;
  if (quad) {
    parts[n++] = quad[0];
    parts[n++] = quad[1];
  }
  groups.fill(0);
  if (gap === -1) groups.set(parts.subarray(0, 8));
  else {
    for (let i = 0; i < gap; i++) groups[i] = parts[i] as number;
    for (let i = gap; i < n; i++) groups[8 - n + i] = parts[i] as number;
  }
  return groups;
}
