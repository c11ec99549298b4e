/**
 * `cai conformance run --html FILE`: the run as one self-contained page. A pure function of the report (the same
 * document `--json` prints): the run's facts, the summary, and every check as a row that opens on its details
 * (expected and actual, notes, the request and the answer, the repro command). A small script adds the verdict
 * filters, the search box and copy buttons; without it every check is still there. Fields this renderer does not
 * know (another role's results) are shown as they are, so a new kind of report still renders everything.
 */
import { domId, html, type SafeHtml } from '../../output/html/escape.js';
import { renderBody, renderHead } from '../../output/html/bodies.js';
import { renderPage } from '../../output/html/page.js';
import { legend, proportionBar } from '../../output/html/svg.js';
import type { ScenarioSummary } from '../types.js';
import { documentOf, type CheckView, type ConformanceView } from './document.js';
import { CONFORMANCE_SCRIPT } from './html-script.js';
import { chunks, CONFORMANCE_CSS } from './html-style.js';
import { formatDuration } from '../../duration.js';
import {
  checkTime,
  INTERRUPTED_NOTICE,
  signedSeconds,
  summaryText,
  VERDICT_SYMBOL,
  VERDICTS,
  waiverText,
} from './text.js';
import type { FailureCause } from '../diagnose/types.js';
import { causeBlock, type Block } from '../diagnose/words.js';
import { COVERAGE_CSS, coverageLine, coverageOfRun, coverageTable } from './coverage.js';
import { plural } from '../../text.js';

export type { CheckView, ConformanceView } from './document.js';

export interface ConformancePageOptions {
  /** `cai 0.2.0`. */
  generator?: string;
}

const countOf = (report: ConformanceView, count: (typeof VERDICTS)[number]['count']) => report.summary[count] ?? 0;

const KNOWN_REPORT_FIELDS = new Set([
  'ok',
  'version',
  'target',
  'interface',
  'role',
  'mock',
  'startedAt',
  'durationMs',
  'probeStatus',
  'clock',
  'summary',
  'checks',
  'waivers',
  'reproDir',
  'interrupted',
  'failOn',
  'stopped',
  'preflight',
  'scenarios',
  'error',
  'diagnosis',
  'causes',
]);
const KNOWN_CHECK_FIELDS = new Set([
  'id',
  'aliases',
  'interface',
  'role',
  'title',
  'sections',
  'section',
  'level',
  'tags',
  'optional',
  'verdict',
  'expected',
  'actual',
  'durationMs',
  'notes',
  'repro',
  'waiver',
  'requests',
  'rateLimitedRetries',
  'exchange',
  'exchanges',
]);

/** The fields of a report or a check this page does not show in their place, to show as they are. */
const unknownFields = (value: object, known: ReadonlySet<string>) =>
  (Object.entries(value) as [string, unknown][]).filter(([key, field]) => !known.has(key) && field !== undefined);

export function renderConformanceHtml(report: ConformanceView, options: ConformancePageOptions = {}): string {
  const title = `cai conformance: interface ${report.interface}${report.role ? ` (${report.role})` : ''}${report.target ? ` — ${report.target}` : ''}`;
  const body = html`<main>
${renderHeader(report)}
${renderSummary(report)}
${renderNotices(report)}
${report.scenarios && report.scenarios.length > 0 ? renderScenarios(report.scenarios) : ''}
${report.causes && report.causes.length > 0 ? renderCauses(report.causes) : ''}
<h2>Checks</h2>
${renderToolbar(report)}
<div id="checks">
${chunks(report.checks).map(
  (chunk) => html`<div class="chunk">
${chunk.map(renderCheck)}</div>
`,
)}
</div>
<p id="none" class="muted" hidden>No check matches the filters.</p>
${renderRunCoverage(report)}
<footer>Written by ${options.generator ?? 'cai'}${report.startedAt ? ` for the run started ${report.startedAt}` : ''}. Self-contained: it loads nothing from the network.</footer>
</main>`;
  return renderPage({
    title,
    body,
    css: CONFORMANCE_CSS + COVERAGE_CSS,
    script: CONFORMANCE_SCRIPT,
    generator: options.generator,
  });
}

