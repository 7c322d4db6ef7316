import { inArray, sql } from "drizzle-orm";
import { links, pgArray, queryRows } from "@shortener/db";
import type { LinkHealth } from "@shortener/vocabulary";
import { withTransaction, type SystemCtx } from "../context.ts";
import { loadLinks } from "../links/load-links.ts";
import { recordEvent, subscribedSql } from "../webhooks/record-event.ts";

/**
 * What one look at a link's destination found. `health` null: nothing was learnt (the link was not
 * active, or this machine's own resolver failed): the health, reason and time stay as they were, and
 * only the next look is scheduled.
 */
export type HealthResult = {
  id: number;
  /** The url that was checked: a link whose url changed meanwhile keeps the reset the change made. */
  url: string;
  health: LinkHealth | null;
  reason: string | null;
  /** When the look ended (null with `health` null). */
  checkedAt: Date | null;
  /** When to look next. */
  dueAt: Date;
};

/**
 * Writes a batch of health results in one statement (CONTRACT §25), and for each link that went from
 * not broken to broken — and only then, not on every failed look — writes a `link.broken` event with
 * the link as the API shows it, in the same transaction, when one of its workspace's webhooks
 * subscribes (docs/webhooks.md). Returns the ids of the links that became broken.
 */
export async function recordHealthResults(ctx: SystemCtx, results: readonly HealthResult[]): Promise<{ broken: number[] }> {
  if (!results.length) return { broken: [] };
  return withTransaction(ctx, async (tx) => {
    const rows = await queryRows<{ id: number; workspace_id: number; previous: LinkHealth; health: LinkHealth; is_announced: boolean }>(
      tx.db,
      sql`
        with r as (
          select * from unnest(
            ${pgArray(results.map((r) => r.id))}::int[],
            ${pgArray(results.map((r) => r.url))}::text[],
            ${pgArray(results.map((r) => r.health))}::text[],
            ${pgArray(results.map((r) => r.reason))}::text[],
            ${pgArray(results.map((r) => r.checkedAt?.toISOString() ?? null))}::timestamptz[],
            ${pgArray(results.map((r) => r.dueAt.toISOString()))}::timestamptz[]
          ) as r(id, url, health, reason, checked_at, due_at)
        ), prior as (
          select links.id, links.health from links join r on r.id = links.id
        )
        update links set
          health = coalesce(r.health, links.health),
          health_reason = case when r.health is null then links.health_reason else r.reason end,
          health_checked_at = coalesce(r.checked_at, links.health_checked_at),
          health_due_at = r.due_at
        from r join prior on prior.id = r.id
        where links.id = r.id and links.url = r.url
        returning links.id, links.workspace_id, prior.health as previous, links.health,
          ${subscribedSql(sql`links.workspace_id`, "link.broken")} as is_announced`,
    );
    const becameBroken = rows.filter((r) => r.health === "broken" && r.previous !== "broken");
    const announced = becameBroken.filter((r) => r.is_announced).map((r) => Number(r.id));
    if (announced.length && tx.events) {
      const at = tx.now();
      const loaded = await loadLinks(tx.db, at, { where: inArray(links.id, announced), orderBy: [sql`${links.id}`] });
      for (const link of loaded) await recordEvent(tx.db, { workspaceId: link.workspaceId, type: "link.broken", data: tx.events.link(link), at });
    }
    return { broken: becameBroken.map((r) => Number(r.id)) };
  });
}
