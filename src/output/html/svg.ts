/**
 * Charts as inline SVG, drawn here rather than by a library: the pages must be self-contained and small, and
 * three shapes cover what they show (columns, stacked or not, with a target marker; horizontal bars; one
 * proportion bar). Colours come from the page's CSS (`tone-*` classes), so they follow light and dark mode.
 * Every mark carries `data-label`, `data-series` and `data-value`, and a `<title>` tooltip; a table of the same
 * numbers goes with each chart (`chartTable`), for screen readers and for print.
 */
import { html, type SafeHtml } from './escape.js';

export type Tone = 'ok' | 'fail' | 'warn' | 'waived' | 'skip' | 's1' | 's2' | 's3' | 's4' | 's5';

export interface Series {
  name: string;
  tone: Tone;
}

export interface Column {
  label: string;
  /** One value per series (stacked from the bottom, in series order). */
  values: readonly number[];
  /** Overrides the series' tone for this column (e.g. beyond a target). */
  tone?: Tone;
}

export interface ColumnChart {
  /** Read by screen readers (the SVG's title). */
  title: string;
  series: readonly Series[];
  columns: readonly Column[];
  /** A dashed vertical line after the column at this index, e.g. the §8 target. */
  marker?: { afterIndex: number; label: string };
  width?: number;
  height?: number;
}

const num = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/** Axis ticks for counts: 0 up to at least `max` in round steps (1, 2, 5 × 10^n, never below 1), about `count` of them. */
export function niceTicks(max: number, count = 4): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(
    1,
    [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power,
  );
  const ticks = [0];
  while ((ticks[ticks.length - 1] as number) < max) ticks.push((ticks[ticks.length - 1] as number) + step);
  return ticks;
}

