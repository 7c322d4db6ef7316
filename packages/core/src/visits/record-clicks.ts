import { sql } from "drizzle-orm";
import type { Db } from "@shortener/db";
import type { SystemCtx } from "../context.ts";

/** One visit sent on to a destination. `counted`: its link's counter was already raised (click-limited links). */
export type Click = {
  linkId: number;
  at: Date;
  country: string | null;
  platform: string | null;
  browser: string | null;
  device: string | null;
  language: string | null;
  referrer: string | null;
  counted: boolean;
  rotation: number | null;
};

/**
 * Step 11 of CONTRACT §7 for a click-limited link: raises its counter only while it is under the limit,
 * atomically, so exactly `expiration_clicks` visitors get through whatever the concurrency and the
 * number of processes. Returns the new count, or null when the limit was already reached.
 */
export async function countLimitedClick(ctx: SystemCtx, linkId: number): Promise<number | null> {
  const result: unknown = await ctx.db.execute(
    sql`update links set clicks = clicks + 1 where id = ${linkId} and clicks < expiration_clicks returning clicks`,
  );
  const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
  const row = rows[0] as { clicks: number | string } | undefined;
  return row ? Number(row.clicks) : null;
}

/**
 * The (dimension, value) pairs one click adds to its day's rollups (`link_stats_daily`), as a lateral
 * VALUES list over a clicks row aliased `c`. The migration that created the table backfills with the same
 * list; keep them in step (docs/adr/0011-stats-rollups.md). Unknown values are '' (read back as "Unknown").
 */
export const ROLLUP_PAIRS = sql.raw(`(values
  ('clicks', ''),
  ('clicks_hour', to_char(c.created_at at time zone 'UTC', 'HH24')),
  ('country', coalesce(left(c.country, 255), '')),
  ('platform', coalesce(left(c.platform, 255), '')),
  ('browser', coalesce(left(c.browser, 255), '')),
  ('device', coalesce(left(c.device, 255), '')),
  ('language', coalesce(left(c.language, 255), '')),
  ('referrer', coalesce(left(c.referrer, 255), ''))
) as d(dimension, value)`);

/** A click's UTC day, from a clicks row aliased `c`. */
export const ROLLUP_DAY = sql.raw(`(c.created_at at time zone 'UTC')::date`);

/**
 * Writes a batch of clicks in one transaction of two statements: one that inserts the clicks and adds
 * them to the daily rollups (grouped, so one upsert per distinct link, day, dimension and value — not per
 * click), and one counter update for all their links (skipping the clicks already counted). Clicks of
 * links deleted meanwhile are dropped. The rollup rows are upserted in key order, so concurrent batches
 * lock them in the same order and cannot deadlock on them.
 */
export async function recordClicks(db: Db, clicks: Click[]): Promise<void> {
  if (!clicks.length) return;
  const perLink = new Map<number, { n: number; rotation: number | null }>();
  for (const c of clicks) {
    const entry = perLink.get(c.linkId) ?? { n: 0, rotation: null };
    if (!c.counted) entry.n += 1;
    if (c.rotation !== null) entry.rotation = c.rotation;
    perLink.set(c.linkId, entry);
  }
  const col = <K extends keyof Click>(key: K) => clicks.map((c) => c[key]);
  const ids = [...perLink.keys()];
  const counts = ids.map((id) => perLink.get(id)?.n ?? 0);
  const rotations = ids.map((id) => perLink.get(id)?.rotation ?? null);
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      with c as (
        insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer)
        select v.link_id, v.created_at, v.country, v.platform, v.browser, v.device, v.language, v.referrer
        from unnest(
          ${pgArray(col("linkId"))}::int[], ${pgArray(col("at").map((d) => d.toISOString()))}::timestamptz[],
          ${pgArray(col("country"))}::text[], ${pgArray(col("platform"))}::text[], ${pgArray(col("browser"))}::text[],
          ${pgArray(col("device"))}::text[], ${pgArray(col("language"))}::text[], ${pgArray(col("referrer"))}::text[]
        ) as v(link_id, created_at, country, platform, browser, device, language, referrer)
        where exists (select 1 from links where links.id = v.link_id)
        returning link_id, created_at, country, platform, browser, device, language, referrer
      )
      insert into link_stats_daily (link_id, dimension, day, value, count)
      select c.link_id, d.dimension, ${ROLLUP_DAY}, d.value, count(*)
      from c cross join lateral ${ROLLUP_PAIRS}
      group by 1, 2, 3, 4
      order by 1, 2, 3, 4
      on conflict (link_id, dimension, day, value) do update set count = link_stats_daily.count + excluded.count`);
    await tx.execute(sql`
      update links set clicks = links.clicks + v.n, last_rotation = coalesce(v.rotation, links.last_rotation)
      from unnest(${pgArray(ids)}::int[], ${pgArray(counts)}::int[], ${pgArray(rotations)}::int[]) as v(id, n, rotation)
      where links.id = v.id and (v.n > 0 or v.rotation is not null)`);
  });
}

/**
 * A Postgres array literal, passed as one text parameter: both drivers send it the same way, and the
 * query casts it. Elements are quoted and escaped; null stays NULL.
 */
export function pgArray(values: ReadonlyArray<string | number | null>): string {
  const items = values.map((v) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`));
  return `{${items.join(",")}}`;
}

