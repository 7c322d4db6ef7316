import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { addressKindPhrase, refusedAddressKind } from "@shortener/core";

/** Resolves a host name to every address it has (the system resolver by default; tests inject one). */
export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Where to connect: the address that was checked, never resolved again. */
export type Target = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; error: string };

/**
 * The SSRF guard (CONTRACT §18), run before every attempt: the URL's host is resolved once, and every
 * address it resolves to must be public unicast (no private, loopback, link-local, CGNAT, unique-local,
 * IPv4-mapped or unspecified address) unless `allowPrivate`. The caller connects to the returned
 * address itself, so a name that resolves differently a moment later changes nothing.
 */
export async function resolveTarget(raw: string, options: { allowPrivate: boolean; lookup: Lookup; timeoutMs: number }): Promise<Target> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: "The URL is not valid." };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, error: "Only http and https URLs are sent to." };
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
      return { ok: false, error: `DNS lookup of ${host} failed (${code}).` };
    } finally {
      clearTimeout(timer);
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, error: `DNS lookup of ${host} found no address.` };
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const kind = refusedAddressKind(address);
      if (kind) {
        const via = address === host ? address : `${host} resolves to ${address}`;
        return { ok: false, error: `Refused: ${via}, ${addressKindPhrase(kind)} (WEBHOOK_ALLOW_PRIVATE is off).` };
      }
    }
  }
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
