import * as core from "@shortener/core";
import type { ApiConfig } from "./deps.ts";

/**
 * The domain verbs that depend on the operator's settings (CONTRACT §14): creating a domain (verified at
 * once or not, which names may be claimed) and verifying it (through which resolvers). Built once per
 * API from its config, and used by REST and tRPC alike.
 */
export type DomainVerbs = {
  create(args: { ctx: core.Ctx; input: core.CreateDomainInput }): Promise<core.DomainDetail>;
  verify(args: { ctx: core.Ctx; id: number }): Promise<core.DomainDetail>;
};

export function createDomainVerbs(config: Pick<ApiConfig, "domainVerification" | "dnsServers" | "dnsTimeoutMs" | "reservedHosts">): DomainVerbs {
  const policy: core.DomainPolicy = { verification: config.domainVerification, reservedHosts: config.reservedHosts };
  const lookupTxt = core.createTxtLookup({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  return {
    create: ({ ctx, input }) => core.createDomain({ ctx, input, policy }),
    verify: ({ ctx, id }) => core.verifyDomain({ ctx, id, lookupTxt, policy }),
  };
}
