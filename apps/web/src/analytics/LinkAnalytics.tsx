import { useQueries, useQuery } from "@tanstack/react-query";
import { messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner } from "../ui.tsx";
import { Breakdown } from "./Breakdown.tsx";
import { BREAKDOWNS } from "./breakdowns.ts";
import { Figures } from "./Figures.tsx";
import { RangePicker, useRange } from "./RangePicker.tsx";
import { fillDays } from "./series.ts";
import { TimeChart } from "./TimeChart.tsx";

/**
 * One link's analytics (CONTRACT §21): the range (7, 30, 90 days or chosen, in the address bar), its
 * summary, humans, unique visitors and bots a day, every breakdown and the bots by name.
 */
export function LinkAnalytics({ id }: { id: number }) {
  const trpc = useTRPC();
  const range = useRange();
  const input = { link_id: id, ...range.range };
  const summary = useQuery(trpc.stats.summary.queryOptions(input));
  const daily = useQuery(trpc.stats.get.queryOptions({ ...input, name: "clicks" }));
  const breakdowns = useQueries({ queries: [...BREAKDOWNS.map((b) => b.name), "bots" as const].map((name) => trpc.stats.get.queryOptions({ ...input, name })) });
  const error = summary.error ?? daily.error ?? breakdowns.find((q) => q.error)?.error;
  const bots = breakdowns.at(-1);
  return (
    <section aria-labelledby="link-analytics-title" className="analytics-section">
      <h2 id="link-analytics-title">Analytics</h2>
      <RangePicker value={range} />
      <ErrorBanner message={error ? messageOf(error) : null} />
      <Figures summary={summary.data} />
      <TimeChart title="Humans, unique visitors and bots a day" points={fillDays(daily.data?.data ?? [], range.range)} />
      <div className="breakdowns">
        {BREAKDOWNS.map((b, i) => (
          <Breakdown key={b.name} title={b.title} rows={breakdowns[i]?.data?.data ?? []} isLoading={breakdowns[i]?.isPending} {...("label" in b ? { label: b.label } : {})} />
        ))}
        <Breakdown title="Bots" rows={bots?.data?.data ?? []} isLoading={bots?.isPending} emptyText="No bots in this range." />
      </div>
    </section>
  );
}
