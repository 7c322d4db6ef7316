import { and, eq, ne, sql } from "drizzle-orm";
import { domains, users, workspaces, type Db } from "@shortener/db";
import type { FieldErrors } from "../errors.ts";
import { addError } from "../validation/fields.ts";

/**
 * How domains are claimed (CONTRACT §14), from the operator's settings. `verification`: `dns`, a
 * non-admin's domain serves only once its TXT record is found; `off`, every domain is verified at once.
 * `reservedHosts`: host names (no port) no non-admin may claim; `*.example.com` names every subdomain.
 */
export type DomainPolicy = { verification: "dns" | "off"; reservedHosts: readonly string[] };

export const DEFAULT_DOMAIN_POLICY: DomainPolicy = { verification: "dns", reservedHosts: [] };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A stored domain name without its port (`example.com:8080` → `example.com`). */
export function hostWithoutPort(name: string): string {
  return name.replace(/:\d+$/, "");
}

/** True when `host` (no port) is one of `reserved`: a name itself, or a subdomain of a `*.` entry. */
export function isReservedHost(host: string, reserved: readonly string[]): boolean {
  return reserved.some((entry) => (entry.startsWith("*.") ? host.endsWith(entry.slice(1)) : host === entry));
}

/** Why a non-admin may not claim `host` without looking at the database, or null. */
function refusalOf(host: string, policy: DomainPolicy): string | null {
  if (IPV4.test(host) || host.includes(":") || host.startsWith("[")) return "The name must not be an IP address.";
  if (host === "localhost" || host.endsWith(".localhost")) return "The name must not be localhost.";
  if (isReservedHost(host, policy.reservedHosts)) return "The name is reserved.";
  return null;
}

/**
 * The claim rules of CONTRACT §14 for a non-admin: no IP literal, no `localhost` (nor a subdomain of
 * it), no name in `RESERVED_HOSTS`, and not the host of any admin's domain under another port (an
 * admin's domain is the service's own address; its port is no proof of anything). Adds an error on
 * `name`. Admins may claim any name. (An admin domain's very name is verified, so it is "taken".)
 */
export async function checkClaim(db: Db, actor: { role: "admin" | "user" }, name: string, policy: DomainPolicy, errors: FieldErrors): Promise<void> {
  if (actor.role === "admin") return;
  const host = hostWithoutPort(name);
  const refusal = refusalOf(host, policy);
  if (refusal) {
    addError(errors, "name", refusal);
    return;
  }
  const [admin] = await db
    .select({ id: domains.id })
    .from(domains)
    // An admin's domain: one in an instance admin's personal workspace (whose id need not be the user's).
    .innerJoin(workspaces, eq(workspaces.id, domains.workspaceId))
    .innerJoin(users, eq(users.id, workspaces.personalUserId))
    .where(and(eq(users.role, "admin"), sql`split_part(${domains.name}, ':', 1) = ${host}`, ne(domains.name, name)))
    .limit(1);
  if (admin) addError(errors, "name", "The name is reserved.");
}
