import { isLocalOrIp } from "../urls/url.ts";

/** The scheme of `short_url` and a domain's `url` when none is configured: https, http for localhost and IPs. */
export type UrlScheme = "http" | "https";

/** A domain's `url` (CONTRACT §3): scheme + `://` + name. */
export function domainUrlOf(name: string, scheme: UrlScheme | undefined): string {
  return `${scheme ?? (isLocalOrIp(name) ? "http" : "https")}://${name}`;
}

/** A link's `short_url`: the domain's `url` + `/` + alias. The API and the visitor side's QR codes both use it. */
export function shortUrlOf(domainName: string, alias: string, scheme: UrlScheme | undefined): string {
  return `${domainUrlOf(domainName, scheme)}/${alias}`;
}
