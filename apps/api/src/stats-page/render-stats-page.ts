import { UNKNOWN_VALUE, type FoldedValues, type StatDimensionName, type StatRow, type StatsReport } from "@shortener/core";
import { barList, columnChart, type BarRow } from "./charts.ts";
import { displayName, escapeHtml, formatCount, formatDay, statsHtmlPage } from "./html.ts";

/** What the page says about the link: never its destination (a link password may guard that). */
export type PageLink = { id: number; alias: string; shortUrl: string; title: string | null };

const TITLES: Record<StatDimensionName, { heading: string; column: string }> = {
  country: { heading: "Countries", column: "Country" },
  platform: { heading: "Platforms", column: "Platform" },
  browser: { heading: "Browsers", column: "Browser" },
  device: { heading: "Devices", column: "Device" },
  language: { heading: "Languages", column: "Language" },
  referrer: { heading: "Referrers", column: "Referrer" },
};

/** The panels' order on the page (the JSON keeps the API's). */
const PANEL_ORDER: readonly StatDimensionName[] = ["country", "referrer", "platform", "browser", "language", "device"];

/** Rows shown as bars per panel; the table under each panel has up to TABLE_ROWS. */
const TOP_ROWS = 8;
const TABLE_ROWS = 100;
/** Longest range drawn as a column a day (the JSON has the days of up to 3,660). */
const DRAWN_DAYS = 366;

/** The label a value gets on the page (the API keeps the raw value). */
function labelOf(dimension: StatDimensionName, value: string): string {
  if (value === UNKNOWN_VALUE) return dimension === "referrer" ? "Direct or unknown" : UNKNOWN_VALUE;
  if (dimension === "country" || dimension === "language") return displayName(dimension, value);
  if (dimension === "device") return value.charAt(0).toUpperCase() + value.slice(1);
  return value;
}

/** The preset ranges, as links that keep the page's path. */
function presets(report: StatsReport, today: string): string {
  const options: Array<[string, number]> = [
    ["7 days", 7],
    ["30 days", 30],
    ["90 days", 90],
    ["12 months", 365],
  ];
  const links = options.map(([label, days]) => {
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    const isCurrent = report.range.from === from && report.range.to === today;
    return `<a href="?from=${from}&amp;to=${today}"${isCurrent ? ' aria-current="true"' : ""}>${label}</a>`;
  });
  return `<nav class="presets" aria-label="Preset ranges">${links.join("")}</nav>`;
}

function table(caption: string, column: string, rows: Array<{ label: string; value: number; extra?: string }>, total: number, after?: string): string {
  const body = rows
    .slice(0, TABLE_ROWS)
    .map((r) => {
      const share = total > 0 ? `${((r.value / total) * 100).toFixed(1)}%` : "0%";
      return `<tr><td>${escapeHtml(r.label)}${r.extra ? ` <small>(${escapeHtml(r.extra)})</small>` : ""}</td><td class="n">${formatCount(r.value)}</td><td class="n">${share}</td></tr>`;
    })
    .join("");
  const more = rows.length > TABLE_ROWS ? `<p class="empty">The first ${TABLE_ROWS} of ${formatCount(rows.length)} rows; the API has them all.</p>` : (after ?? "");
  return (
    `<details><summary>${escapeHtml(caption)} as a table</summary><div class="table-scroll"><table><caption class="sr">${escapeHtml(caption)}</caption>` +
    `<thead><tr><th scope="col">${escapeHtml(column)}</th><th scope="col" class="n">Clicks</th><th scope="col" class="n">Share</th></tr></thead>` +
    `<tbody>${body}</tbody></table></div>${more}</details>`
  );
}

/**
 * One value series: its top values as bars (the rest as one "Other" bar) and a table. `series` ends
 * with the report's "Other" row when `other` says values were added up (CONTRACT §15).
 */
