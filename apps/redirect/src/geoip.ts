import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { isIPv4, isIPv6 } from "node:net";

/**
 * Country by IP address from DB-IP's "IP to Country Lite" data (CC BY 4.0, shipped by the npm package
 * @ip-location-db/dbip-country; attribution in the README). Ranges are kept in typed arrays and
 * searched by bisection: about 4 MB for IPv4. IPv6 ranges are compared on their first 64 bits, which
 * is the granularity the data set is published at.
 */
export type GeoIp = { lookup(ip: string): string | null; readonly ready: Promise<void> };

type Table = { starts: Float64Array | BigUint64Array; ends: Float64Array | BigUint64Array; codes: Uint16Array };

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

function search(table: Table, key: number | bigint): number {
  let lo = 0;
  let hi = table.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const start = table.starts[mid] as number | bigint;
    if (start > key) hi = mid - 1;
    else if ((table.ends[mid] as number | bigint) < key) lo = mid + 1;
    else return table.codes[mid] ?? -1;
  }
  return -1;
}

function ipv4ToNumber(ip: string): number {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split(".").map(Number);
  return ((a * 256 + b) * 256 + c) * 256 + d;
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
  const names: string[] = [];
  const codeIndex = new Map<string, number>();
  let v4: Table | undefined;
  let v6: Table | undefined;
  const ready = (async () => {
    v4 = await loadTable("dbip-country-ipv4-num.csv", Number, false, codeIndex);
    v6 = await loadTable("dbip-country-ipv6-num.csv", (s) => BigInt(s) >> 64n, true, codeIndex);
    for (const [cc, i] of codeIndex) names[i] = cc;
  })();
  return {
    ready,
    lookup(ip) {
      const mapped = ip.startsWith("::ffff:") && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
      let code = -1;
      if (isIPv4(mapped)) code = v4 ? search(v4, ipv4ToNumber(mapped)) : -1;
      else if (isIPv6(mapped)) code = v6 ? search(v6, ipv6High(mapped)) : -1;
      const name = code >= 0 ? names[code] : undefined;
      return name && /^[A-Z]{2}$/.test(name) && name !== "ZZ" ? name : null;
    },
  };
}
