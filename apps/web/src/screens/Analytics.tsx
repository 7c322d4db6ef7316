import { useQueries, useQuery } from "@tanstack/react-query";
import { accountSummaryOf, rowsOf } from "../analytics/answers.ts";
import { Breakdown } from "../analytics/Breakdown.tsx";
import { BREAKDOWNS } from "../analytics/breakdowns.ts";
import { Figures } from "../analytics/Figures.tsx";
import { OrphanVisits } from "../analytics/OrphanVisits.tsx";
import { RangePicker, useRange } from "../analytics/RangePicker.tsx";
import { fillDays } from "../analytics/series.ts";
import { TimeChart } from "../analytics/TimeChart.tsx";
import { messageOf, useTRPC } from "../trpc.ts";
import { ErrorBanner } from "../ui.tsx";

/**
 * The whole account's analytics (CONTRACT §21): the range, the summary over every link, humans, unique
 * visitors and bots a day, every breakdown, the top links, and each domain's orphan visits.
 */
export function AnalyticsScreen() {
  const trpc = useTRPC();
  const range = useRange();
  const summary = useQuery(trpc.stats.account.queryOptions({ name: "summary", ...range.range }));
  const daily = useQuery(trpc.stats.account.queryOptions({ name: "clicks", ...range.range }));
  const links = useQuery(trpc.stats.account.queryOptions({ name: "links", ...range.range }));
  const breakdowns = useQueries({ queries: BREAKDOWNS.map((b) => trpc.stats.account.queryOptions({ name: b.name, ...range.range })) });
  const error = summary.error ?? daily.error ?? links.error ?? breakdowns.find((q) => q.error)?.error;
  const top = rowsOf(links.data);

  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <p className="muted small">
        Every link of your account. Humans are clicks; bots (crawlers, link previews, prefetches) are counted apart. Unique visitors are counted a day at a time: a range adds up its days.
      </p>
      <RangePicker value={range} />
      <ErrorBanner message={error ? messageOf(error) : null} />
      <Figures summary={accountSummaryOf(summary.data)} />
      <TimeChart title="Humans, unique visitors and bots a day, all links" points={fillDays(rowsOf(daily.data), range.range)} />
      <div className="breakdowns">
        <Breakdown
          title="Top links"
          className="top-links"
          rows={top}
          isLoading={links.isPending}
          emptyText="No clicks in this range."
          label={(shortUrl) => shortUrl.replace(/^https?:\/\//, "")}
          linkTo={(row) => (row.id === undefined ? undefined : `/links/${row.id}`)}
        />
        {BREAKDOWNS.map((b, i) => (
          <Breakdown key={b.name} title={b.title} rows={rowsOf(breakdowns[i]?.data)} isLoading={breakdowns[i]?.isPending} {...("label" in b ? { label: b.label } : {})} />
        ))}
      </div>
      <OrphanVisits range={range.range} />
    </section>
  );
}