/** Every clause the run's role binds, with the verdicts of the checks that enforce it, or why none can (folded). */
function renderRunCoverage(report: ConformanceView): SafeHtml | string {
  const matrix = coverageOfRun(report);
  if (!matrix) return '';
  return html`<h2 id="coverage">Clause coverage</h2>
<details><summary>${coverageLine(matrix)}</summary>${coverageTable(matrix, true)}</details>`;
}

function renderHeader(report: ConformanceView): SafeHtml {
  const badge = report.ok ? html`<span class="badge ok">PASSED</span>` : html`<span class="badge fail">FAILED</span>`;
  const lead = summaryText(report.summary);
  const rows: [string, SafeHtml | string][] = [];
  if (report.target !== undefined && report.role === 'sender')
    rows.push(['listened on', html`<code>${report.target}</code> (cai as the receiver; each scenario's URL is below)`]);
  else if (report.target !== undefined)
    rows.push([
      'target',
      html`<code>${report.target}</code>${report.mock ? ' (the built-in reference receiver)' : ''}`,
    ]);
  rows.push(['interface', report.interface]);
  if (report.version)
    rows.push([
      'judged by',
      `cai ${report.version.tool}, spec ${report.version.spec}, catalogue ${report.version.catalogue}`,
    ]);
  if (report.role !== undefined) rows.push(['role', report.role]);
  if (report.startedAt !== undefined) rows.push(['started', report.startedAt]);
  if (report.durationMs !== undefined) rows.push(['duration', formatDuration(report.durationMs)]);
  if (report.clock) rows.push(['clock offset', clockText(report.clock)]);
  if (report.probeStatus !== undefined) rows.push(['probe answer', String(report.probeStatus)]);
  if (report.preflight !== undefined)
    rows.push(['first signed request', `${report.preflight.actual} (expected ${report.preflight.expected})`]);
  if (report.failOn !== undefined)
    rows.push(['fails on', report.failOn === 'warnings' ? 'failed must and should checks' : 'failed must checks']);
  if (report.reproDir !== undefined) rows.push(['failing bodies', html`<code>${report.reproDir}</code>`]);
  const extra: Record<string, unknown> = {};
  for (const [key, value] of unknownFields(report, KNOWN_REPORT_FIELDS)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) rows.push([key, String(value)]);
    else extra[key] = value;
  }
  return html`<header>
<h1>cai conformance report ${badge}</h1>
<p class="lead">${lead}</p>
<dl class="meta">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>
${Object.keys(extra).length > 0 ? html`<details><summary class="muted">more about this run</summary><pre>${JSON.stringify(extra, null, 2)}</pre></details>` : ''}
</header>`;
}

function renderSummary(report: ConformanceView): SafeHtml {
  const cards = VERDICTS.map(
    ({ verdict, label, count }) =>
      html`<button type="button" class="card v-${verdict}" data-only="${verdict}" title="show only the ${label} checks"><b>${countOf(report, count)}</b><span>${label}</span></button>`,
  );
  const bars = VERDICTS.map(({ label, tone, count }) => ({ label, value: countOf(report, count), tone }));
  return html`<section class="cards">${cards}<button type="button" class="card" data-only="all" title="show every check"><b>${report.summary.total}</b><span>checks</span></button></section>
${report.summary.total > 0 ? html`${proportionBar('checks by verdict', bars, 960, 14)}${legend(VERDICTS.filter(({ count }) => countOf(report, count) > 0).map(({ label, tone }) => ({ name: label, tone })))}` : ''}`;
}

function renderNotices(report: ConformanceView): SafeHtml {
  const notices: (SafeHtml | string)[] = [];
  if (report.error)
    notices.push(
      html`<b>The run stopped before any check:</b> ${report.error.message}${report.error.hint ? html`<br>Hint: ${report.error.hint}` : ''}`,
    );
  const { diagnosis, refused, stopped, unfinished } = documentOf(report);
  if (refused !== undefined) notices.push(`Warning: ${refused}.`);
  if (stopped) notices.push(html`<b>The run stopped early:</b> ${stopped}.`);
  if (report.interrupted) notices.push(INTERRUPTED_NOTICE);
  if (unfinished.length > 0)
    notices.push(
      html`Not finished (${unfinished.length}): ${unfinished.map((check, index) => html`${index > 0 ? ', ' : ''}<a href="#${domId('check', check.id)}">${check.id}</a>`)}.`,
    );
  if (report.clock?.note) notices.push(report.clock.note);
  if (report.probeStatus === 404 || report.probeStatus === 405)
    notices.push(`The target answered ${report.probeStatus} to a POST: is the target URL right?`);
  for (const waiver of report.waivers ?? []) notices.push(waiver.message);
  // The diagnosis holds a list of its own: a block, not a paragraph.
  return html`${diagnosis ? html`<div class="notice">${renderBlock(diagnosis)}</div>` : ''}${notices.map((notice) => html`<p class="notice">${notice}</p>`)}`;
}