/** Columns (one per category), stacked when there are several series, with a y axis and an optional marker. */
export function columnChart(chart: ColumnChart): SafeHtml {
  const width = chart.width ?? 720;
  const height = chart.height ?? 220;
  const pad = { left: 44, right: 12, top: 18, bottom: 34 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const totals = chart.columns.map((column) => column.values.reduce((sum, value) => sum + value, 0));
  const ticks = niceTicks(Math.max(0, ...totals));
  const top = ticks[ticks.length - 1] as number;
  const y = (value: number) => pad.top + plotH - (value / top) * plotH;
  const slot = chart.columns.length > 0 ? plotW / chart.columns.length : plotW;
  const barW = Math.max(1, Math.min(56, slot * 0.72));
  // Thin out the x labels so they never overlap (about 6 px a character at 11 px).
  const longest = Math.max(1, ...chart.columns.map((column) => column.label.length));
  const every = Math.max(1, Math.ceil((longest * 6.5 + 8) / slot));
  const parts = gridLines(ticks, y, pad.left, width - pad.right, num);
  chart.columns.forEach((column, index) => {
    const x = pad.left + slot * index + (slot - barW) / 2;
    let base = 0;
    column.values.forEach((value, seriesIndex) => {
      const series = chart.series[seriesIndex] as Series;
      const tone = column.tone ?? series.tone;
      const y0 = y(base);
      const y1 = y(base + value);
      base += value;
      parts.push(
        html`<rect class="tone-${tone}" x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0, y0 - y1).toFixed(1)}" data-label="${column.label}" data-series="${series.name}" data-value="${value}"><title>${column.label}${chart.series.length > 1 ? ` · ${series.name}` : ''}: ${num(value)}</title></rect>`,
      );
    });
    const total = totals[index] as number;
    if (total > 0 && barW >= 14)
      parts.push(
        html`<text x="${(x + barW / 2).toFixed(1)}" y="${(y(total) - 4).toFixed(1)}" text-anchor="middle">${num(total)}</text>`,
      );
    if (index % every === 0)
      parts.push(
        html`<text class="axis" x="${(x + barW / 2).toFixed(1)}" y="${height - pad.bottom + 14}" text-anchor="middle">${column.label}</text>`,
      );
  });
  if (chart.marker) {
    const mx = pad.left + slot * (chart.marker.afterIndex + 1);
    parts.push(
      html`<line class="target" x1="${mx.toFixed(1)}" x2="${mx.toFixed(1)}" y1="${pad.top - 6}" y2="${height - pad.bottom + 4}"/>`,
      html`<text class="target" x="${(mx + 4).toFixed(1)}" y="${pad.top - 6 + 10}">${chart.marker.label}</text>`,
    );
  }
  parts.push(html`<line class="grid" x1="${pad.left}" x2="${width - pad.right}" y1="${y(0)}" y2="${y(0)}"/>`);
  return svg(chart.title, width, height, parts);
}

/** A horizontal grid line at each tick from `left` to `right`, its value (as `label` writes it) left of the axis. */
export function gridLines(
  ticks: readonly number[],
  y: (value: number) => number,
  left: number,
  right: number,
  label: (tick: number) => string,
): SafeHtml[] {
  return ticks.flatMap((tick) => [
    html`<line class="grid" x1="${left}" x2="${right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}"/>`,
    html`<text class="axis" x="${left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${label(tick)}</text>`,
  ]);
}

export interface Bar {
  label: string;
  value: number;
  tone: Tone;
}

/** Horizontal bars with their labels on the left and values on the right (e.g. outcomes by reason). */
export function barList(title: string, bars: readonly Bar[], width = 640): SafeHtml {
  const rowH = 22;
  const labelW = Math.min(220, 16 + 7 * Math.max(4, ...bars.map((bar) => bar.label.length)));
  const valueW = 48;
  const height = Math.max(1, bars.length) * rowH + 8;
  const plotW = width - labelW - valueW;
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const parts = bars.map((bar, index) => {
    const y = 4 + index * rowH;
    const w = (bar.value / max) * plotW;
    return html`<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${bar.label}</text><rect class="tone-${bar.tone}" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" rx="2" data-label="${bar.label}" data-series="${title}" data-value="${bar.value}"><title>${bar.label}: ${num(bar.value)}</title></rect><text x="${(labelW + w + 6).toFixed(1)}" y="${y + 15}">${num(bar.value)}</text>`;
  });
  return svg(title, width, height, parts);
}

/** One horizontal bar split in proportion (e.g. verdicts of a run); empty parts are left out. */
export function proportionBar(title: string, bars: readonly Bar[], width = 640, height = 18): SafeHtml {
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  let x = 0;
  const parts = bars
    .filter((bar) => bar.value > 0)
    .map((bar) => {
      const w = (bar.value / total) * width;
      const rect = html`<rect class="tone-${bar.tone}" x="${x.toFixed(2)}" y="0" width="${w.toFixed(2)}" height="${height}" data-label="${bar.label}" data-series="${title}" data-value="${bar.value}"><title>${bar.label}: ${num(bar.value)}</title></rect>`;
      x += w;
      return rect;
    });
  return svg(title, width, height, parts);
}

/** The key of a chart's series. */
export function legend(entries: readonly { name: string; tone: Tone }[]): SafeHtml {
  return html`<ul class="legend">${entries.map((entry) => html`<li><svg width="10" height="10" aria-hidden="true"><rect class="tone-${entry.tone}" width="10" height="10" rx="2"/></svg>${entry.name}</li>`)}</ul>`;
}

/** The numbers of a chart as a table, folded under it. */
export function chartTable(
  caption: string,
  head: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): SafeHtml {
  return html`<details class="chart-data"><summary class="muted">${caption}: the numbers</summary><table class="data"><thead><tr>${head.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${row.map((cell) => (typeof cell === 'number' ? html`<td class="num">${num(cell)}</td>` : html`<td>${cell}</td>`))}</tr>`)}</tbody></table></details>`;
}

/** A chart's `<svg>`: its size, its title for screen readers, its marks. */
export function svg(title: string, width: number, height: number, parts: readonly SafeHtml[]): SafeHtml {
  return html`<svg class="chart" xmlns="http://www.w3.org/2000/svg" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>${title}</title>${parts}</svg>`;
}
