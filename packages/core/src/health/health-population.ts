import { sql } from "drizzle-orm";
import { queryRows } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

/**
 * How many links the health checker has to get round to in a day: every link there is, from the
 * trigger-kept per-workspace counters (a read of a small table, not a count of the links). Disabled
 * and expired links are in it, so a checker pacing itself by this number is a little ahead, never behind.
 */
export async function countLinksForHealth(ctx: SystemCtx): Promise<number> {
  const [row] = await queryRows<{ n: number | string | null }>(ctx.db, sql`select coalesce(sum(n), 0) as n from link_counts`);
  return Number(row?.n ?? 0);
}
