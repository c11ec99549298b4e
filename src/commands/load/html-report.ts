/**
 * `cai load --html FILE`: the results of a load run as one self-contained page (src/output/html/page.ts: inline CSS,
 * no script, nothing loaded from the network): the thresholds ✓/✗, summary cards, the requests over time (answers
 * a second by status class, and the arrivals dropped, stacked per window) and the latency over time (p50, p90, p99
 * per window) as SVG charts, each with its numbers in a table folded under it, then the counts per status and the
 * rejections. A pure function of the report `cai load --json` prints. Every mark carries `data-window`,
 * `data-series` and `data-value`, so a browser test reads the charts back.
 */
import type { LoadReport } from '../../load/report.js';
import type { TimelineWindow } from '../../load/metrics.js';

import { verdictCounts, verdictDetail, verdictMark } from './needs.js';
import { html, type SafeHtml } from '../../output/html/escape.js';
import { CHART_FIGURE_CSS, cardList, metaList, pageFooter, renderPage } from '../../output/html/page.js';
import {
  chartTable,
  columnChart,
  gridLines,
  legend,
  niceTicks,
  svg,
  type Column,
  type Series,
  type Tone,
} from '../../output/html/svg.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { InterfaceId } from '../../spec/constants.js';
import { formatDuration } from '../../duration.js';

const CSS = `
.charts{display:grid;grid-template-columns:1fr;gap:8px 28px}
${CHART_FIGURE_CSS}
ul.thresholds{list-style:none;padding:0;margin:8px 0}
ul.thresholds li{margin:2px 0}
ul.thresholds .mark{display:inline-block;width:1.4em;font-weight:700}
ul.thresholds .pass .mark{color:var(--ok)}
ul.thresholds .fail .mark{color:var(--fail)}
svg.chart polyline{fill:none;stroke-width:1.8}
.stroke-s1{stroke:var(--s1)}.stroke-s3{stroke:var(--s3)}.stroke-s5{stroke:var(--s5)}
svg.chart circle{stroke:none}
`;

/** Answer classes of a window, stacked bottom to top, then the arrivals not sent. */
const RATE_SERIES: readonly (Series & { value: (window: TimelineWindow) => number })[] = [
  { name: '2xx', tone: 'ok', value: (window) => window.answers['2xx'] },
  { name: '429', tone: 'warn', value: (window) => window.answers['429'] },
  { name: '4xx', tone: 's4', value: (window) => window.answers['4xx'] },
  { name: '5xx', tone: 'fail', value: (window) => window.answers['5xx'] },
  { name: 'no answer', tone: 's5', value: (window) => window.failed + window.answers.other },
  { name: 'dropped', tone: 'skip', value: (window) => window.dropped },
];

const LATENCY_SERIES: readonly { name: 'p50' | 'p90' | 'p99'; stroke: string; tone: Tone }[] = [
  { name: 'p50', stroke: 's1', tone: 's1' },
  { name: 'p90', stroke: 's3', tone: 's3' },
  { name: 'p99', stroke: 's5', tone: 's5' },
];

export function renderLoadHtml(report: LoadReport, options: { generator?: string } = {}): string {
  const body = html`<main>
${header(report)}
${thresholds(report)}
${cards(report)}
<div class="charts">
${rateChart(report)}
${latencyChart(report)}
</div>
${tables(report)}
${pageFooter(options.generator)}
</main>`;
  return renderPage({ title: 'cai load report', body, css: CSS, generator: options.generator });
}

/** `B: events to the platform (§4.2)`. */
function describeInterface(id: InterfaceId): string {
  const spec = interfaceSpec(id);
  return `${id}: ${spec.documentName}s to the ${spec.receiver} (${spec.section})`;
}

function header(report: LoadReport): SafeHtml {
  const rows: [string, string][] = [
    ['target', `${report.target}${report.mock ? ' (the reference receiver, in process)' : ''}`],
    ['interface', describeInterface(report.interface)],
    ['started', report.startedAt],
    ['phases', report.scenario.phases.join(', then ')],
    ...(report.scenario.mix ? [['mix', report.scenario.mix] as [string, string]] : []),
    ['repeats', `${Math.round(report.scenario.repeatShare * 1000) / 10} % of the requests`],
    [
      'in flight',
      `at most ${report.scenario.maxInFlight} (one per connection); time-out ${report.scenario.timeoutMs / 1000} s`,
    ],
  ];
  return html`<header><h1>cai load report${report.interrupted ? ' (interrupted)' : ''}</h1>
${metaList(rows)}</header>`;
}

