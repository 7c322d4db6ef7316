import { sql } from "drizzle-orm";
import { pgArray, type Db, type RollupDimension } from "@shortener/db";
import { subscribedSql } from "../webhooks/record-event.ts";

/**
 * One visit sent on to a destination, or `count` identical ones: same link, same second, same traits
 * (`at` is the first of them). `counted`: its link's counter was already raised (click-limited links).
 * `rotation`: the rotation index served last, for the link's `last_rotation`.
 */
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
  /** The rotation entry served (its URL), for the `variant` series (CONTRACT §25); absent or null: not a rotation. */
  variant?: string | null;
  /** How many identical clicks this stands for; 1 when absent. */
  count?: number;
  /**
   * The bot's name when these were a bot's visits (CONTRACT §21): never clicks — no click row, no counter,
   * no webhook — only the `bots` and `bots_hour` rollups (and the account's `bots`). Absent or null: people.
   */
  bot?: string | null;
  /**
   * The distinct visitors among these clicks: 16 hex digits each, the 64-bit keyed hash of the visit's day
   * (docs/adr/0041-unique-visitors-and-orphan-visits.md). A first sighting of a visitor on its link and
   * day adds 1 to `unique`. Never an address.
   */
  visitors?: readonly string[];
};

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
  if (click.bot) {
    return {
      day: iso.slice(0, 10),
      pairs: [
        ["bots", rollupValue(click.bot)],
        ["bots_hour", iso.slice(11, 13)],
      ],
    };
  }
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
      ...(click.variant ? [["variant", rollupValue(click.variant)] as [RollupDimension, string]] : []),
    ],
  };
}

type RollupSum = { linkId: number; dimension: RollupDimension; day: string; value: string; n: number };

/** The dimensions whose value comes from the click itself, in `rollupRowsOf`'s order. */
const VALUE_DIMENSIONS = ["country", "platform", "browser", "device", "language", "referrer"] as const satisfies readonly RollupDimension[];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * A batch's rollup increments, summed in memory: one row per distinct link, dimension, day and value —
 * the rows `rollupRowsOf` gives, added up. People's clicks are grouped by link and UTC day, with the day's
 * hours counted apart, so the per-click work is a few lookups in small maps and each distinct value of a
 * day makes one row (grouped by hour, as before, each value made a row for every hour it was seen in, and
 * a string key to add those up: more than half of the time of this function). The values that can land on
 * another's row — null and '' (both ''), and any of `MAX_ROLLUP_VALUE` UTF-16 units or more (a value cut
 * to that many characters has at least that many units) — are merged through a map; the others are
 * distinct by construction. A test holds it to `rollupRowsOf`.
 */
export function rollupBatch(clicks: readonly Click[]): RollupSum[] {
  type DayGroup = { n: number; hours: Map<number, number>; values: Array<Map<string | null, number>> };
  const byLink = new Map<number, Map<number, DayGroup>>();
  const botVisits: Click[] = [];
  const variantVisits: Click[] = [];
  for (const click of clicks) {
    if (click.bot) {
      botVisits.push(click);
      continue;
    }
    if (click.variant) variantVisits.push(click);
    let days = byLink.get(click.linkId);
    if (!days) byLink.set(click.linkId, (days = new Map()));
    const hour = Math.floor(click.at.getTime() / HOUR_MS);
    const dayNumber = Math.floor(hour / 24);
    let group = days.get(dayNumber);
    if (!group) days.set(dayNumber, (group = { n: 0, hours: new Map(), values: VALUE_DIMENSIONS.map(() => new Map()) }));
    const n = click.count ?? 1;
    group.n += n;
    group.hours.set(hour, (group.hours.get(hour) ?? 0) + n);
    for (let i = 0; i < VALUE_DIMENSIONS.length; i++) {
      const value = click[VALUE_DIMENSIONS[i] as (typeof VALUE_DIMENSIONS)[number]];
      const counts = group.values[i] as Map<string | null, number>;
      counts.set(value, (counts.get(value) ?? 0) + n);
    }
  }
  const rows: RollupSum[] = [];
  for (const [linkId, days] of byLink) {
    for (const [dayNumber, group] of days) {
      const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
      rows.push({ linkId, dimension: "clicks", day, value: "", n: group.n });
      for (const [hour, n] of group.hours) rows.push({ linkId, dimension: "clicks_hour", day, value: String(hour - dayNumber * 24).padStart(2, "0"), n });
      VALUE_DIMENSIONS.forEach((dimension, i) => {
        let merged: Map<string, number> | undefined;
        for (const [value, n] of group.values[i] as Map<string | null, number>) {
          if (value !== null && value !== "" && value.length < MAX_ROLLUP_VALUE) rows.push({ linkId, dimension, day, value, n });
          else {
            const cut = rollupValue(value);
            (merged ??= new Map()).set(cut, (merged.get(cut) ?? 0) + n);
          }
        }
        if (merged) for (const [value, n] of merged) rows.push({ linkId, dimension, day, value, n });
      });
    }
  }
  if (!variantVisits.length && !botVisits.length) return rows;
  const sums = new Map<string, RollupSum>();
  const add = (linkId: number, dimension: RollupDimension, day: string, value: string, n: number) => {
    const key = `${linkId}\u0000${dimension}\u0000${day}\u0000${value}`;
    const entry = sums.get(key);
    if (entry) entry.n += n;
    else sums.set(key, { linkId, dimension, day, value, n });
  };
  for (const visit of variantVisits) add(visit.linkId, "variant", visit.at.toISOString().slice(0, 10), rollupValue(visit.variant ?? ""), visit.count ?? 1);
  for (const visit of botVisits) {
    const iso = visit.at.toISOString();
    const day = iso.slice(0, 10);
    const n = visit.count ?? 1;
    add(visit.linkId, "bots", day, rollupValue(visit.bot ?? ""), n);
    add(visit.linkId, "bots_hour", day, iso.slice(11, 13), n);
  }
  for (const row of sums.values()) rows.push(row);
  return rows;
}

