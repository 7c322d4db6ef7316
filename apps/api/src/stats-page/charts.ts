import { escapeHtml, formatCount } from "./html.ts";

/** Server-drawn SVG charts: no script, no external asset; each has a title and a description for screen readers. */

/** The top of the y axis and its step: a "nice" number (1, 2 or 5 × 10ⁿ) a tick. */
export function niceScale(max: number, ticks = 4): { top: number; step: number } {
  if (max <= 0) return { top: ticks, step: 1 };
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const whole = Math.max(1, step < 1 ? 1 : step);
  return { top: Math.ceil(max / whole) * whole, step: whole };
}

const round = (n: number) => Math.round(n * 100) / 100;

export type Column = { value: number; tooltip: string };

/**
 * A column chart (clicks a day, clicks by hour): a column for each non-zero value, a tooltip on each,
 * y gridlines with their counts, a few x labels, and the tallest column's count printed above it.
 */
export function columnChart(options: {
  id: string;
  title: string;
  description: string;
  columns: Column[];
  xLabels: Array<{ index: number; label: string }>;
  className: string;
  width?: number;
  height?: number;
}): string {
  const { id, columns } = options;
  const width = options.width ?? 760;
  const height = options.height ?? 240;
  const left = 44;
  const right = 8;
  const top = 22;
  const bottom = 26;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(0, ...columns.map((c) => c.value));
  const scale = niceScale(max);
  const slot = plotW / Math.max(1, columns.length);
  const barW = Math.max(1, slot * 0.72);
  const y = (v: number) => top + plotH - (v / scale.top) * plotH;

  const parts: string[] = [];
  for (let v = 0; v <= scale.top; v += scale.step) {
    const gy = round(y(v));
    parts.push(`<line class="gridline" x1="${left}" x2="${width - right}" y1="${gy}" y2="${gy}"/>`);
    parts.push(`<text class="axis" x="${left - 8}" y="${gy + 4}" text-anchor="end">${formatCount(v)}</text>`);
  }
  const peak = columns.findIndex((c) => c.value === max && max > 0);
  columns.forEach((c, i) => {
    if (c.value <= 0) return;
    const x = round(left + i * slot + (slot - barW) / 2);
    const h = Math.max(1, round((c.value / scale.top) * plotH));
    const rx = round(Math.min(3, barW / 3));
    parts.push(
      `<rect class="${options.className}${i === peak ? " peak" : ""}" x="${x}" y="${round(top + plotH - h)}" width="${round(barW)}" height="${h}" rx="${rx}"><title>${escapeHtml(c.tooltip)}</title></rect>`,
    );
  });
  if (peak >= 0) {
    const px = round(left + peak * slot + slot / 2);
    const anchor = peak < columns.length * 0.08 ? "start" : peak > columns.length * 0.92 ? "end" : "middle";
    parts.push(`<text class="peak-label" x="${px}" y="${round(y(max) - 6)}" text-anchor="${anchor}">${formatCount(max)}</text>`);
  }
  for (const { index, label } of options.xLabels) {
    const x = round(left + index * slot + slot / 2);
    parts.push(`<text class="axis" x="${x}" y="${height - 6}" text-anchor="middle">${escapeHtml(label)}</text>`);
  }
  return (
    `<svg id="${id}" class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc">` +
    `<title id="${id}-title">${escapeHtml(options.title)}</title><desc id="${id}-desc">${escapeHtml(options.description)}</desc>` +
    parts.join("") +
    `</svg>`
  );
}

export type BarRow = { label: string; value: number; tooltip?: string };

/**
 * A ranked list as horizontal bars: each row's label over a soft bar as long as its share of the
 * largest row, its count and its share of all clicks on the right.
 */
export function barList(options: { id: string; title: string; rows: BarRow[]; total: number; tone: string }): string {
  const { rows, total } = options;
  // About the width a panel has on a desktop screen, so the text is drawn near its CSS size.
  const width = 300;
  const rowH = 26;
  const gap = 6;
  const barMax = 210;
  const height = Math.max(rowH, rows.length * (rowH + gap) - gap);
  const max = Math.max(1, ...rows.map((r) => r.value));
  const parts = rows.map((r, i) => {
    const y = i * (rowH + gap);
    const w = Math.max(4, round((r.value / max) * barMax));
    const share = total > 0 ? (r.value / total) * 100 : 0;
    const shareText = share >= 10 || share === 0 ? `${Math.round(share)}%` : `${share.toFixed(1)}%`;
    const label = r.label.length > 27 ? `${r.label.slice(0, 26)}…` : r.label;
    const tip = r.tooltip ?? `${r.label}: ${formatCount(r.value)} clicks (${shareText})`;
    return (
      `<g class="row"><title>${escapeHtml(tip)}</title>` +
      `<rect class="track" x="0" y="${y}" width="${barMax}" height="${rowH}" rx="6"/>` +
      `<rect class="hbar" x="0" y="${y}" width="${w}" height="${rowH}" rx="6"/>` +
      `<text class="hlabel" x="8" y="${y + 17.5}">${escapeHtml(label)}</text>` +
      `<text class="hcount" x="${width - 42}" y="${y + 17.5}" text-anchor="end">${formatCount(r.value)}</text>` +
      `<text class="hshare" x="${width}" y="${y + 17.5}" text-anchor="end">${shareText}</text></g>`
    );
  });
  const description = rows.map((r) => `${r.label}: ${formatCount(r.value)}`).join("; ");
  return (
    `<svg id="${options.id}" class="bars tone-${escapeHtml(options.tone)}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${options.id}-title ${options.id}-desc">` +
    `<title id="${options.id}-title">${escapeHtml(options.title)}</title><desc id="${options.id}-desc">${escapeHtml(description)}</desc>` +
    parts.join("") +
    `</svg>`
  );
}