function dimensionPanel(dimension: StatDimensionName, series: StatRow[], other: FoldedValues | null, total: number): string {
  const { heading, column } = TITLES[dimension];
  const rows = other ? series.slice(0, -1) : series;
  const valueCount = rows.length + (other?.values ?? 0);
  const labelled = rows.map((r) => ({
    label: labelOf(dimension, r.value),
    value: r.count,
    extra: (dimension === "country" || dimension === "language") && r.value !== UNKNOWN_VALUE ? r.value : undefined,
  }));
  let content: string;
  if (!rows.length) {
    content = `<p class="empty">No clicks in this range.</p>`;
  } else {
    const bars: BarRow[] = labelled.slice(0, TOP_ROWS).map((r) => ({ label: r.label, value: r.value }));
    const rest = labelled.slice(TOP_ROWS);
    const restValues = rest.length + (other?.values ?? 0);
    if (restValues) bars.push({ label: `Other (${formatCount(restValues)})`, value: rest.reduce((s, r) => s + r.value, 0) + (other?.count ?? 0) });
    const after = other ? `<p class="empty">And ${formatCount(other.values)} more values with ${formatCount(other.count)} clicks.</p>` : undefined;
    content =
      barList({ id: `chart-${dimension}`, title: `Clicks by ${column.toLowerCase()}`, rows: bars, total, tone: dimension }) +
      table(
        heading,
        column,
        labelled.map((r) => ({ label: r.label, value: r.value, ...(r.extra ? { extra: r.extra } : {}) })),
        total,
        after,
      );
  }
  return `<section class="panel" aria-labelledby="h-${dimension}" data-dimension="${dimension}"><h2 id="h-${dimension}">${heading}<small>${formatCount(valueCount)} ${valueCount === 1 ? "value" : "values"}</small></h2>${content}</section>`;
}

function dailyPanel(report: StatsReport): string {
  const daily = report.series.clicks;
  if (!daily || daily.length > DRAWN_DAYS) {
    const note = `Clicks per day are drawn for ranges of ${DRAWN_DAYS} days or less: choose a shorter range.`;
    return `<section class="panel" aria-labelledby="h-clicks"><h2 id="h-clicks">Clicks over time<small>per day, UTC</small></h2><p class="empty">${note}</p></section>`;
  }
  const withYear = report.range.from.slice(0, 4) !== report.range.to.slice(0, 4);
  const step = Math.max(1, Math.ceil(daily.length / 7));
  const xLabels = daily.flatMap((r, i) => (i % step === 0 ? [{ index: i, label: formatDay(r.value) }] : []));
  const busiest = daily.reduce<StatRow | undefined>((best, r) => (r.count > (best?.count ?? 0) ? r : best), undefined);
  const description =
    `${formatCount(report.total)} clicks from ${formatDay(report.range.from, true)} to ${formatDay(report.range.to, true)}` +
    (busiest ? `; the busiest day was ${formatDay(busiest.value, true)} with ${formatCount(busiest.count)}.` : ".");
  const chart = columnChart({
    id: "chart-clicks",
    title: "Clicks per day",
    description,
    columns: daily.map((r) => ({ value: r.count, tooltip: `${formatDay(r.value, withYear)}: ${formatCount(r.count)} ${r.count === 1 ? "click" : "clicks"}` })),
    xLabels,
    className: "bar",
  });
  const rows = daily.map((r) => ({ label: r.value, value: r.count }));
  return `<section class="panel" aria-labelledby="h-clicks"><h2 id="h-clicks">Clicks over time<small>per day, UTC</small></h2>${chart}${table("Clicks per day", "Day", rows, report.total)}</section>`;
}

function hourPanel(report: StatsReport): string {
  const hours = report.hourOfDay;
  const busiest = hours.indexOf(Math.max(...hours));
  const hh = (h: number) => `${String(h).padStart(2, "0")}:00`;
  const chart = columnChart({
    id: "chart-hours",
    title: "Clicks by hour of the day (UTC)",
    description: report.total ? `Most clicks arrive at ${hh(busiest)} UTC (${formatCount(hours[busiest] ?? 0)}).` : "No clicks in this range.",
    columns: hours.map((n, h) => ({ value: n, tooltip: `${hh(h)}–${hh((h + 1) % 24)} UTC: ${formatCount(n)} ${n === 1 ? "click" : "clicks"}` })),
    xLabels: [0, 3, 6, 9, 12, 15, 18, 21].map((h) => ({ index: h, label: hh(h) })),
    className: "hour",
    height: 180,
  });
  return `<section class="panel" aria-labelledby="h-hours"><h2 id="h-hours">Time of day<small>UTC</small></h2>${chart}</section>`;
}

