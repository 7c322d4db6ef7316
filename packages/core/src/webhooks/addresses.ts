import { isIP } from "node:net";

/*
 * Which addresses a webhook may be sent to (CONTRACT §18): public unicast only, unless the operator sets
 * WEBHOOK_ALLOW_PRIVATE=1. The worker checks every address a name resolves to, and connects to the one
 * it checked (apps/worker/src/webhooks/target.ts); creating a webhook checks address literals and
 * `localhost` names at once (docs/webhooks.md).
 */

type Range = { base: number; bits: number; kind: string };

const V4_RANGES: Range[] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
].map(([address, bits, kind]) => ({ base: v4Number(address as string) as number, bits: bits as number, kind: kind as string }));

function v4Number(address: string): number | null {
  const parts = address.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = n * 256 + Number(part);
  }
  return n;
}

function v4Kind(n: number): string | null {
  for (const range of V4_RANGES) {
    const size = 2 ** (32 - range.bits);
    if (n >= range.base && n < range.base + size) return range.kind;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part is read too), or null. */
function v6Groups(address: string): number[] | null {
  let text = address;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (lastColon === -1) return null;
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = v4Number(last);
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0] ?? "");
  const want = 8 - tail.length;
  let groups: number[];
  if (halves.length === 2) {
    const rest = parse(halves[1] ?? "");
    const missing = want - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  } else {
    if (head.length !== want) return null;
    groups = head;
  }
  groups = [...groups, ...tail];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return null;
  return groups;
}

function v6Kind(groups: number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = g6 * 65536 + g7;
  if (groups.every((g) => g === 0)) return "unspecified";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return "IPv4-mapped";
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return "IPv4-compatible";
  if (g0 === 0x64 && g1 === 0xff9b) return g2 === 1 || v4Kind(embedded) !== null ? "NAT64 to a non-public address" : null;
  if ((g0 & 0xfe00) === 0xfc00) return "unique local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if (g0 === 0x2001 && g1 === 0) return "Teredo";
  if (g0 === 0x2002) return v4Kind(g1 * 65536 + g2) !== null ? "6to4 of a non-public address" : null;
  // Everything outside global unicast (2000::/3) is reserved.
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  return null;
}

/**
 * Why `address` (an IPv4 or IPv6 literal, brackets and zone allowed) must not receive webhooks — e.g.
 * "loopback", "private", "link-local", "IPv4-mapped" — or null for a public unicast address. Anything
 * that is not an address literal is refused too.
 */
export function refusedAddressKind(address: string): string | null {
  let text = address.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  if (text.includes("%")) return "scoped (zone)";
  const version = isIP(text);
  if (version === 4) {
    const n = v4Number(text);
    return n === null ? "not an address" : v4Kind(n);
  }
  if (version === 6) {
    const groups = v6Groups(text.toLowerCase());
    return groups ? v6Kind(groups) : "not an address";
  }
  return "not an address";
}

/** `true` when `host` (a URL's hostname) is a name for this machine itself (`localhost`, `*.localhost`). */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * What can be told about a webhook URL without resolving it: a literal address outside public unicast,
 * or a `localhost` name. Returns the sentence for the 422, or null. Names are checked after DNS, at
 * every delivery.
 */
export function refusedTargetReason(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (isLocalhostName(host)) return `The url must not point to this machine (${host} is a loopback name).`;
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(bare)) {
    const kind = refusedAddressKind(bare);
    if (kind) return `The url must not point to a private, loopback or link-local address (${bare} is ${addressKindPhrase(kind)}).`;
  }
  return null;
}

/** "a loopback address", "an IPv4-mapped address". */
export function addressKindPhrase(kind: string): string {
  const article = /^[aeiouAEIOU]/.test(kind) && !kind.startsWith("uni") ? "an" : "a";
  return `${article} ${kind} address`;
}
