import proxyaddr from "proxy-addr";

/*
 * Which peers are trusted proxies (TRUST_PROXY, CONTRACT §13): one reading of the setting for the
 * visitor side (whose X-Forwarded-For to believe) and the API's `/tls/ask` (who may ask at all). The
 * API's Fastify reads the same setting with the same library (proxy-addr) for `request.ip`.
 */

/** TRUST_PROXY as parsed: a list of addresses, CIDR ranges and proxy-addr's names, `true` (any) or `false`. */
export type TrustProxySetting = string[] | boolean;

/** Whether `address` (the `hop`-th from the socket) is a trusted proxy: proxy-addr's trust function. */
export type TrustFunction = (address: string, hop: number) => boolean;

export function compileTrustProxy(setting: TrustProxySetting): TrustFunction {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  return proxyaddr.compile(setting);
}

const loopback = proxyaddr.compile("loopback");

/** `127.0.0.0/8`, `::1`, and their IPv4-mapped forms (`::ffff:127.0.0.1`, what a dual-stack socket reports). */
export function isLoopbackAddress(address: string): boolean {
  return loopback(address, 0);
}