/**
 * A link's visitors of a day are kept in `VISITOR_BUCKETS` sets (`link_visitor_sets`), by the top 7 bits
 * of the hash (`bucketOf`): one row rewritten per bucket a batch touches, instead of a row and an index entry per new
 * visitor (docs/adr/0056-visitor-sets.md). Migration 0029 buckets the same way.
 */
const VISITOR_BUCKETS = 128;
/**
 * A bucket with this many visitors is full (~1.6 KB of hashes, under Postgres's 2 KB TOAST threshold, so
 * a rewrite stays one small tuple): its later new visitors go to `link_visitors`, one row each, as
 * before the sets. Reached near 128 × 200 ≈ 20,000 visitors of a link in a day.
 */
const VISITOR_BUCKET_FULL = 200;

/** The value of a hex digit's character code (0-9, a-f, A-F). */
function hexDigit(code: number): number {
  return code <= 57 ? code - 48 : (code | 32) - 87;
}

/** The bucket of a visitor: the top 7 bits of its hash (16 hex digits), read from its first two digits. */
function bucketOf(hash: string): number {
  return ((hexDigit(hash.charCodeAt(0)) << 4) | hexDigit(hash.charCodeAt(1))) >>> 1;
}

/**
 * A batch's visitors, grouped by link, UTC day and bucket (a visitor seen in several rows of the batch
 * once), sorted by that key: the rows of `link_visitor_sets` the batch upserts, in the order concurrent
 * batches lock them, so they cannot deadlock on them. `lists[i]` is a bigint array literal of the
 * group's hashes (the 16 hex digits as a signed 64-bit integer, as stored).
 */
export function visitorsOf(clicks: readonly Click[]): { linkIds: number[]; days: string[]; buckets: number[]; lists: string[] } {
  const byLink = new Map<number, Map<number, Array<Set<string> | undefined>>>();
  for (const click of clicks) {
    if (!click.visitors?.length || click.bot) continue;
    let byDay = byLink.get(click.linkId);
    if (!byDay) byLink.set(click.linkId, (byDay = new Map()));
    const day = Math.floor(click.at.getTime() / DAY_MS);
    let buckets = byDay.get(day);
    if (!buckets) byDay.set(day, (buckets = new Array<Set<string> | undefined>(VISITOR_BUCKETS)));
    for (const hash of click.visitors) {
      const bucket = bucketOf(hash);
      (buckets[bucket] ??= new Set()).add(hash);
    }
  }
  const out = { linkIds: [] as number[], days: [] as string[], buckets: [] as number[], lists: [] as string[] };
  for (const linkId of [...byLink.keys()].sort((x, y) => x - y)) {
    const byDay = byLink.get(linkId) as Map<number, Array<Set<string> | undefined>>;
    for (const day of [...byDay.keys()].sort((x, y) => x - y)) {
      const buckets = byDay.get(day) as Array<Set<string> | undefined>;
      const iso = new Date(day * DAY_MS).toISOString().slice(0, 10);
      for (let bucket = 0; bucket < VISITOR_BUCKETS; bucket++) {
        const hashes = buckets[bucket];
        if (!hashes) continue;
        let list = "{";
        for (const hash of hashes) list += (list.length > 1 ? "," : "") + BigInt.asIntN(64, BigInt(`0x${hash}`)).toString();
        out.linkIds.push(linkId);
        out.days.push(iso);
        out.buckets.push(bucket);
        out.lists.push(`${list}}`);
      }
    }
  }
  return out;
}