/** A diagnosis or a cause: its title, then its rows as the expected and actual of a check are shown. */
function renderBlock(block: Block, links?: readonly string[]): SafeHtml {
  const rows = block.rows.filter(([label]) => links === undefined || label !== 'checks');
  return html`<b>${block.title}</b><dl class="ea">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}${links ? html`<dt>checks</dt><dd>${links.map((id, index) => html`${index > 0 ? ', ' : ''}<a href="#${domId('check', id)}">${id}</a>`)}</dd>` : ''}</dl>`;
}

/** Failures that share one cause: each once, with links to the checks it explains (each is also listed below). */
function renderCauses(causes: readonly FailureCause[]): SafeHtml {
  return html`<h2>Causes</h2>
<p class="muted">Failures one cause explains, shown once; every check keeps its own result below.</p>
${causes.map((cause) => html`<div class="notice" id="${cause.id}">${renderBlock(causeBlock(cause), cause.checks)}</div>`)}`;
}

function renderToolbar(report: ConformanceView): SafeHtml {
  const counts = new Map<string, number>();
  for (const check of report.checks) counts.set(check.verdict, (counts.get(check.verdict) ?? 0) + 1);
  return html`<div class="toolbar no-print" id="toolbar" hidden>
${VERDICTS.map(({ verdict, label }) => html`<label><input type="checkbox" name="verdict" value="${verdict}" checked> ${label} (${counts.get(verdict) ?? 0})</label>`)}
<input type="search" id="search" placeholder="search the checks" aria-label="search the checks">
<button type="button" id="expand">expand failures</button>
<button type="button" id="collapse">collapse all</button>
<span id="shown" aria-live="polite"></span>
</div>`;
}

function renderCheck(check: CheckView): SafeHtml {
  const label = `${VERDICT_SYMBOL[check.verdict] ?? '?'} ${check.verdict}`;
  // One line per check, no whitespace between elements: with 10 000 checks every text node counts.
  return html`<details class="check v-${check.verdict}" id="${domId('check', check.id)}" data-v="${check.verdict}"><summary><span class="v">${label}</span><span class="id">${check.id}</span><span class="title">${check.title}</span><span class="lvl">${check.level}</span><span class="sec">${check.sections.join(' ')}</span><span class="dur">${checkTime(check)}</span></summary><div class="detail">${renderDetail(check)}</div></details>
`;
}

function renderDetail(check: CheckView): SafeHtml {
  const rows: [string, SafeHtml | string][] = [
    ['expected', check.expected],
    ['actual', check.actual],
  ];
  if (check.waiver) rows.push(['waived', waiverText(check.waiver)]);
  for (const note of check.notes ?? []) rows.push(['note', note]);
  const facts = [
    `sections ${check.sections.join(' ')}`,
    ...(check.tags && check.tags.length > 0 ? [`tags ${check.tags.join(', ')}`] : []),
    ...(check.requests !== undefined ? [plural(check.requests, 'request')] : []),
    ...(check.rateLimitedRetries ? [`${check.rateLimitedRetries} answer(s) of 429 honoured`] : []),
  ];
  const extra = Object.fromEntries(unknownFields(check, KNOWN_CHECK_FIELDS));
  return html`<dl class="ea">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl><p class="muted">${facts.join(' · ')}</p>${check.exchange ? renderExchange(check.exchange) : ''}${check.repro ? renderRepro(check.repro) : ''}${Object.keys(extra).length > 0 ? html`<h4>More</h4><pre>${JSON.stringify(extra, null, 2)}</pre>` : ''}`;
}

