import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { countTicks, dayLabel, dayTicks, describeChart, formatCount, totalsOf, type ChartSeries, type DayPoint } from "./series.ts";

export type { ChartSeries };

export const VISIT_SERIES: ChartSeries[] = [
  { key: "humans", label: "Humans", tone: "humans" },
  { key: "unique", label: "Unique visitors", tone: "unique" },
  { key: "bots", label: "Bots", tone: "bots" },
];

const HEIGHT = 240;
const PAD = { top: 14, right: 14, bottom: 28 };
const round = (n: number) => Math.round(n * 10) / 10;

/** The container's width in CSS pixels, followed as it changes (the chart is drawn at its real size, so text stays crisp). */
function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(240, Math.floor(element.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/**
 * A time series as an SVG line chart, drawn by hand (no chart library: ADR 0043): a point for every day of
 * the range, zero days included (the lines come down to the axis, and each day has its tick), y gridlines
 * with whole counts, day labels counted back from the last day, and a legend with each series' total.
 * Accessible: the picture has a title and a description; the frame is focusable and the arrow keys (Home,
 * End, Page Up/Down for a week) read one day at a time into a live line; every day is also a table.
 */
export function TimeChart({ title, points, series = VISIT_SERIES, emptyText = "No visits in this range." }: { title: string; points: DayPoint[]; series?: ChartSeries[]; emptyText?: string }) {
  const id = useId();
  const { ref, width } = useWidth(720);
  const [active, setActive] = useState<number | null>(null);
  const count = points.length;
  useEffect(() => setActive(null), [count, points[0]?.day]);

  const max = Math.max(0, ...points.flatMap((p) => series.map((s) => p[s.key])));
  const ticks = countTicks(max);
  const top = ticks.at(-1) ?? 1;
  const left = 14 + 7.5 * Math.max(1, formatCount(top).length);
  const plotW = Math.max(10, width - left - PAD.right);
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => round(left + (count <= 1 ? plotW / 2 : (i * plotW) / (count - 1)));
  const y = (v: number) => round(PAD.top + plotH - (v / top) * plotH);
  const labels = dayTicks(count, Math.max(2, Math.floor(plotW / 80)));
  const spansYears = count > 0 && points[0]?.day.slice(0, 4) !== points.at(-1)?.day.slice(0, 4);
  const totals = totalsOf(points);
  const isEmpty = series.every((s) => totals[s.key] === 0);
  const showDots = count <= 45;

  const path = (key: ChartSeries["key"]) => points.map((p, i) => `${i === 0 ? "M" : "L"}${x(i)},${y(p[key])}`).join("");
  const area = (key: ChartSeries["key"]) => (count ? `${path(key)}L${x(count - 1)},${y(0)}L${x(0)},${y(0)}Z` : "");

  const indexAt = (clientX: number, rect: DOMRect) => {
    if (count === 0) return null;
    const at = ((clientX - rect.left - left) / plotW) * (count - 1);
    return Math.min(count - 1, Math.max(0, Math.round(at)));
  };
  const onPointer = (e: PointerEvent<SVGSVGElement>) => setActive(indexAt(e.clientX, e.currentTarget.getBoundingClientRect()));
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (count === 0) return;
    const current = active ?? count - 1;
    const moves: Record<string, number> = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: count - 1, PageUp: current - 7, PageDown: current + 7 };
    const next = moves[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setActive(active === null && (e.key === "ArrowLeft" || e.key === "ArrowRight") ? count - 1 : Math.min(count - 1, Math.max(0, next)));
  };
  const point = active === null ? null : points[active];

  return (
    <figure className="time-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      <ul className="legend">
        {series.map((s) => (
          <li key={s.key}>
            <svg width="28" height="12" aria-hidden="true" className={`tone-${s.tone}`}>
              <line x1="1" x2="27" y1="6" y2="6" className="series-line" />
            </svg>
            {s.label} <strong>{formatCount(totals[s.key])}</strong>
          </li>
        ))}
      </ul>
      <div
        ref={ref}
        className="chart-frame"
        tabIndex={0}
        role="group"
        aria-label={`${title}: chart`}
        aria-describedby={`${id}-keys`}
        onKeyDown={onKey}
        onFocus={() => setActive((a) => a ?? (count ? count - 1 : null))}
        onBlur={() => setActive(null)}
      >
        <svg width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} onPointerMove={onPointer} onPointerLeave={() => setActive(null)}>
          <title id={`${id}-title`}>{title}</title>
          <desc id={`${id}-desc`}>{describeChart(points, series)}</desc>
          <g className="grid">
            {ticks.map((t) => (
              <g key={t}>
                <line x1={left} x2={left + plotW} y1={y(t)} y2={y(t)} />
                <text x={left - 8} y={y(t) + 4} textAnchor="end">
                  {formatCount(t)}
                </text>
              </g>
            ))}
          </g>
          <g className="x-axis">
            <line x1={left} x2={left + plotW} y1={y(0)} y2={y(0)} className="axis-line" />
            {plotW / Math.max(1, count) >= 3 ? points.map((p, i) => <line key={p.day} x1={x(i)} x2={x(i)} y1={y(0)} y2={y(0) + 4} />) : null}
            {labels.map((i) => (
              <text key={i} x={x(i)} y={HEIGHT - 8} textAnchor={i === 0 && count > 1 ? "start" : i === count - 1 && count > 1 ? "end" : "middle"}>
                {dayLabel(points[i]?.day ?? "", spansYears && (i === labels[0] || points[i]?.day.slice(5) === "01-01"))}
              </text>
            ))}
          </g>
          {series.map((s, n) => (
            <g key={s.key} className={`tone-${s.tone}`}>
              {n === 0 ? <path d={area(s.key)} className="series-area" /> : null}
              <path d={path(s.key)} className="series-line" />
              {showDots ? points.map((p, i) => <circle key={p.day} cx={x(i)} cy={y(p[s.key])} r={n === 0 ? 2.6 : 2} className="series-dot" />) : null}
            </g>
          ))}
          {point && active !== null ? (
            <g className="cursor">
              <line x1={x(active)} x2={x(active)} y1={PAD.top} y2={y(0)} />
              {series.map((s) => (
                <circle key={s.key} cx={x(active)} cy={y(point[s.key])} r={4.5} className={`tone-${s.tone}`} />
              ))}
            </g>
          ) : null}
          {isEmpty ? (
            <text x={left + plotW / 2} y={PAD.top + plotH / 2} textAnchor="middle" className="empty-note">
              {emptyText}
            </text>
          ) : null}
        </svg>
      </div>
      <p className="chart-readout" aria-live="polite">
        {point ? (
          <>
            <strong>{dayLabel(point.day, true)}</strong>
            {series.map((s) => (
              <span key={s.key}>
                {" "}
                · {s.label}: {formatCount(point[s.key])}
              </span>
            ))}
          </>
        ) : (
          <span className="muted">Point at a day, or focus the chart and use the arrow keys, to read it.</span>
        )}
      </p>
      <p id={`${id}-keys`} className="visually-hidden">
        Left and right arrow keys move one day, Page Up and Page Down a week, Home and End to the first and last day.
      </p>
      <details className="chart-table">
        <summary>Every day as a table</summary>
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">{title}, every day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th key={s.key} scope="col" className="num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.day}>
                  <th scope="row">{p.day}</th>
                  {series.map((s) => (
                    <td key={s.key} className="num">
                      {formatCount(p[s.key])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
