import { sql } from "drizzle-orm";
import type { SystemCtx } from "../context.ts";
import type { Admission } from "./click-limit.ts";

/**
 * Step 11 of CONTRACT §7 for a click-limited link: admits up to `wanted` visitors at once, raising the
 * link's counter only up to its limit, atomically, so exactly `expiration_clicks` visitors get through
 * whatever the concurrency and the number of processes. One statement: the row is locked, its count
 * read and raised together. Returns how many were admitted (0 when the limit was already reached or the
 * link is gone) and the counter after them: `admitClicks`, the same rule in JS, is tested against it.
 */
export async function countLimitedClicks(ctx: SystemCtx, linkId: number, wanted: number): Promise<Admission> {
  const result: unknown = await ctx.db.execute(sql`
    update links set clicks = least(links.clicks + ${wanted}::int, links.expiration_clicks)
    from (select id, clicks from links where id = ${linkId} for update) as before
    where links.id = before.id and links.clicks < links.expiration_clicks
    returning links.clicks as clicks, links.clicks - before.clicks as admitted`);
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  const row = rows[0] as { clicks: number | string; admitted: number | string } | undefined;
  return row ? { admitted: Number(row.admitted), clicks: Number(row.clicks) } : { admitted: 0, clicks: 0 };
}
