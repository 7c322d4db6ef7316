import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { isIPv6 } from "node:net";

/**
 * Country by IP address from DB-IP's "IP to Country Lite" data (CC BY 4.0, shipped by the npm package
 * @ip-location-db/dbip-country; attribution in the README). Ranges are kept in typed arrays and
 * searched by bisection: about 2 MB for IPv4, plus a 256 KB index by /16 that cuts a search to the
 * handful of ranges near the address (~30 ns instead of ~60). IPv6 ranges are compared on their first 64 bits, which
 * is the granularity the data set is published at.
 */
export type GeoIp = { lookup(ip: string): string | null; readonly ready: Promise<void> };

type Table = { starts: Float64Array | BigUint64Array; ends: Float64Array | BigUint64Array; codes: Uint16Array };

/**
 * IPv4 ranges with an index by the address's first 16 bits: `blocks[p]` is the first range that ends
 * at or after p.0.0, so a lookup bisects only the few ranges around its /16 instead of all of them.
 */
export type V4Table = { starts: Uint32Array; ends: Uint32Array; codes: Uint16Array; blocks: Uint32Array };

/** The /16 index of ascending, non-overlapping ranges given by their ends. */
export function indexBlocks(ends: Uint32Array): Uint32Array {
  const blocks = new Uint32Array(65_537);
  let i = 0;
  for (let p = 0; p <= 65_536; p++) {
    const blockStart = p * 65_536;
    while (i < ends.length && (ends[i] as number) < blockStart) i++;
    blocks[p] = i;
  }
  return blocks;
}

export function toV4Table(table: Table): V4Table {
  const ends = Uint32Array.from(table.ends as Float64Array);
  return { starts: Uint32Array.from(table.starts as Float64Array), ends, codes: table.codes, blocks: indexBlocks(ends) };
}

const require = createRequire(import.meta.url);

function dataDir(): string {
  return dirname(require.resolve("@ip-location-db/dbip-country/package.json"));
}

async function loadTable<T extends number | bigint>(file: string, parse: (s: string) => T, big: boolean, codeIndex: Map<string, number>): Promise<Table> {
  const starts: T[] = [];
  const ends: T[] = [];
  const codes: number[] = [];
  const lines = createInterface({ input: createReadStream(join(dataDir(), file)), crlfDelay: Infinity });
  for await (const line of lines) {
    const [a, b, cc] = line.split(",");
    if (!a || !b || !cc) continue;
    let code = codeIndex.get(cc);
    if (code === undefined) {
      code = codeIndex.size;
      codeIndex.set(cc, code);
    }
    starts.push(parse(a));
    ends.push(parse(b));
    codes.push(code);
  }
  return big
    ? { starts: BigUint64Array.from(starts as bigint[]), ends: BigUint64Array.from(ends as bigint[]), codes: Uint16Array.from(codes) }
    : { starts: Float64Array.from(starts as number[]), ends: Float64Array.from(ends as number[]), codes: Uint16Array.from(codes) };
}

/**
 * Binary search for the range holding `key`; one function per key type keeps each monomorphic. IPv4
 * searches only the ranges its /16 block can hold.
 */
export function searchV4(table: V4Table, key: number): number {
  const { starts, ends } = table;
  const block = key >>> 16;
  let lo = table.blocks[block] as number;
  // The range holding key ends at or after it: before the next block's first range, or that range itself.
  let hi = Math.min(table.blocks[block + 1] as number, starts.length - 1);
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) > key) hi = mid - 1;
    else if ((ends[mid] as number) < key) lo = mid + 1;
    else return table.codes[mid] ?? -1;
  }
  return -1;
}

function searchV6(table: Table, key: bigint): number {
  const starts = table.starts as BigUint64Array;
  const ends = table.ends as BigUint64Array;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as bigint) > key) hi = mid - 1;
    else if ((ends[mid] as bigint) < key) lo = mid + 1;
    else return table.codes[mid] ?? -1;
  }
  return -1;
}

/** A dotted-quad IPv4 address as a number, or -1 when `ip` is not one (no leading zeros, each part 0–255). */
export function ipv4ToNumber(ip: string, from = 0): number {
  let value = 0;
  let part = -1;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      dots += 1;
      part = -1;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1;
      part = (part === -1 ? 0 : part) * 10 + (c - 48);
      digits += 1;
      if (part > 255) return -1;
    } else return -1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return value * 256 + part;
}

/** The first 64 bits of an IPv6 address. */
function ipv6High(ip: string): bigint {
  const [head = "", tail] = ip.split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  let value = 0n;
  for (let i = 0; i < 4; i++) value = (value << 16n) | BigInt(parseInt(groups[i] ?? "0", 16) || 0);
  return value;
}

/** Starts loading the data in the background; lookups before it is ready answer null. */
export function loadGeoIp(): GeoIp {
  const countries: Array<string | null> = [];
  const codeIndex = new Map<string, number>();
  let v4: V4Table | undefined;
  let v6: Table | undefined;
  const ready = (async () => {
    v4 = toV4Table(await loadTable("dbip-country-ipv4-num.csv", Number, false, codeIndex));
    v6 = await loadTable("dbip-country-ipv6-num.csv", (s) => BigInt(s) >> 64n, true, codeIndex);
    // Only real country codes are answered: DB-IP marks unknown ranges "ZZ".
    for (const [cc, i] of codeIndex) countries[i] = /^[A-Z]{2}$/.test(cc) && cc !== "ZZ" ? cc : null;
  })();
  return {
    ready,
    lookup(ip) {
      let code = -1;
      const v4Number = ipv4ToNumber(ip, ip.startsWith("::ffff:") ? 7 : 0);
      if (v4Number >= 0) code = v4 ? searchV4(v4, v4Number) : -1;
      else if (isIPv6(ip)) code = v6 ? searchV6(v6, ipv6High(ip)) : -1;
      return code >= 0 ? (countries[code] ?? null) : null;
    },
  };
}
