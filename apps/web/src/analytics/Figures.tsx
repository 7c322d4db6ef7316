import { formatMoment } from "../ui.tsx";
import { formatCount } from "./series.ts";

export type Summary = { clicks: number; unique_visitors: number; bots: number; first_click_at: string | null; last_click_at: string | null };

/** The summary of a range: humans, unique visitors, bots, and the first and last click. */
export function Figures({ summary }: { summary: Summary | undefined }) {
  const value = (n: number | undefined) => (n === undefined ? "…" : formatCount(n));
  return (
    <dl className="figures">
      <div>
        <dt>Humans</dt>
        <dd data-testid="figure-humans">{value(summary?.clicks)}</dd>
      </div>
      <div>
        <dt>Unique visitors</dt>
        <dd data-testid="figure-unique">{value(summary?.unique_visitors)}</dd>
      </div>
      <div>
        <dt>Bots</dt>
        <dd data-testid="figure-bots">{value(summary?.bots)}</dd>
      </div>
      <div>
        <dt>First click</dt>
        <dd className="moment">{summary ? formatMoment(summary.first_click_at, "None yet") : "…"}</dd>
      </div>
      <div>
        <dt>Last click</dt>
        <dd className="moment">{summary ? formatMoment(summary.last_click_at, "None yet") : "…"}</dd>
      </div>
    </dl>
  );
}
