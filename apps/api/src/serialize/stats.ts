import type { DomainVisitsSummary, StatRow, StatsSummary } from "@shortener/core";

/**
 * One row of a statistics series as REST and tRPC answer it (CONTRACT §8, §21): `{value, count}`, and
 * for the rows that have them `id` (top links: `value` is then the link's `short_url`), `unique` and `bots`.
 */
export type StatRowJson = { value: string; id?: number; count: number; unique?: number; bots?: number };

export function statRowSerializer(shortUrl: (domainName: string, alias: string) => string): (row: StatRow) => StatRowJson {
  return (row) => {
    const json: StatRowJson = row.link ? { value: shortUrl(row.link.domainName, row.link.alias), id: row.id as number, count: row.count } : { value: row.value, count: row.count };
    if (row.unique !== undefined) json.unique = row.unique;
    if (row.bots !== undefined) json.bots = row.bots;
    return json;
  };
}

/** `name=summary` (CONTRACT §21): the counts of the range and its first and last human click. */
export function summaryJson(s: Omit<StatsSummary, "range">) {
  return {
    clicks: s.clicks,
    unique_visitors: s.uniqueVisitors,
    bots: s.bots,
    imported_clicks: s.importedClicks,
    first_click_at: s.firstClickAt ? s.firstClickAt.toISOString() : null,
    last_click_at: s.lastClickAt ? s.lastClickAt.toISOString() : null,
  };
}

/** A domain's orphan visits over the range (CONTRACT §21). */
export function domainVisitsSummaryJson(s: DomainVisitsSummary) {
  return { index: s.index, not_found: s.not_found, disabled: s.disabled, expired: s.expired, bots: s.bots };
}