function renderExchange(exchange: NonNullable<CheckView['exchange']>): SafeHtml {
  const { request, response } = exchange;
  const requestPart = html`<div><h4>Request</h4>${renderHead(`${request.method} ${request.url}`, request.headers)}${renderBody(request.body)}</div>`;
  const responsePart = response
    ? html`<div><h4>Response <span class="muted">(${exchange.latencyMs} ms)</span></h4>${renderHead(`HTTP ${response.status}`, response.headers)}${response.bodyTruncated ? html`<p class="notice">The body was longer than cai reads: only its start was kept (the rest was discarded and the connection closed).</p>` : ''}${renderBody(response.body)}</div>`
    : html`<div><h4>Response</h4><p class="notice">No answer${exchange.error ? `: ${exchange.error.message} (${exchange.error.code})` : ''}.</p></div>`;
  return html`<div class="head-row">${requestPart}${responsePart}</div>`;
}

/** Sender runs: per scenario, the URL the sender was given, cai's script of answers, the trigger, every attempt. */
function renderScenarios(scenarios: readonly ScenarioSummary[]): SafeHtml {
  return html`<h2>Scenarios</h2>
<p class="muted">What the sender did in each scenario: every attempt, when it came (from the start of the scenario), the document (delivery) it belongs to, the event_id it carried and what cai answered.</p>
${scenarios.map(renderScenario)}`;
}

function renderScenario(scenario: ScenarioSummary): SafeHtml {
  const facts = [
    `${plural(scenario.deliveries ?? 0, 'document')}, ${plural(scenario.attempts.length, 'attempt')} in ${formatDuration(scenario.durationMs)}`,
    scenario.firstAttemptMs !== undefined
      ? `first after ${formatDuration(scenario.firstAttemptMs)}`
      : 'no attempt came',
    ...(scenario.trigger ? [triggerText(scenario.trigger)] : []),
    ...(scenario.plays !== undefined ? [`played ${scenario.plays} times: the last play shown`] : []),
    ...(scenario.loopLagMs !== undefined && scenario.loopLagMs > 100
      ? [`cai's event loop was held up ${scenario.loopLagMs} ms: waits not judged`]
      : []),
  ];
  const rows = scenario.attempts.map(
    (attempt, index) =>
      html`<tr><td>#${index + 1}</td><td>${formatDuration(attempt.at)}</td><td>${attempt.delivery ?? ''}</td><td><code>${attempt.eventId ?? '(none)'}</code></td><td>${attempt.answer}${attempt.late ? ' (late)' : ''}</td></tr>`,
  );
  return html`<section class="scenario" id="${domId('scenario', scenario.id)}"><h3>${scenario.id}</h3>
<dl class="ea"><dt>URL</dt><dd>${scenario.targetUrl}</dd><dt>answers</dt><dd>${scenario.script}</dd></dl>
<p class="muted">${facts.join(' · ')}</p>
${rows.length > 0 ? html`<table class="attempts"><thead><tr><th>attempt</th><th>at</th><th>document</th><th>event_id</th><th>cai answered</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
</section>`;
}

function triggerText(trigger: NonNullable<ScenarioSummary['trigger']>): string {
  if (trigger.stoppedByCai) return 'trigger stopped by cai at the end of the scenario';
  if (trigger.signal !== undefined) return `trigger ended by ${trigger.signal}`;
  return trigger.exitCode !== undefined ? `trigger exited ${trigger.exitCode}` : 'trigger ran';
}

function renderRepro(repro: { command: string; bodyFile: string }): SafeHtml {
  return html`<h4>Reproduce</h4><div class="repro"><pre class="cmd">${repro.command}</pre><button type="button" class="copy no-print">copy</button></div><p class="muted">The body sent is saved in <code>${repro.bodyFile}</code>.</p>`;
}

function clockText(clock: NonNullable<ConformanceView['clock']>): string {
  if (clock.offsetSeconds === null)
    return clock.dateHeader === null
      ? 'unknown (the target sent no Date header)'
      : 'unknown (its Date header is no usable clock)';
  return `${signedSeconds(clock.offsetSeconds)}${clock.dateHeader ? ` (Date: ${clock.dateHeader})` : ''}`;
}
