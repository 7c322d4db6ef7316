import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";
import { compileTrustProxy, type TrustFunction } from "@shortener/web-guard";
import type { RedirectConfig } from "./deps.ts";
import type { GeoIp } from "./geoip.ts";
import { Memo } from "./memo.ts";

/** What the visitor side reads of a request beyond its path: the client's address, HTTPS, the country. */
export type RequestFacts = {
  clientIp(req: IncomingMessage): string;
  isSecure(req: IncomingMessage): boolean;
  countryOf(req: IncomingMessage): string | null;
};

/** `geo()` is read on each lookup: the GeoIP data may be loaded after the facts are made (`start()`). */
export function createRequestFacts(config: Pick<RedirectConfig, "trustProxy" | "geoCountryHeader">, geo: () => GeoIp | undefined): RequestFacts {
  const trust = memoizedTrust(compileTrustProxy(config.trustProxy));
  // With no proxy trusted, the address is the socket's: skip parsing X-Forwarded-For on every visit.
  // Behind one, a visit asks for its address up to twice (its country, its visitor): the last answer is
  // kept for the request it was for (a visit is answered synchronously, so that is the one asking).
  let lastReq: IncomingMessage | null = null;
  let lastIp = "";
  const clientIp =
    config.trustProxy === false
      ? (req: IncomingMessage) => req.socket.remoteAddress ?? ""
      : (req: IncomingMessage) => {
          if (req !== lastReq) {
            lastIp = proxyaddr(req, trust);
            lastReq = req;
          }
          return lastIp;
        };
  const isSecure = (req: IncomingMessage) =>
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    (trust(req.socket.remoteAddress ?? "", 0) &&
      String(req.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        ?.trim() === "https");

  function countryOf(req: IncomingMessage): string | null {
    if (config.geoCountryHeader) {
      const value = String(req.headers[config.geoCountryHeader] ?? "")
        .trim()
        .toUpperCase();
      return /^[A-Z]{2}$/.test(value) && value !== "XX" ? value : null;
    }
    return geo()?.lookup(clientIp(req)) ?? null;
  }

  return { clientIp, isSecure, countryOf };
}

/**
 * A trust function whose answers are kept per address (TRUST_PROXY's lists do not depend on the hop):
 * proxy-addr parses the address on every call (~0.6 µs, ~1.3–2 µs a visit behind a proxy), while a
 * visit's addresses are mostly the proxy's own and returning visitors'. Bounded like the header memos.
 */
function memoizedTrust(trust: TrustFunction): TrustFunction {
  const answers = new Memo<boolean>(10_000);
  return (address, hop) => {
    let answer = answers.get(address);
    if (answer === undefined) answers.set(address, (answer = trust(address, hop)));
    return answer;
  };
}
