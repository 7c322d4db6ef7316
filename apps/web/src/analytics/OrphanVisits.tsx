import { useQueries, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner, Field } from "../ui.tsx";
import { domainSummaryOf, rowsOf } from "./answers.ts";
import { Breakdown } from "./Breakdown.tsx";
import { fillDays, formatCount, type Range } from "./series.ts";
import { TimeChart, type ChartSeries } from "./TimeChart.tsx";

const ORPHAN_SERIES: ChartSeries[] = [
  { key: "humans", label: "Orphan visits", tone: "humans" },
  { key: "bots", label: "Bots", tone: "bots" },
];

const KINDS = [
  { key: "index", label: "Home page" },
  { key: "not_found", label: "Unknown alias" },
  { key: "disabled", label: "Disabled link" },
  { key: "expired", label: "Expired link" },
  { key: "bots", label: "Bots" },
] as const;

/**
 * Orphan visits (CONTRACT §21, Shlink's idea): for each of the user's domains, the visits that reached no
 * link — its home page, unknown aliases, disabled and expired links — and bots, as a table; then one
 * domain's visits a day and the unknown aliases tried most.
 */
export function OrphanVisits({ range }: { range: Range }) {
  const trpc = useTRPC();
  const domains = useQuery(trpc.domains.list.queryOptions({ per_page: 100 }));
  const list = domains.data?.data ?? [];
  const summaries = useQueries({ queries: list.map((d) => trpc.domains.visits.queryOptions({ id: d.id, name: "summary", ...range })) });
  const [chosen, setChosen] = useState<number | null>(null);
  const domainId = chosen ?? list[0]?.id ?? null;
  const daily = useQuery({ ...trpc.domains.visits.queryOptions({ id: domainId ?? 0, name: "clicks", ...range }), enabled: domainId !== null });
  const aliases = useQuery({ ...trpc.domains.visits.queryOptions({ id: domainId ?? 0, name: "alias", ...range }), enabled: domainId !== null });
  const error = domains.error ?? summaries.find((q) => q.error)?.error ?? daily.error ?? aliases.error;
  const domainName = list.find((d) => d.id === domainId)?.name ?? "";

  return (
    <section aria-labelledby="orphans-title" className="analytics-section">
      <h2 id="orphans-title">Orphan visits</h2>
      <p className="muted small">Visits to a domain that reached no link: its home page, an alias that does not exist, a disabled or expired link. They are never clicks.</p>
      <ErrorBanner message={error ? messageOf(error) : null} />
      {domains.isPending ? <p aria-live="polite">Loading…</p> : null}
      {domains.data && list.length === 0 ? <p className="muted">No domains yet: add one under Domains to see its orphan visits.</p> : null}
      {list.length ? (
        <>
          <div className="table-wrap">
            <table className="stack orphans">
              <caption className="visually-hidden">Orphan visits per domain in this range</caption>
              <thead>
                <tr>
                  <th scope="col">Domain</th>
                  {KINDS.map((k) => (
                    <th key={k.key} scope="col" className="num">
                      {k.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {list.map((d, i) => {
                  const s = domainSummaryOf(summaries[i]?.data);
                  return (
                    <tr key={d.id}>
                      <th scope="row">{d.name}</th>
                      {KINDS.map((k) => (
                        <td key={k.key} className="num" data-label={k.label}>
                          {s ? formatCount(s[k.key]) : "…"}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {list.length > 1 ? (
            <div className="orphan-domain">
              <Field label="Domain to chart">
                {(p) => (
                  <select {...p} value={domainId ?? ""} onChange={(e) => setChosen(Number(e.target.value))}>
                    {list.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
          ) : null}
          <div className="orphan-detail">
            <TimeChart title={`Orphan visits a day on ${domainName}`} points={fillDays(rowsOf(daily.data), range)} series={ORPHAN_SERIES} emptyText="No orphan visits in this range." />
            <Breakdown title={`Unknown aliases tried on ${domainName}`} rows={rowsOf(aliases.data)} isLoading={aliases.isPending} emptyText="No unknown alias tried in this range." />
          </div>
        </>
      ) : null}
    </section>
  );
}
