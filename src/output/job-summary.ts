/**
 * `cai conformance run --summary FILE` (and `$GITHUB_STEP_SUMMARY`): a short Markdown summary of a run, for a CI
 * job's page. The verdict line, the checks that failed (and warned) with their sections and a one-line expected
 * and actual, then the counts. Values that come from the target are flattened to one line, cut, and escaped so
 * they render as text (no HTML, links, emphasis or table cells of theirs).
 */
import type { ConformanceView } from './html/conformance-report.js';

export interface JobSummaryOptions {
  /** Checks listed before "… and N more". */
  maxListed?: number;
  /** Characters kept of an expected or actual value. */
  maxValue?: number;
}

/**
 * Text → inline Markdown that renders as that text: whitespace runs (newlines included) become one space, control
 * characters go, `& < >` become entities (so no HTML gets through), and the punctuation that means something
 * inside a line (emphasis, code, links, table cells, strike-through) is backslash-escaped. The values are never at
 * the start of a line, so `#`, `-`, `+` and `1.` cannot start a heading or a list and are left as they are.
 */
export function escapeMarkdown(text: string, maxLength = Infinity): string {
  // eslint-disable-next-line no-control-regex
  let flat = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  flat = flat.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  if (flat.length > maxLength) flat = `${flat.slice(0, maxLength).replace(/[\uD800-\uDBFF]$/, '')}…`;
  return flat
    .replace(/[&<>]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[char] as string)
    .replace(/[\\`*_[\]|~]/g, '\\$&');
}

export function renderJobSummary(report: ConformanceView, options: JobSummaryOptions = {}): string {
  const maxListed = options.maxListed ?? 50;
  const maxValue = options.maxValue ?? 160;
  const { summary } = report;
  const who = `interface ${escapeMarkdown(report.interface)}${report.role ? ` (${escapeMarkdown(report.role)})` : ''}`;
  const where = report.target ? ` against ${escapeMarkdown(report.target)}${report.mock ? ' (built-in reference receiver)' : ''}` : '';
  const lines = [`### ${report.ok ? '✅ cai conformance passed' : '❌ cai conformance failed'}: ${who}${where}`, ''];
  if (report.interrupted) lines.push('The run was interrupted: the checks not run are reported as skipped.', '');
  const listed = report.checks.filter((check) => check.verdict === 'failed' || (check.verdict === 'warning' && report.failOn === 'warnings'));
  const warnings = report.failOn === 'warnings' ? [] : report.checks.filter((check) => check.verdict === 'warning');
  for (const check of [...listed, ...warnings].slice(0, maxListed)) {
    const mark = check.verdict === 'failed' ? '✗' : '!';
    const level = check.verdict === 'warning' ? ', should' : '';
    lines.push(`- ${mark} **${escapeMarkdown(check.id)}** ${escapeMarkdown(check.title)} (${escapeMarkdown(check.sections.join(' '))}${level})  `);
    lines.push(`  expected ${escapeMarkdown(check.expected, maxValue)}; actual ${escapeMarkdown(check.actual, maxValue)}`);
  }
  const more = listed.length + warnings.length - maxListed;
  if (more > 0) lines.push(`- … and ${more} more (the HTML or JUnit report lists them all)`);
  if (listed.length + warnings.length > 0) lines.push('');
  const extra = [`${summary.warnings} warning${summary.warnings === 1 ? '' : 's'}`, ...(summary.waived > 0 ? [`${summary.waived} waived`] : [])];
  lines.push(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped; ${extra.join(', ')} (${summary.total} checks)`, '');
  return lines.join('\n') + '\n';
}
