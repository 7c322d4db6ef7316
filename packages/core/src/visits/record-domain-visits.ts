import { pgArray, sql, type Db, type OrphanKind } from "@shortener/db";

/**
 * Orphan visits added up (CONTRACT §21, Shlink's idea): `count` visits of one kind to one domain on one
 * UTC day. `value` is '' except for `alias` (the unknown alias tried, cut to 255 characters).
 */
export type DomainVisit = { domainId: number; kind: OrphanKind; day: string; value: string; count: number };

/** Unknown aliases are kept cut to this many characters (code points). */
export const MAX_ORPHAN_ALIAS = 255;

/** An unknown alias as `domain_visits_daily` keeps it. */
export function orphanAliasValue(alias: string): string {
  return alias.length <= MAX_ORPHAN_ALIAS ? alias : Array.from(alias).slice(0, MAX_ORPHAN_ALIAS).join("");
}

/**
 * Adds a batch of orphan visits to `domain_visits_daily` in one upsert, rows in key order (concurrent
 * batches lock them in the same order: no deadlock). Rows of the same key are summed first.
 */
export async function recordDomainVisits(db: Db, visits: readonly DomainVisit[]): Promise<void> {
  const sums = new Map<string, DomainVisit>();
  for (const v of visits) {
    if (v.count <= 0) continue;
    const value = v.kind === "alias" ? orphanAliasValue(v.value) : "";
    const key = `${v.domainId}\u0000${v.kind}\u0000${v.day}\u0000${value}`;
    const seen = sums.get(key);
    if (seen) seen.count += v.count;
    else sums.set(key, { ...v, value });
  }
  if (!sums.size) return;
  const rows = [...sums.values()];
  const ids = [...new Set(rows.map((r) => r.domainId))].sort((a, b) => a - b);
  // The domains are locked (`for key share`) like a click batch's links: one deleted meanwhile is skipped,
  // one being deleted waits for the batch and then takes its rows with it.
  await db.execute(sql`
    with live as (select id from domains where id = any(${pgArray(ids)}::int[]) for key share)
    insert into domain_visits_daily (domain_id, kind, day, value, count)
    select v.domain_id, v.kind, v.day, v.value, v.n
    from unnest(
      ${pgArray(rows.map((r) => r.domainId))}::int[], ${pgArray(rows.map((r) => r.kind))}::text[], ${pgArray(rows.map((r) => r.day))}::date[],
      ${pgArray(rows.map((r) => r.value))}::text[], ${pgArray(rows.map((r) => r.count))}::bigint[]
    ) as v(domain_id, kind, day, value, n)
    where v.domain_id in (select id from live)
    order by 1, 2, 3, 4
    on conflict (domain_id, kind, day, value) do update set count = domain_visits_daily.count + excluded.count`);
}