/**
 * Writes a batch of visits in one transaction of two statements (CONTRACT §20, §21). The first locks
 * the batch's links (`for key share`, once per link: a link deleted meanwhile is skipped, and a link
 * being deleted waits until the batch is in, then takes its visits with it), inserts the people's
 * clicks, adds the batch's visitors to their sets (`link_visitor_sets`, one row per link, day and bucket:
 * the `on conflict do update` locks the bucket's current row and merges into it, so only visitors it did
 * not hold yet — first sightings, exact under any concurrency — are added to `unique`; a full bucket's
 * new visitors go to `link_visitors` instead, `on conflict do nothing`, counted when really inserted), and adds
 * everything to the daily rollups of the links (`link_stats_daily`) and of their owners
 * (`account_stats_daily`, keyed by `links.workspace_id`, and each link's clicks in `account_link_daily`),
 * summed per batch in memory first (one upsert row per distinct key — a few hundred for thousands of
 * clicks). Bots' visits add to `bots` and `bots_hour` only. The second raises the links' counters by the people's clicks (skipping clicks already counted
 * at admission). The first also writes one `link.clicked` webhook event per link of the batch with
 * people's clicks whose owner subscribes to it (CONTRACT §18: the clicks added up per link per flush,
 * with the first and last click's time). Visitors and rollup rows are upserted in key order, so
 * concurrent batches lock them in the same order and cannot deadlock on them.
 */