function thresholds(report: LoadReport): SafeHtml {
  if (report.thresholds.length === 0) return html`<p class="muted">No thresholds were set.</p>`;
  const passed = report.thresholds.every((verdict) => verdict.ok);
  const failed = report.thresholds.some((verdict) => verdictMark(verdict) === '✗');
  return html`<h2>Thresholds <span class="badge ${failed ? 'fail' : 'ok'}">${passed ? 'all passed' : verdictCounts(report.thresholds)}</span></h2>
<ul class="thresholds">${report.thresholds.map(
    (verdict) =>
      html`<li class="${verdict.ok ? 'pass' : verdict.notJudged ? 'not-judged' : 'fail'}" data-ok="${String(verdict.ok)}"><span class="mark">${verdictMark(verdict)}</span><code>${verdict.expression}</code> <span class="muted">${verdictDetail(verdict)}${verdict.description ? ` — ${verdict.description}` : ''}</span></li>`,
  )}</ul>`;
}

function cards(report: LoadReport): SafeHtml {
  const { requests, latencyMs } = report;
  const items: [string | number, string][] = [
    [requests.sent, 'requests sent'],
    [`${report.achievedRatePerSecond}/s`, `achieved of ${report.targetRatePerSecond}/s`],
    [latencyMs.p99 === null ? '–' : formatDuration(latencyMs.p99), 'p99 latency'],
    [requests.failed, 'without an answer'],
    [requests.dropped, 'not sent on time'],
    [report.duplicates.confirmed, `of ${report.duplicates.repeatsSent} repeats confirmed`],
  ];
  return cardList(items);
}

/** A window's label: its start in seconds (`12s`), or minutes past 10 minutes (`12m`). */
function windowLabel(window: TimelineWindow): string {
  const seconds = window.startMs / 1000;
  return seconds >= 600 && seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
}

function rateChart(report: LoadReport): SafeHtml {
  const { windows, windowMs } = report.timeline;
  const perSecond = (count: number) => Math.round((count * 1000 * 10) / windowMs) / 10;
  const columns: Column[] = windows.map((window) => ({
    label: windowLabel(window),
    values: RATE_SERIES.map((series) => perSecond(series.value(window))),
  }));
  const caption = html`Requests over time <span>(a second, per ${windowMs / 1000} s window, by answer; target ${report.targetRatePerSecond}/s)</span>`;
  return html`<figure class="chart-fig" data-chart="rate"><figcaption>${caption}</figcaption>${
    windows.length === 0
      ? html`<p class="muted">No request was sent.</p>`
      : html`${columnChart({ title: 'requests a second over time, by answer', series: RATE_SERIES, columns })}${legend(RATE_SERIES)}${chartTable(
          'requests a second',
          ['window', ...RATE_SERIES.map((series) => series.name)],
          windows.map((window) => [
            windowLabel(window),
            ...RATE_SERIES.map((series) => perSecond(series.value(window))),
          ]),
        )}`
  }</figure>`;
}

function latencyChart(report: LoadReport): SafeHtml {
  const { windows, windowMs } = report.timeline;
  const caption = html`Latency over time <span>(ms, of the answers ending in each ${windowMs / 1000} s window)</span>`;
  const answered = windows.filter((window) => window.latencyMs !== null);
  return html`<figure class="chart-fig" data-chart="latency"><figcaption>${caption}</figcaption>${
    answered.length === 0
      ? html`<p class="muted">No answer arrived.</p>`
      : html`${lineChart(windows)}${legend(LATENCY_SERIES)}${chartTable(
          'latency (ms)',
          ['window', ...LATENCY_SERIES.map((series) => series.name), 'max'],
          answered.map((window) => {
            const latency = window.latencyMs as NonNullable<TimelineWindow['latencyMs']>;
            return [windowLabel(window), latency.p50, latency.p90, latency.p99, latency.max];
          }),
        )}`
  }</figure>`;
}

