import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import type { SystemCtx } from "../context.ts";
import { LINK_STATUS, linkStatusSql } from "../expiration/link-status.ts";

/** A link the health checker took: its destination, and whether it is active now (only active links are checked). */
export type ClaimedHealthCheck = { id: number; url: string; isActive: boolean };

/**
 * Takes up to `limit` links whose health check is due (CONTRACT §25, docs/adr/0054-destination-health.md),
 * the longest due first, and moves their due time `leaseMs` ahead, so no other worker takes them while
 * this one checks them: `for update skip locked` lets several workers claim side by side without
 * waiting on each other or taking a link twice. "Due" is measured against the later of the worker's clock
 * and the database's: a new or changed link is due at the database's `now()` (microseconds), and a worker
 * whose clock is a moment behind (a millisecond clock read within the same millisecond, or a small skew
 * between hosts) would pass it over until the next batch (CI saw a link made just before a batch left out
 * of it). A worker that dies mid-check loses nothing but time:
 * its links come due again when the lease ends. Disabled links are not taken (the queue's index leaves
 * them out); expired ones are taken and reported inactive, so the caller can put them off a day
 * without a request.
 */
export async function claimHealthChecks(ctx: SystemCtx, options: { limit: number; leaseMs: number }): Promise<ClaimedHealthCheck[]> {
  const now = ctx.now();
  const rows = await queryRows<{ id: number; url: string; status: number }>(
    ctx.db,
    sql`
      update links set health_due_at = ${new Date(now.getTime() + options.leaseMs).toISOString()}::timestamptz
      where id in (
        select id from links
        where health_due_at <= greatest(now(), ${now.toISOString()}::timestamptz) and not disabled
        order by health_due_at
        limit ${options.limit}
        for update skip locked
      )
      returning id, url, ${linkStatusSql(now)} as status`,
  );
  return rows.map((r) => ({ id: Number(r.id), url: r.url, isActive: Number(r.status) === LINK_STATUS.active }));
}
