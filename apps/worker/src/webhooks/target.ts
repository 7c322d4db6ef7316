import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { addressKindPhrase, refusedAddressKind } from "@shortener/core";

/** Resolves a host name to every address it has (the system resolver by default; tests inject one). */
export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Where to connect: the address that was checked, never resolved again. A refusal says why: `url` (not
 * an http(s) URL), `dns` (the name did not resolve; `code` is the resolver's, e.g. ENOTFOUND) or
 * `refused` (a non-public address while private targets are not allowed).
 */
export type Target = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; error: string; kind: "url" | "dns" | "refused"; code?: string };

export type TargetOptions = {
  allowPrivate: boolean;
  lookup: Lookup;
  timeoutMs: number;
  /** The setting that allows private targets, named in a refusal (WEBHOOK_ALLOW_PRIVATE by default). */
  allowSetting?: string;
};

/**
 * The SSRF guard (CONTRACT §18), run before every attempt: the URL's host is resolved once, and every
 * address it resolves to must be public unicast (no private, loopback, link-local, CGNAT, unique-local,
 * IPv4-mapped or unspecified address) unless `allowPrivate`. The caller connects to the returned
 * address itself, so a name that resolves differently a moment later changes nothing.
 */
export async function resolveTarget(raw: string, options: TargetOptions): Promise<Target> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: "The URL is not valid.", kind: "url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, error: "Only http and https URLs are sent to.", kind: "url" };
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error("DNS timeout"), { code: "ETIMEOUT" })), options.timeoutMs);
      });
      addresses = await Promise.race([options.lookup(host), timedOut]);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      return { ok: false, error: `DNS lookup of ${host} failed (${code}).`, kind: "dns", code };
    } finally {
      clearTimeout(timer);
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, error: `DNS lookup of ${host} found no address.`, kind: "dns", code: "ENODATA" };
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const kind = refusedAddressKind(address);
      if (kind) {
        const via = address === host ? address : `${host} resolves to ${address}`;
        return { ok: false, error: `Refused: ${via}, ${addressKindPhrase(kind)} (${options.allowSetting ?? "WEBHOOK_ALLOW_PRIVATE"} is off).`, kind: "refused", code: kind };
      }
    }
  }
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A `lookup` for node's http(s).request that answers only the checked address: the name is not resolved again. */
export function pinnedLookup(target: Extract<Target, { ok: true }>): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}