export async function recordClicks(db: Db, clicks: Click[]): Promise<void> {
  if (!clicks.length) return;
  const humans = clicks.some((c) => c.bot) ? clicks.filter((c) => !c.bot) : clicks;
  const perLink = new Map<number, { n: number; total: number; from: number; to: number; rotation: number | null }>();
  for (const c of humans) {
    const at = c.at.getTime();
    let entry = perLink.get(c.linkId);
    if (!entry) perLink.set(c.linkId, (entry = { n: 0, total: 0, from: at, to: at, rotation: null }));
    const n = c.count ?? 1;
    if (!c.counted) entry.n += n;
    entry.total += n;
    if (at < entry.from) entry.from = at;
    if (at > entry.to) entry.to = at;
    if (c.rotation !== null) entry.rotation = c.rotation;
  }
  const col = <K extends keyof Click>(key: K) => humans.map((c) => c[key]);
  // Links in id order: the counters' row locks are taken in the same order by every batch.
  const humanIds = [...perLink.keys()].sort((a, b) => a - b);
  const entries = humanIds.map((id) => perLink.get(id) as NonNullable<ReturnType<typeof perLink.get>>);
  const allIds = humans === clicks ? humanIds : [...new Set(clicks.map((c) => c.linkId))].sort((a, b) => a - b);
  const rollups = rollupBatch(clicks);
  const rcol = <K extends keyof (typeof rollups)[number]>(key: K) => rollups.map((r) => r[key]);
  const visitors = visitorsOf(humans);
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      with live as (
        select id, workspace_id from links where id = any(${pgArray(allIds)}::int[]) for key share
      ), events as (
        insert into webhook_events (workspace_id, type, data, created_at)
        select live.workspace_id, 'link.clicked', json_build_object('link_id', e.id, 'clicks', e.n, 'from', e.first, 'to', e.last), now()
        from unnest(
          ${pgArray(humanIds)}::int[], ${pgArray(entries.map((e) => e.total))}::int[],
          ${pgArray(entries.map((e) => new Date(e.from).toISOString()))}::text[], ${pgArray(entries.map((e) => new Date(e.to).toISOString()))}::text[]
        ) as e(id, n, first, last)
        join live on live.id = e.id
        where ${subscribedSql(sql`live.workspace_id`, "link.clicked")}
        order by e.id
      ), inserted as (
        insert into clicks (link_id, created_at, country, platform, browser, device, language, referrer, count)
        select v.link_id, timestamptz 'epoch' + v.ms * interval '1 millisecond', v.country, v.platform, v.browser, v.device, v.language, v.referrer, v.n
        from unnest(
          ${pgArray(col("linkId"))}::int[], ${pgArray(col("at").map((d) => d.getTime()))}::bigint[],
          ${pgArray(col("country"))}::text[], ${pgArray(col("platform"))}::text[], ${pgArray(col("browser"))}::text[],
          ${pgArray(col("device"))}::text[], ${pgArray(col("language"))}::text[], ${pgArray(col("referrer"))}::text[],
          ${pgArray(humans.map((c) => c.count ?? 1))}::int[]
        ) as v(link_id, ms, country, platform, browser, device, language, referrer, n)
        where v.link_id in (select id from live)
      ), offered as (
        select v.link_id, v.day, v.bucket, v.visitors::bigint[] as visitors
        from unnest(${pgArray(visitors.linkIds)}::int[], ${pgArray(visitors.days)}::date[], ${pgArray(visitors.buckets)}::smallint[], ${pgArray(visitors.lists)}::text[]) as v(link_id, day, bucket, visitors)
        where v.link_id in (select id from live)
      ), merged as (
        insert into link_visitor_sets as s (link_id, day, bucket, visitors, added)
        select link_id, day, bucket, visitors, cardinality(visitors) from offered
        order by 1, 2, 3
        -- offset 0 keeps q a subquery of its own: pulled up, the O(n × m) fresh was computed once for each
        -- of its three uses. The where (anything new?) is the array containment, a loop in C.
        on conflict (link_id, day, bucket) do update set (visitors, added, spill) = (
          select case when q.is_full then s.visitors else s.visitors || q.fresh end, case when q.is_full then 0 else cardinality(q.fresh) end, case when q.is_full then q.fresh end
          from (select cardinality(s.visitors) >= ${sql.raw(String(VISITOR_BUCKET_FULL))} as is_full, array(select v from unnest(excluded.visitors) as v where v <> all(s.visitors)) as fresh offset 0) as q
        )
        where not (excluded.visitors <@ s.visitors)
        returning link_id, day, added, spill
      ), spilled as (
        insert into link_visitors (link_id, day, visitor)
        select m.link_id, m.day, v.visitor from merged as m, unnest(m.spill) as v(visitor)
        order by 1, 2, 3
        on conflict (link_id, day, visitor) do nothing
        returning link_id, day
      ), fresh as (
        select link_id, day, added::bigint as n from merged where added > 0
        union all
        select link_id, day, 1 from spilled
      ), sums as (
        select r.link_id, r.dimension, r.day, r.value, r.n::bigint as n
        from unnest(
          ${pgArray(rcol("linkId"))}::int[], ${pgArray(rcol("dimension"))}::text[], ${pgArray(rcol("day"))}::date[],
          ${pgArray(rcol("value"))}::text[], ${pgArray(rcol("n"))}::int[]
        ) as r(link_id, dimension, day, value, n)
        where r.link_id in (select id from live)
        union all
        select link_id, 'unique', day, '', sum(n) from fresh group by link_id, day
      ), accounts as (
        insert into account_stats_daily (workspace_id, dimension, day, value, count)
        select live.workspace_id, a.dimension, a.day, a.value, sum(a.n)
        from sums as a
        join live on live.id = a.link_id
        where a.dimension not in ('clicks_hour', 'bots_hour', 'variant')
        group by 1, 2, 3, 4
        order by 1, 2, 3, 4
        on conflict (workspace_id, dimension, day, value) do update set count = account_stats_daily.count + excluded.count
      ), account_links as (
        insert into account_link_daily (workspace_id, day, link_id, count)
        select live.workspace_id, a.day, a.link_id, sum(a.n)
        from sums as a
        join live on live.id = a.link_id
        where a.dimension = 'clicks'
        group by 1, 2, 3
        order by 1, 2, 3
        on conflict (workspace_id, day, link_id) do update set count = account_link_daily.count + excluded.count
      )
      insert into link_stats_daily (link_id, dimension, day, value, count)
      select link_id, dimension, day, value, n from sums
      order by 1, 2, 3, 4
      on conflict (link_id, dimension, day, value) do update set count = link_stats_daily.count + excluded.count`);
    if (humanIds.length) {
      await tx.execute(sql`
        update links set clicks = links.clicks + v.n, last_rotation = coalesce(v.rotation, links.last_rotation)
        from unnest(${pgArray(humanIds)}::int[], ${pgArray(entries.map((e) => e.n))}::int[], ${pgArray(entries.map((e) => e.rotation))}::int[]) as v(id, n, rotation)
        where links.id = v.id and (v.n > 0 or v.rotation is not null)`);
    }
  });
}
