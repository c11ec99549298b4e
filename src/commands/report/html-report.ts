/**
 * `cai report --html FILE`: the operation report of §1 as one self-contained page with charts, in total and per
 * branch: time to first contact against the §8 target (histogram), outcomes of `job.closed`, and activity per
 * day; then the report's tables. A pure function of the report `cai report --json` prints. No script: the charts
 * are inline SVG, each with its numbers in a table folded under it.
 */
import type { BranchReport, DayCounts, HistogramBin, OperationReport } from '../../report/aggregate.js';
import { outcomeColumns, seconds, skippedRecords, tableViews, windowText } from '../../report/render.js';
import { html, type SafeHtml } from '../../output/html/escape.js';
import { CHART_FIGURE_CSS, cardList, metaList, pageFooter, renderPage } from '../../output/html/page.js';
import {
  barList,
  chartTable,
  columnChart,
  legend,
  type Column,
  type Series,
  type Tone,
} from '../../output/html/svg.js';

/** The report as `cai report --json` prints it (the logs and line counts are optional). */
export type OperationView = OperationReport & {
  logs?: readonly string[];
  lines?: number;
  malformed?: readonly unknown[];
};

export interface OperationPageOptions {
  generator?: string;
}

const CSS = `
.branch{break-inside:avoid-page}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:8px 28px}
${CHART_FIGURE_CSS}
nav.branches{display:flex;flex-wrap:wrap;gap:4px 12px;margin:8px 0}
@media print{.charts{grid-template-columns:1fr 1fr}}
`;

const DAY_SERIES: readonly (Series & { key: keyof Omit<DayCounts, 'day'> })[] = [
  { name: 'jobs', tone: 's1', key: 'jobs' },
  { name: 'messages', tone: 's2', key: 'messages' },
  { name: 'appointments', tone: 's3', key: 'appointments' },
  { name: 'closed', tone: 's4', key: 'closed' },
];

/** More days than this are charted per week. */
const MAX_DAY_COLUMNS = 92;

/**
 * Branches charted one by one, at most: the busiest (most jobs). Each costs about 10 KB of SVG, so a log naming
 * 20 000 branches made a page of hundreds of MB; every branch stays in the tables at the end of the page.
 */
export const MAX_CHARTED_BRANCHES = 100;

