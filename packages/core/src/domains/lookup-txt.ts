import { Resolver } from "node:dns/promises";

/** The TXT records at a name, each record's strings joined (RFC 7208 §3.3). Rejects on any DNS failure. */
export type TxtLookup = (name: string) => Promise<string[]>;

export type TxtLookupOptions = {
  /** Resolvers as `ip`, `ip:port` or `[ipv6]:port` (node:dns `setServers`); empty or absent: the system's. */
  servers?: readonly string[] | undefined;
  /** The whole lookup, retries included, ends by then (rejecting). */
  timeoutMs?: number;
};

export const DEFAULT_DNS_TIMEOUT_MS = 5_000;

/**
 * A TXT lookup through node:dns (c-ares, no cache), bounded in time: each try waits at most a third of
 * the budget, and whatever is still pending when the budget is spent is cancelled.
 */
export function createTxtLookup({ servers, timeoutMs = DEFAULT_DNS_TIMEOUT_MS }: TxtLookupOptions = {}): TxtLookup {
  const budget = Math.max(1, Math.floor(timeoutMs));
  return async (name) => {
    const resolver = new Resolver({ timeout: Math.max(1, Math.floor(budget / 3)), tries: 2 });
    if (servers?.length) resolver.setServers([...servers]);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(new Error(`DNS lookup of ${name} timed out after ${budget} ms`));
      }, budget);
    });
    try {
      const records = await Promise.race([resolver.resolveTxt(name), expired]);
      return records.map((chunks) => chunks.join(""));
    } finally {
      clearTimeout(timer);
    }
  };
}