function card(key: string, value: string, sub = ""): string {
  return `<li class="card"><p class="k">${escapeHtml(key)}</p><p class="v">${escapeHtml(value)}</p>${sub ? `<p class="s">${escapeHtml(sub)}</p>` : ""}</li>`;
}

function topOf(report: StatsReport, dimension: StatDimensionName): { label: string; sub: string } {
  const top = report.series[dimension]?.[0];
  if (!top) return { label: "—", sub: "no clicks yet" };
  const share = report.total ? Math.round((top.count / report.total) * 100) : 0;
  return { label: labelOf(dimension, top.value), sub: `${formatCount(top.count)} clicks · ${share}%` };
}

/** The whole statistics page of one link. */
export function renderStatsPage(options: { link: PageLink; report: StatsReport; today: string; nonce: string; notice?: string }): string {
  const { link, report } = options;
  const heading = link.title ?? link.shortUrl;
  const busiest = (report.series.clicks ?? []).reduce<StatRow | undefined>((best, r) => (r.count > (best?.count ?? 0) ? r : best), undefined);
  const country = topOf(report, "country");
  const referrer = topOf(report, "referrer");
  const cards =
    card("Clicks", formatCount(report.total), `people, ${formatDay(report.range.from, true)} – ${formatDay(report.range.to, true)}`) +
    card("Unique visitors", formatCount(report.unique), "each day's, added up") +
    card("Bots", formatCount(report.bots), "crawlers and previews, not clicks") +
    card("Daily average", (report.total / report.range.days).toFixed(report.total / report.range.days >= 10 ? 0 : 1), `over ${report.range.days} days`) +
    card("Busiest day", busiest ? formatDay(busiest.value) : "—", busiest ? `${busiest.value.slice(0, 4)} · ${formatCount(busiest.count)} clicks` : "no clicks yet") +
    card("Top country", country.label, country.sub) +
    card("Top referrer", referrer.label, referrer.sub);
  const body =
    `<div class="wrap"><header class="top"><div><p class="eyebrow">Link statistics</p><h1>${escapeHtml(heading)}</h1>` +
    `<p class="short"><a href="${escapeHtml(link.shortUrl)}" rel="nofollow noopener noreferrer">${escapeHtml(link.shortUrl)}</a></p></div>` +
    `<div class="range">${presets(report, options.today)}` +
    `<form method="get" aria-label="Date range"><label for="from">From</label><input id="from" name="from" type="date" value="${report.range.from}" required>` +
    `<label for="to">to</label><input id="to" name="to" type="date" value="${report.range.to}" required><button type="submit">Show</button></form></div></header>` +
    (options.notice ? `<p class="alert" role="alert">${escapeHtml(options.notice)}</p>` : "") +
    `<ul class="cards" aria-label="Summary">${cards}</ul>` +
    dailyPanel(report) +
    `<div class="grid">${PANEL_ORDER.map((d) => dimensionPanel(d, report.series[d] ?? [], report.others[d], report.total)).join("")}</div>` +
    hourPanel(report) +
    `<footer>All times are UTC. Clicks are visits by people; bots are counted apart. Clicks show here within seconds of each visit.</footer></div>`;
  return statsHtmlPage(`Statistics: ${heading}`, body, options.nonce);
}

/** The password form of a privacy-2 page. */
export function renderPasswordPage(options: { nonce: string; isWrong: boolean }): string {
  const error = options.isWrong ? `<p class="alert" role="alert" id="pw-error">That password is not right.</p>` : "";
  return statsHtmlPage(
    "Password required",
    `<main class="pw"><p class="eyebrow">Link statistics</p><h1>These statistics are protected</h1><p class="short">Enter the password to see them.</p>${error}` +
      `<form method="post" autocomplete="off"><label for="password">Password</label>` +
      `<input id="password" name="password" type="password" required maxlength="128" autofocus${options.isWrong ? ' aria-describedby="pw-error" aria-invalid="true"' : ""}>` +
      `<button type="submit">Show statistics</button></form></main>`,
    options.nonce,
  );
}

/** A short page for 404, 422 and 429. */
export function renderMessagePage(options: { nonce: string; status: number; title: string; message: string }): string {
  return statsHtmlPage(
    options.title,
    `<main class="pw"><p class="eyebrow">${options.status}</p><h1>${escapeHtml(options.title)}</h1><p class="short">${escapeHtml(options.message)}</p></main>`,
    options.nonce,
  );
}
