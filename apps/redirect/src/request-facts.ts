import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";
import { compileTrustProxy } from "@shortener/web-guard";
import type { RedirectConfig } from "./deps.ts";
import type { GeoIp } from "./geoip.ts";

/** What the visitor side reads of a request beyond its path: the client's address, HTTPS, the country. */
export type RequestFacts = {
  clientIp(req: IncomingMessage): string;
  isSecure(req: IncomingMessage): boolean;
  countryOf(req: IncomingMessage): string | null;
};

/** `geo()` is read on each lookup: the GeoIP data may be loaded after the facts are made (`start()`). */
export function createRequestFacts(config: Pick<RedirectConfig, "trustProxy" | "geoCountryHeader">, geo: () => GeoIp | undefined): RequestFacts {
  const trust = compileTrustProxy(config.trustProxy);
  // With no proxy trusted, the address is the socket's: skip parsing X-Forwarded-For on every visit.
  const clientIp = config.trustProxy === false ? (req: IncomingMessage) => req.socket.remoteAddress ?? "" : (req: IncomingMessage) => proxyaddr(req, trust);
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
