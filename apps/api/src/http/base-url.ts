import type { FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { findDomainByHost, type SystemCtx } from "@shortener/core";

declare module "fastify" {
  interface FastifyRequest {
    /** Scheme and host the list links of this request are built on (see `createBaseUrls`). */
    baseUrl: string;
  }
}

/** `Host` lower-cased, without the scheme's default port. */
function normalizeHost(host: string, protocol: string): string {
  const h = host.toLowerCase();
  const port = protocol === "https" ? ":443" : ":80";
  return h.endsWith(port) ? h.slice(0, -port.length) : h;
}

/**
 * The base of absolute URLs the API answers with (the `links.*` of lists, CONTRACT §2), never taken
 * from an arbitrary `Host` header: the request's host when it is the service's own (`publicUrl`) or a
 * domain the service has, else `publicUrl`. The scheme is the request's (TLS, or X-Forwarded-Proto from
 * a trusted proxy). Domain answers are kept a minute, at most 1,000 hosts (docs/api.md).
 */
export function createBaseUrls(sys: SystemCtx, publicUrl: string) {
  const own = new URL(publicUrl);
  const ownHost = normalizeHost(own.host, own.protocol.replace(":", ""));
  const known = new LRUCache<string, boolean>({ max: 1_000, ttl: 60_000 });

  return async function baseUrlOf(request: FastifyRequest): Promise<string> {
    const protocol = request.protocol;
    const host = normalizeHost(request.host, protocol);
    if (host === ownHost) return `${protocol}://${request.host}`;
    let isKnown = known.get(host);
    if (isKnown === undefined) {
      const domain = host.length <= 300 ? await findDomainByHost(sys, host) : null;
      // The domain itself, not a port of it that no domain names.
      isKnown = domain?.name === host;
      known.set(host, isKnown);
    }
    return isKnown ? `${protocol}://${request.host}` : own.origin;
  };
}
