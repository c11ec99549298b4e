/**
 * The human report of `cai conformance run` on stdout. Not on a terminal (CI logs, files, pipes): everything, plain
 * and whole: the table of every check, each failure in detail with its reproduction command, each skipped check,
 * the count lines. On a terminal, where the live progress has already shown the checks go by: no table (unless
 * --verbose), the failures in detail fitted to the width with a short `sh DIR/ID.sh` reproduction, the skipped
 * checks grouped by reason, the count line in colour.
 */
import { countLine, failureDetails, formatDuration, preflightWarning, stoppedLine, tableRows, warningLine } from '../conformance/report.js';
import type { CheckResult, SuiteReport } from '../conformance/types.js';
import { truncate, visibleWidth } from './layout.js';
import type { Output } from './output.js';
import { safeText } from './safe-text.js';
import { VERDICT_SYMBOLS, verdictPaint } from './conformance-progress.js';

export interface HumanReportOptions {
  /** `--verbose`: the table of every check on a terminal too. */
  verbose: boolean;
}

export async function renderConformanceReport(report: SuiteReport, options: HumanReportOptions, output: Output): Promise<void> {
  const terminal = output.width !== undefined;
  const offset = report.clock.offsetSeconds;
  output.resultWrapped(headline(report, offset), '  ');
  if (!terminal || options.verbose) output.result(await checkTable(report.checks, output));
  // What the target answered is in `actual` and the notes: escaped before anything is coloured (issue 14).
  const details = terminal ? terminalDetails(report.checks, output) : failureDetails(report.checks).map(safeText);
  for (const line of details) output.result(line);
  output.result('');
  output.result(terminal ? paintedCounts(report, output) : countLine(report.summary));
  output.result(terminal && report.summary.warnings > 0 ? output.color.yellow(warningLine(report.summary)) : warningLine(report.summary));
  for (const notice of report.waivers) output.warn(notice.message);
  const refused = preflightWarning(report);
  if (refused !== undefined) output.warn(refused);
  if (report.stopped) output.warn(stoppedLine(report.stopped));
}

/** What was judged and the clock: the receiver at the target, or (`--role sender`) the sender cai received from. */
function headline(report: SuiteReport, offset: number | null): string {
  const signed = offset === null ? '' : `${offset >= 0 ? '+' : ''}${offset} s`;
  if (report.role === 'sender') {
    const clock = offset === null ? "sender's clock unknown (no well-formed timestamp)" : `sender's clock offset ${signed}`;
    return `cai conformance: the sender of interface ${report.interface}, judged by cai on ${safeText(report.target)}, ${clock}`;
  }
  const clock = offset === null ? 'clock offset unknown (no Date header)' : `clock offset ${signed}`;
  return `cai conformance: interface ${report.interface}, ${report.mock ? 'built-in reference receiver ' : ''}${safeText(report.target)}, ${clock}`;
}

/** Every check: id, title, level, verdict (coloured on a terminal), time. The title wraps when the terminal is narrow. */
async function checkTable(checks: readonly CheckResult[], output: Output): Promise<string> {
  const paint = verdictPaint(output.color);
  const rows = tableRows(checks).map((row, index) => {
    const verdict = (checks[index] as CheckResult).verdict;
    return [row[0] as string, row[1] as string, row[2] as string, paint[verdict](row[3] as string), row[4] as string];
  });
  return output.table(['id', 'title', 'level', 'verdict', 'time'], rows, [{ fit: 'fixed' }, { fit: 'wrap', min: 12 }, { fit: 'fixed' }, { fit: 'fixed' }, { fit: 'fixed' }]);
}

/** `54 passed, 1 failed, 2 skipped in 1.4 s`, each count in its verdict's colour when not zero. */
function paintedCounts(report: SuiteReport, output: Output): string {
  const { summary } = report;
  const c = output.color;
  const part = (count: number, word: string, paint: (text: string) => string) => (count > 0 ? paint(`${count} ${word}`) : `${count} ${word}`);
  const counts = `${part(summary.passed, 'passed', c.green)}, ${part(summary.failed, 'failed', c.red)}, ${part(summary.skipped, 'skipped', c.yellow)}`;
  const took = ` in ${formatDuration(report.durationMs)}`;
  // The time only where it fits: the counts are the line CI and people look for.
  return visibleWidth(counts + took) <= (output.width ?? Infinity) ? counts + c.dim(took) : counts;
}

/** The failures (and warnings, waivers) in detail, then the skipped checks grouped by reason, fitted to the terminal. */
function terminalDetails(checks: readonly CheckResult[], output: Output): string[] {
  const paint = verdictPaint(output.color);
  const lines: string[] = [];
  const field = (label: string, value: string) => lines.push(output.fit(`  ${`${label}:`.padEnd(10)}${safeText(value)}`, ' '.repeat(12)));
  for (const result of checks) {
    if (result.verdict !== 'failed' && result.verdict !== 'warning' && result.verdict !== 'waived') continue;
    lines.push('');
    const head = paint[result.verdict](`${VERDICT_SYMBOLS[result.verdict]} ${result.id}`);
    lines.push(output.fit(`${head} ${result.title} ${output.color.dim(`(${result.level}, ${result.sections.join(' ')})`)}`, '  '));
    field('expected', result.expected);
    field('actual', result.actual);
    if (result.waiver) field('waived', `${result.waiver.reason}${result.waiver.expires ? ` (until ${result.waiver.expires})` : ''}`);
    for (const note of result.notes) field('note', note);
    if (result.repro) field('repro', result.repro.script !== undefined ? `sh ${result.repro.script}` : result.repro.command);
  }
  const skipped = checks.filter((result) => result.verdict === 'skipped');
  if (skipped.length === 0) return lines;
  lines.push('');
  const byReason = new Map<string, CheckResult[]>();
  for (const result of skipped) byReason.set(result.actual, [...(byReason.get(result.actual) ?? []), result]);
  for (const [reason, group] of byReason) {
    const first = group[0] as CheckResult;
    if (group.length < 3) {
      for (const result of group) lines.push(output.fit(`${output.color.dim('-')} ${result.id} skipped: ${safeText(reason)}`, '  '));
      continue;
    }
    lines.push(output.fit(`${output.color.dim('-')} ${group.length} checks skipped: ${safeText(reason)}`, '  '));
    lines.push(truncate(`  ${first.id}, ${group.slice(1).map((result) => result.id).join(', ')}`, output.width ?? Infinity));
  }
  return lines;
}
