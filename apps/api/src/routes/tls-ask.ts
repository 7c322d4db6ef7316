import type { FastifyInstance } from "fastify";
import { parseCertificateName } from "@shortener/core";
import { compileTrustProxy, isLoopbackAddress } from "@shortener/web-guard";
import type { ApiDeps } from "../deps.ts";
import { HttpError } from "../errors.ts";
import { resource } from "../http/routes.ts";
import type { ServedHosts } from "../http/served-hosts.ts";

/** Seconds a proxy is asked to wait (`Retry-After`) when the lookups of this second are used up. */
const LIMITED_RETRY_AFTER_SECONDS = "1";

/**
 * `GET /tls/ask?domain=H` (CONTRACT §22, docs/tls.md): the question a TLS proxy asks before it gets a
 * certificate on demand (Caddy's `on_demand_tls { ask … }`). `200` when H is a host this service serves
 * (a verified domain of any user, or the service's own host), `404` when it is not, `429` when H is not
 * in memory and this second's database lookups are used up. Only loopback and TRUST_PROXY addresses may
 * ask (`403`), judged on the client address Fastify derives with the same setting; a bad `domain`
 * (missing, repeated, over 253 characters, a port, an IP literal, not ASCII, not a host name) is a `400`.
 * Outside `/api/v1`: no key, no rate limit of the API's.
 */
export function tlsAskRoutes(app: FastifyInstance, deps: Pick<ApiDeps, "config">, servedHosts: ServedHosts): void {
  const isTrusted = compileTrustProxy(deps.config.trustProxy);
  resource(app, "/tls/ask", "public", {
    GET: async (request, reply) => {
      if (!isLoopbackAddress(request.ip) && !isTrusted(request.ip, 0)) {
        throw new HttpError(403, "forbidden", "Only the TLS proxy may ask: this address is neither loopback nor in TRUST_PROXY.");
      }
      const sent = (request.query as Record<string, unknown> | undefined)?.domain;
      if (Array.isArray(sent)) throw new HttpError(400, "bad_request", "Send one domain parameter.");
      const name = parseCertificateName(typeof sent === "string" ? sent : "");
      if (!name.ok) throw new HttpError(400, "bad_request", name.message);
      const answer = await servedHosts.answer(name.host);
      if (answer === "limited") {
        throw new HttpError(429, "rate_limited", "Too many names not in memory this second: ask again in a moment.", { "retry-after": LIMITED_RETRY_AFTER_SECONDS });
      }
      if (answer === "unknown") throw new HttpError(404, "not_found", "This service serves no verified domain of this name.");
      return reply.header("cache-control", "no-store").send({ domain: name.host, status: 200 });
    },
  });
}
