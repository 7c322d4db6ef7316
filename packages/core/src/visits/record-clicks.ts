import { sql } from "drizzle-orm";
import type { Db, RollupDimension } from "@shortener/db";
import type { SystemCtx } from "../context.ts";
import { pgArray } from "../shared/sql.ts";

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

/** Rollup values are cut to this many characters (Postgres's `left(value, 255)` in the migration's backfill). */
const MAX_ROLLUP_VALUE = 255;

function rollupValue(value: string | null): string {
  if (value === null) return "";
  if (value.length <= MAX_ROLLUP_VALUE) return value;
  return Array.from(value).slice(0, MAX_ROLLUP_VALUE).join("");
}

/**
 * The rollup rows (`link_stats_daily`) one click adds 1 to: its UTC day, and a value for each dimension —
 * '' for the day's total, the UTC hour for `clicks_hour`, '' for an unknown value. The migration that
 * created the table backfills old clicks with the same rules in SQL; a test holds the two together
 * (docs/adr/0011-stats-rollups.md).
 */
export function rollupRowsOf(click: Click): { day: string; pairs: Array<[RollupDimension, string]> } {
  const iso = click.at.toISOString();
  return {
    day: iso.slice(0, 10),
    pairs: [
      ["clicks", ""],
      ["clicks_hour", iso.slice(11, 13)],
      ["country", rollupValue(click.country)],
      ["platform", rollupValue(click.platform)],
      ["browser", rollupValue(click.browser)],
      ["device", rollupValue(click.device)],
      ["language", rollupValue(click.language)],
      ["referrer", rollupValue(click.referrer)],
    ],
  };
}

/** A batch's rollup increments, summed in memory: one row per distinct link, dimension, day and value. */
function rollupBatch(clicks: Click[]) {
  const sums = new Map<string, { linkId: number; dimension: RollupDimension; day: string; value: string; n: number }>();
  for (const click of clicks) {
    const { day, pairs } = rollupRowsOf(click);
    for (const [dimension, value] of pairs) {
      const key = `${click.linkId}\u0000${dimension}\u0000${day}\u0000${value}`;
      const entry = sums.get(key);
      if (entry) entry.n += 1;
      else sums.set(key, { linkId: click.linkId, dimension, day, value, n: 1 });
    }
  }
  return [...sums.values()];
}

/**
 * Writes a batch of clicks in one transaction of two statements. The first inserts the clicks and adds
 * them to the daily rollups, summed per batch in memory first (one upsert row per distinct link, day,
 * dimension and value — a few hundred for thousands of clicks); both parts skip links deleted meanwhile
 * and see the same snapshot, so the rollups count exactly the clicks inserted. The second raises the
 * links' counters (skipping clicks already counted). Rollup rows are upserted in key order, so
 * concurrent batches lock them in the same order and cannot deadlock on them.
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
  const rollups = rollupBatch(clicks);
  const rcol = <K extends keyof (typeof rollups)[number]>(key: K) => rollups.map((r) => r[key]);
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      with inserted as (
        insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer)
        select v.link_id, v.created_at, v.country, v.platform, v.browser, v.device, v.language, v.referrer
        from unnest(
          ${pgArray(col("linkId"))}::int[], ${pgArray(col("at").map((d) => d.toISOString()))}::timestamptz[],
          ${pgArray(col("country"))}::text[], ${pgArray(col("platform"))}::text[], ${pgArray(col("browser"))}::text[],
          ${pgArray(col("device"))}::text[], ${pgArray(col("language"))}::text[], ${pgArray(col("referrer"))}::text[]
        ) as v(link_id, created_at, country, platform, browser, device, language, referrer)
        where exists (select 1 from links where links.id = v.link_id)
      )
      insert into link_stats_daily (link_id, dimension, day, value, count)
      select r.link_id, r.dimension, r.day, r.value, r.n
      from unnest(
        ${pgArray(rcol("linkId"))}::int[], ${pgArray(rcol("dimension"))}::text[], ${pgArray(rcol("day"))}::date[],
        ${pgArray(rcol("value"))}::text[], ${pgArray(rcol("n"))}::int[]
      ) as r(link_id, dimension, day, value, n)
      where exists (select 1 from links where links.id = r.link_id)
      order by 1, 2, 3, 4
      on conflict (link_id, dimension, day, value) do update set count = link_stats_daily.count + excluded.count`);
    await tx.execute(sql`
      update links set clicks = links.clicks + v.n, last_rotation = coalesce(v.rotation, links.last_rotation)
      from unnest(${pgArray(ids)}::int[], ${pgArray(counts)}::int[], ${pgArray(rotations)}::int[]) as v(id, n, rotation)
      where links.id = v.id and (v.n > 0 or v.rotation is not null)`);
  });
}

export { pgArray };
