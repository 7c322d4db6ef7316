import { and, inArray, isNotNull } from "drizzle-orm";
import { domains } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

export type ServedDomain = { id: number; workspaceId: number; name: string; indexPage: string | null; notFoundPage: string | null };

/** Candidate domain names for a Host header: with its port first, then without (`Example.com:443` → both). */
export function hostCandidates(host: string): string[] {
  const h = host.trim().toLowerCase().replace(/\.$/, "");
  if (!h || h.length > 300) return [];
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(h);
  if (!match?.[1]) return [];
  return match[2] ? [h, match[1]] : [h];
}

/**
 * The domain a visitor's Host names (case-insensitive; with its port when a domain has one), or null.
 * Only verified domains serve (CONTRACT §14): an unverified claim's host is as unknown as any other.
 */
export async function findDomainByHost(ctx: SystemCtx, host: string): Promise<ServedDomain | null> {
  const candidates = hostCandidates(host);
  if (!candidates.length) return null;
  const rows = await ctx.db
    .select({ id: domains.id, workspaceId: domains.workspaceId, name: domains.name, indexPage: domains.indexPage, notFoundPage: domains.notFoundPage })
    .from(domains)
    .where(and(inArray(domains.name, candidates), isNotNull(domains.verifiedAt)));
  return rows.sort((a, b) => candidates.indexOf(a.name) - candidates.indexOf(b.name))[0] ?? null;
}