export function renderOperationHtml(report: OperationView, options: OperationPageOptions = {}): string {
  const branches = chartedBranches(report.branches);
  const more = report.branches.length - branches.length;
  const body = html`<main>
${renderHeader(report)}
${renderBranch(report, report.total, 'All branches')}
${branches.length > 0 ? html`<h2>Per branch</h2>${more > 0 ? html`<p class="muted">The ${branches.length} branches with the most jobs; the ${more} others are in the tables below.</p>` : ''}<nav class="branches no-print">${branches.map((branch, index) => html`<a href="#branch-${index}">${branch.branch_code}</a>`)}</nav>` : ''}
${branches.map((branch, index) => html`<div id="branch-${index}">${renderBranch(report, branch, `Branch ${branch.branch_code}`)}</div>`)}
<h2>Tables</h2>
${tableViews(report).map((view) => html`<h3>${view.title}</h3><table class="data"><thead><tr>${view.head.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${view.rows.map((row) => html`<tr>${row.map((cell, index) => (index === 0 ? html`<td>${cell}</td>` : html`<td class="num">${cell}</td>`))}</tr>`)}</tbody></table>`)}
${pageFooter(options.generator)}
</main>`;
  return renderPage({ title: 'cai operation report', body, css: CSS, generator: options.generator });
}

/** The branches charted: all of them, or the MAX_CHARTED_BRANCHES with the most jobs, in the report's order. */
function chartedBranches(branches: readonly BranchReport[]): readonly BranchReport[] {
  if (branches.length <= MAX_CHARTED_BRANCHES) return branches;
  const busiest = new Set(
    [...branches.keys()]
      .sort((a, b) => (branches[b] as BranchReport).jobs - (branches[a] as BranchReport).jobs || a - b)
      .slice(0, MAX_CHARTED_BRANCHES),
  );
  return branches.filter((_, index) => busiest.has(index));
}

function renderHeader(report: OperationView): SafeHtml {
  const { filter, records } = report;
  const skipped = skippedRecords(report);
  const rows: [string, string][] = [
    ...(report.logs ? [['logs', report.logs.join(', ')] as [string, string]] : []),
    ['window', `${windowText(filter)} (received_at)`],
    ['space', filter.space],
    ...(filter.provider ? [['provider', filter.provider] as [string, string]] : []),
    [
      'records',
      `${report.lines !== undefined ? `${report.lines} read, ` : ''}${records.used} used${skipped !== undefined ? `; skipped: ${skipped}` : ''}`,
    ],
    [
      'targets (§8)',
      `first contact within ${minutes(report.targets.first_contact_seconds)}; message delivery within ${report.targets.message_delivery_seconds} s`,
    ],
  ];
  return html`<header><h1>cai operation report</h1><p class="muted">Jobs received, time to first contact, conversations, appointments and outcomes (§1, Reporting).</p>
${metaList(rows)}</header>`;
}

function renderBranch(report: OperationView, branch: BranchReport, heading: string): SafeHtml {
  const target = report.targets.first_contact_seconds;
  const share = branch.first_contact.within_target_share;
  const cards: [string | number, string][] = [
    [branch.jobs, 'jobs received'],
    [share === null ? '–' : `${(share * 100).toFixed(1)}%`, `contacted within ${minutes(target)}`],
    [seconds(branch.first_contact.median_seconds), 'median first contact'],
    [branch.conversations.held, 'conversations held'],
    [branch.appointments.booked, 'appointments booked'],
    [branch.closed, 'jobs closed'],
  ];
  return html`<section class="branch" data-branch="${branch.branch_code}">
<h2>${heading}</h2>
${cardList(cards)}
<div class="charts">
${firstContactChart(branch, target)}
${outcomesChart(branch, report)}
${perDayChart(branch)}
</div>
</section>`;
}

function firstContactChart(branch: BranchReport, target: number): SafeHtml {
  const bins = branch.first_contact.histogram;
  const targetIndex = bins.findIndex((bin) => bin.up_to_seconds === target);
  const columns: Column[] = bins.map((bin, index) => ({
    label: binLabel(bins, index),
    values: [bin.count],
    tone: (index <= targetIndex ? 'ok' : 'warn') as Tone,
  }));
  columns.push({ label: 'never', values: [branch.first_contact.not_contacted], tone: 'skip' });
  const caption = `${branch.first_contact.within_target} of ${branch.jobs} jobs contacted within ${minutes(target)}`;
  return figure(
    'first-contact',
    branch,
    html`Time to first contact <span>(${caption}; ${branch.first_contact.not_contacted} never contacted)</span>`,
    html`${columnChart({ title: `time to first contact, ${branch.branch_code}`, series: [{ name: 'jobs', tone: 'ok' }], columns, marker: targetIndex >= 0 ? { afterIndex: targetIndex, label: `target ${minutes(target)} (§8)` } : undefined })}${legend(
      [
        { name: `within ${minutes(target)}`, tone: 'ok' },
        { name: 'later', tone: 'warn' },
        { name: 'never contacted', tone: 'skip' },
      ],
    )}${chartTable('time to first contact', ['delay', 'jobs'], [...bins.map((bin, index) => [binText(bins, index), bin.count] as [string, number]), ['never contacted', branch.first_contact.not_contacted]])}`,
  );
}

function outcomesChart(branch: BranchReport, report: OperationView): SafeHtml {
  const names = outcomeColumns(report);
  const tones: Tone[] = ['s1', 's2', 's3', 's4', 's5'];
  const bars = names.map((name, index) => ({
    label: name,
    value: branch.outcomes[name] ?? 0,
    tone: tones[index % tones.length] as Tone,
  }));
  return figure(
    'outcomes',
    branch,
    html`Outcomes <span>(${branch.closed} job.closed, by reason, §2.12)</span>`,
    html`${barList(`outcomes, ${branch.branch_code}`, bars)}${chartTable(
      'outcomes',
      ['outcome', 'jobs'],
      bars.map((bar) => [bar.label, bar.value]),
    )}`,
  );
}

function perDayChart(branch: BranchReport): SafeHtml {
  const buckets = dayBuckets(branch.per_day);
  const daily = buckets.days === 1;
  // What one column is: a day, a week, or a run of N weeks.
  const per = daily ? 'day' : buckets.days === 7 ? 'week' : `${buckets.days / 7} weeks`;
  const columns: Column[] = buckets.rows.map((row) => ({
    label: row.day.slice(daily ? 5 : 0),
    values: DAY_SERIES.map((series) => row[series.key]),
  }));
  const total = branch.per_day.reduce((sum, day) => sum + day.jobs + day.messages + day.appointments + day.closed, 0);
  return figure(
    'per-day',
    branch,
    html`Activity per ${per} <span>(${total} jobs and events, UTC${daily ? '' : ', weeks from Monday'})</span>`,
    columns.length === 0
      ? html`<p class="muted">No activity in the window.</p>`
      : html`${columnChart({ title: `activity per ${per}, ${branch.branch_code}`, series: DAY_SERIES, columns })}${legend(DAY_SERIES)}${chartTable(
          `activity per ${per}`,
          [daily ? 'day' : buckets.days === 7 ? 'week of' : 'weeks from', ...DAY_SERIES.map((series) => series.name)],
          buckets.rows.map((row) => [row.day, ...DAY_SERIES.map((series) => row[series.key])]),
        )}`,
  );
}

function figure(kind: string, branch: BranchReport, caption: SafeHtml, content: SafeHtml): SafeHtml {
  return html`<figure class="chart-fig" data-chart="${kind}" data-branch="${branch.branch_code}"><figcaption>${caption}</figcaption>${content}</figure>`;
}

/**
 * The days from the first to the last with activity, empty ones included (a gap is information); more than
 * {@link MAX_DAY_COLUMNS} of them are summed per week (Monday to Sunday, labelled by the Monday), and more weeks than
 * that per run of whole weeks, as many as keep the chart within {@link MAX_DAY_COLUMNS} columns: a log whose dates
 * span centuries charts as few columns as one of a quarter.
 */
export function dayBuckets(days: readonly DayCounts[]): { days: number; rows: DayCounts[] } {
  if (days.length === 0) return { days: 1, rows: [] };
  const DAY = 86_400_000;
  const start = Date.parse(`${(days[0] as DayCounts).day}T00:00:00Z`);
  const end = Date.parse(`${(days[days.length - 1] as DayCounts).day}T00:00:00Z`);
  const span = (end - start) / DAY + 1;
  const width = span <= MAX_DAY_COLUMNS ? 1 : 7 * Math.ceil((span + 6) / 7 / MAX_DAY_COLUMNS);
  // The first bucket starts on the Monday of the first day's week; the others follow it, `width` days apart.
  const first = width === 1 ? start : start - ((new Date(start).getUTCDay() + 6) % 7) * DAY;
  const keyOf = (ms: number) => first + Math.floor((ms - first) / (width * DAY)) * width * DAY;
  const rows = new Map<number, DayCounts>();
  for (let ms = first; ms <= end; ms += width * DAY) {
    rows.set(ms, { day: new Date(ms).toISOString().slice(0, 10), jobs: 0, messages: 0, appointments: 0, closed: 0 });
  }
  for (const day of days) {
    const row = rows.get(keyOf(Date.parse(`${day.day}T00:00:00Z`))) as DayCounts;
    for (const { key } of DAY_SERIES) row[key] += day[key];
  }
  return { days: width, rows: [...rows.values()] };
}

/** A bin's bounds in seconds: the one before it (0 for the first), and its own (null: no upper bound). */
function boundsOf(bins: readonly HistogramBin[], index: number): [previous: number, bound: number | null] {
  const previous = index === 0 ? 0 : ((bins[index - 1] as HistogramBin).up_to_seconds as number);
  return [previous, (bins[index] as HistogramBin).up_to_seconds];
}

/** A bound in whole hours, else in minutes (one decimal at most). */
function inUnits(value: number): [amount: number, unit: 'h' | 'm'] {
  return value >= 3600 && value % 3600 === 0 ? [value / 3600, 'h'] : [Number((value / 60).toFixed(1)), 'm'];
}

const short = (value: number) => inUnits(value).join('');

/** Short bin labels: `0–1m`, `4–5m`, `5–10m`, `30m–1h`, `1–4h`, `>24h` (the table under the chart says it in full). */
export function binLabel(bins: readonly HistogramBin[], index: number): string {
  const [previous, bound] = boundsOf(bins, index);
  if (bound === null) return `>${short(previous)}`;
  return previous === 0 || inUnits(previous)[1] === inUnits(bound)[1]
    ? `${inUnits(previous)[0]}–${short(bound)}`
    : `${short(previous)}–${short(bound)}`;
}

/** `up to 1 min`, `5–10 min`, `more than 24 h`: the delay column of the chart's table. */
function binText(bins: readonly HistogramBin[], index: number): string {
  const [previous, bound] = boundsOf(bins, index);
  const words = (value: number) => {
    const [amount, unit] = inUnits(value);
    return `${amount} ${unit === 'h' ? 'h' : 'min'}`;
  };
  if (bound === null) return `more than ${words(previous)}`;
  return previous === 0 ? `up to ${words(bound)}` : `more than ${words(previous)}, up to ${words(bound)}`;
}

function minutes(value: number): string {
  return value % 60 === 0 ? `${value / 60} minutes` : `${value} s`;
}
