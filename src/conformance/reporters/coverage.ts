/**
 * The clause coverage, as text, Markdown and HTML: every clause of the spec with the checks that enforce it (and,
 * for a run, their verdicts), or why none can. `cai conformance coverage` prints it; the HTML report and the job
 * summary of a run carry it; docs/conformance-coverage.md is generated from it.
 */
import { html, type SafeHtml } from '../../output/html/escape.js';
import { pageFooter, renderPage } from '../../output/html/page.js';
import type { ClauseCoverage, CoveringCheck } from '../coverage.js';
import { runCoverage, summariseCoverage } from '../coverage.js';
import type { CheckResult, CheckRole } from '../types.js';
import { VERDICT_SYMBOL } from './text.js';

const STATUS_WORD: Record<ClauseCoverage['status'], string> = {
  covered: 'covered',
  untestable: 'not testable',
  uncovered: 'NOT COVERED',
};

function checkText(check: CoveringCheck): string {
  return check.verdict ? `${check.id} ${VERDICT_SYMBOL[check.verdict]}` : check.id;
}

/** In a run's matrix (`run`), the checks it did not run are named after those it did, as `not run: …`. */
function checksText(checks: readonly CoveringCheck[], run: boolean): string {
  if (!run) return checks.map(checkText).join(', ');
  const ran = checks.filter((check) => check.verdict !== undefined).map(checkText);
  const other = checks.filter((check) => check.verdict === undefined).map((check) => check.id);
  return [...ran, ...(other.length > 0 ? [`not run: ${other.join(', ')}`] : [])].join(', ');
}

/** A clause's checks, or why it has none (`mark` around the status word: `*` for Markdown's emphasis). */
function coveredBy(entry: ClauseCoverage, run: boolean, mark = ''): string {
  if (entry.status === 'covered') return checksText(entry.checks, run);
  return `${mark}${STATUS_WORD[entry.status]}${mark}: ${entry.clause.untestable ?? 'no check'}`;
}

/** `5 clauses: 3 covered (2 of 3 must), 1 not testable, 1 not covered: §x-1`. */
export function coverageLine(matrix: readonly ClauseCoverage[]): string {
  const summary = summariseCoverage(matrix);
  const holes =
    summary.uncovered.length > 0
      ? `, ${summary.uncovered.length} not covered: ${summary.uncovered.join(', ')}`
      : ', none uncovered';
  return `${summary.clauses} clauses: ${summary.covered} covered (${summary.mustCovered} of ${summary.must} must), ${summary.untestable} not testable from outside${holes}`;
}

/** One line per clause: id, level, then its checks or why there are none; the text on the next line. */
export function renderCoverageText(matrix: readonly ClauseCoverage[], run = false): string {
  const lines: string[] = [];
  for (const entry of matrix) {
    lines.push(`${entry.clause.id.padEnd(8)} ${entry.clause.level.padEnd(6)} ${coveredBy(entry, run)}`);
    lines.push(`         ${entry.clause.text}`);
  }
  lines.push('', coverageLine(matrix));
  return lines.join('\n');
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A Markdown table of the matrix (the generated page, and the job summary's details). */
export function renderCoverageMarkdown(matrix: readonly ClauseCoverage[], run = false): string {
  const lines = ['| clause | level | roles | checks, or why none | statement |', '|---|---|---|---|---|'];
  for (const entry of matrix) {
    lines.push(
      `| ${entry.clause.id} | ${entry.clause.level} | ${entry.clause.roles.join(', ')} | ${cell(coveredBy(entry, run, '*'))} | ${cell(entry.clause.text)} |`,
    );
  }
  return lines.join('\n');
}

export const COVERAGE_CSS = `
.cov{border-collapse:collapse;width:100%}.cov th,.cov td{text-align:left;vertical-align:top;padding:3px 10px 3px 0;border-bottom:1px solid var(--border);font-size:13px}
.cov .id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:nowrap}
.cov .s-uncovered{color:var(--fail);font-weight:600}.cov .s-untestable{color:var(--muted)}
`;

/** The matrix as an HTML table (a section of the conformance report, or a page of its own). */
export function coverageTable(matrix: readonly ClauseCoverage[], run = false): SafeHtml {
  return html`<table class="cov"><thead><tr><th>clause</th><th>level</th><th>checks, or why none</th><th>statement</th></tr></thead><tbody>${matrix.map(
    (entry) =>
      html`<tr><td class="id">${entry.clause.id}</td><td>${entry.clause.level}</td><td class="s-${entry.status}">${coveredBy(entry, run)}</td><td>${entry.clause.text}</td></tr>`,
  )}</tbody></table>`;
}

export function renderCoverageHtml(
  matrix: readonly ClauseCoverage[],
  options: { title: string; generator?: string },
): string {
  const body = html`<main><header><h1>${options.title}</h1><p class="lead">${coverageLine(matrix)}</p></header>${coverageTable(matrix)}${pageFooter(options.generator)}</main>`;
  return renderPage({ title: options.title, body, css: COVERAGE_CSS, generator: options.generator });
}

/** What the coverage of a run reads of its report (html.ts's view, which imports this module; the Markdown view's too). */
interface RunView {
  interface: string;
  role?: string;
  checks: readonly { id: string; level: string; verdict: CheckResult['verdict']; role?: string }[];
}

/**
 * The clauses the run's role binds, each with the verdicts its checks got in this run: undefined for a run that
 * judged nothing (stopped before any check) or a view of no known interface.
 */
export function coverageOfRun(report: RunView): ClauseCoverage[] | undefined {
  if ((report.interface !== 'A' && report.interface !== 'B') || report.checks.length === 0) return undefined;
  const role: CheckRole = report.role === 'sender' ? 'sender' : 'receiver';
  const results = report.checks.map((check) => ({
    id: check.id,
    role: check.role === 'sender' || check.role === 'receiver' ? check.role : role,
    interface: report.interface as 'A' | 'B',
    level: check.level === 'should' ? ('should' as const) : ('must' as const),
    verdict: check.verdict,
  }));
  return runCoverage(results, role, report.interface);
}