/** p50, p90 and p99 of each window as lines, a dot at each value; windows without answers leave a gap. */
function lineChart(windows: readonly TimelineWindow[], width = 720, height = 220): SafeHtml {
  const pad = { left: 52, right: 12, top: 18, bottom: 34 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const max = Math.max(0, ...windows.map((window) => window.latencyMs?.p99 ?? 0));
  const ticks = max <= 1 ? [0, 0.25, 0.5, 0.75, 1] : niceTicks(max);
  const top = ticks[ticks.length - 1] as number;
  const slot = plotW / Math.max(1, windows.length);
  const x = (index: number) => pad.left + slot * index + slot / 2;
  const y = (value: number) => pad.top + plotH - (value / top) * plotH;
  const parts = gridLines(ticks, y, pad.left, width - pad.right, String);
  const every = Math.max(1, Math.ceil(40 / slot));
  windows.forEach((window, index) => {
    if (index % every === 0)
      parts.push(
        html`<text class="axis" x="${x(index).toFixed(1)}" y="${height - pad.bottom + 14}" text-anchor="middle">${windowLabel(window)}</text>`,
      );
  });
  for (const series of LATENCY_SERIES) {
    // One polyline per run of windows with answers.
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) parts.push(html`<polyline class="stroke-${series.stroke}" points="${run.join(' ')}"/>`);
      run = [];
    };
    windows.forEach((window, index) => {
      const value = window.latencyMs?.[series.name];
      if (value === undefined) return flush();
      run.push(`${x(index).toFixed(1)},${y(value).toFixed(1)}`);
      parts.push(
        html`<circle class="tone-${series.tone}" cx="${x(index).toFixed(1)}" cy="${y(value).toFixed(1)}" r="${windows.length > 120 ? 1 : 2.5}" data-window="${windowLabel(window)}" data-series="${series.name}" data-value="${value}"><title>${windowLabel(window)} · ${series.name}: ${formatDuration(value)}</title></circle>`,
      );
    });
    flush();
  }
  parts.push(html`<line class="grid" x1="${pad.left}" x2="${width - pad.right}" y1="${y(0)}" y2="${y(0)}"/>`);
  return svg('latency over time: p50, p90, p99 (ms)', width, height, parts);
}

function tables(report: LoadReport): SafeHtml {
  const statuses = Object.entries(report.statuses);
  const latency = report.latencyMs;
  return html`<h2>Answers</h2>
<table class="data" data-table="statuses"><thead><tr><th>status</th><th>requests</th></tr></thead><tbody>${statuses.map(([status, count]) => html`<tr><td>${status}</td><td class="num">${count}</td></tr>`)}${Object.entries(report.failures).map(([code, count]) => html`<tr><td>no answer: ${code}</td><td class="num">${count}</td></tr>`)}</tbody></table>
<h3>Latency (ms)</h3>
<table class="data" data-table="latency"><thead><tr><th>min</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>max</th><th>answers</th></tr></thead><tbody><tr>${[latency.min, latency.p50, latency.p90, latency.p95, latency.p99, latency.max].map((value) => html`<td class="num">${value ?? '–'}</td>`)}<td class="num">${latency.count}</td></tr></tbody></table>
${report.rejections.length > 0 ? html`<h3>Rejections (4xx other than 429, §7)</h3><table class="data" data-table="rejections"><thead><tr><th>status</th><th>reason</th><th>requests</th></tr></thead><tbody>${report.rejections.map((rejection) => html`<tr><td>${rejection.status}</td><td>${rejection.reason}</td><td class="num">${rejection.count}</td></tr>`)}</tbody></table>` : ''}
<h3>Repeats (§6.1, §2.13)</h3>
<table class="data" data-table="repeats"><tbody><tr><td>repeats sent</td><td class="num">${report.duplicates.repeatsSent}</td></tr><tr><td>confirmed as duplicates</td><td class="num">${report.duplicates.confirmed}</td></tr><tr><td>not recognised (accepted as new)</td><td class="num">${report.duplicates.notRecognised}</td></tr><tr><td>not accepted (429, 5xx…)</td><td class="num">${report.duplicates.repeatsNotAccepted}</td></tr></tbody></table>`;
}
