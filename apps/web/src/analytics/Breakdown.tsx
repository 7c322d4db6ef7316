import { useId, useState } from "react";
import { Link } from "react-router";
import { formatCount, formatShare } from "./series.ts";

export type BreakdownRow = { value: string; count: number; id?: number | undefined };

const SHOWN = 8;

/** Names for codes where the browser knows them: `DE` → "Germany", `de` → "German"; the code itself otherwise. */
function namer(type: "region" | "language"): (code: string) => string {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(["en"], { type });
  } catch {
    names = null;
  }
  return (code) => {
    if (!names || !/^[A-Za-z]{2}$/.test(code)) return code;
    try {
      const name = names.of(type === "region" ? code.toUpperCase() : code.toLowerCase());
      return name && name.toLowerCase() !== code.toLowerCase() ? `${name} (${code})` : code;
    } catch {
      return code;
    }
  };
}
export const countryName = namer("region");
export const languageName = namer("language");

/**
 * One breakdown (countries, platforms, bots…) as ranked bars: each value, a bar as long as its share of the
 * largest, its count and its share of the total. The top 8 first; "Show all" opens the rest (the API sends
 * at most 100 and "Other").
 */
export function Breakdown({
  title,
  rows,
  label = (v) => v,
  linkTo,
  isLoading = false,
  emptyText = "Nothing in this range.",
  className = "",
}: {
  title: string;
  rows: BreakdownRow[];
  label?: (value: string) => string;
  /** A row's screen in the dashboard (top links: the link's page), if it has one. */
  linkTo?: (row: BreakdownRow) => string | undefined;
  isLoading?: boolean;
  emptyText?: string;
  className?: string;
}) {
  const id = useId();
  const [isAll, setAll] = useState(false);
  const total = rows.reduce((sum, r) => sum + r.count, 0);
  const max = Math.max(1, ...rows.map((r) => r.count));
  const shown = isAll ? rows : rows.slice(0, SHOWN);
  const to = (row: BreakdownRow) => linkTo?.(row);
  return (
    <figure className={`bars breakdown ${className}`.trim()} aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {isLoading ? <p className="muted">Loading…</p> : rows.length === 0 ? <p className="muted">{emptyText}</p> : null}
      {rows.length ? (
        <table>
          <caption className="visually-hidden">
            {title}: value, count, share of {formatCount(total)}
          </caption>
          <colgroup>
            <col className="c-label" />
            <col />
            <col className="c-count" />
            <col className="c-share" />
          </colgroup>
          <tbody>
            {shown.map((r) => {
              return (
                <tr key={r.id ?? r.value}>
                  <th scope="row" title={label(r.value)}>
                    {to(r) ? <Link to={to(r) ?? ""}>{label(r.value)}</Link> : label(r.value)}
                  </th>
                  <td className="bar-cell" aria-hidden="true">
                    <span className="bar" style={{ width: `${(r.count / max) * 100}%` }} />
                  </td>
                  <td className="num">{formatCount(r.count)}</td>
                  <td className="num muted share">{formatShare(r.count, total)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {rows.length > SHOWN ? (
        <button type="button" className="link-button" aria-expanded={isAll} onClick={() => setAll((all) => !all)}>
          {isAll ? `Show the top ${SHOWN}` : `Show all ${rows.length}`}
        </button>
      ) : null}
    </figure>
  );
}
