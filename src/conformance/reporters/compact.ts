/**
 * The report of `cai conformance run` for a log (CI, a pipe, a file): what was judged in one line, a line for each
 * failed, warned or waived check, the count lines. No line is wider than COMPACT_WIDTH columns, whatever the target
 * answered: a check's line is wrapped to three at most, the last cut with an ellipsis (its details are in `--format
 * table`, `--junit`, `--html`), a stop's error or diagnosis is wrapped whole, since it is all there is to read.
 * `quiet` leaves only the failures and the count lines.
 * What the target answered (`actual`, the diagnosis) is escaped before it is laid out.
 */
import { truncate, wrap } from '../../output/layout.js';
import { safeText } from '../../output/safe-text.js';
import { rowLines } from '../diagnose/words.js';
import type { CheckResult, SuiteReport } from '../types.js';
import { documentOf } from './document.js';
import { hasDetails, signedSeconds, VERDICT_SYMBOL, waiverText, warningLine } from './text.js';
import type { Palette } from '../../output/palette.js';

/** The widest line of the compact report, in columns: a CI log's width, with room for a timestamp prefix. */
export const COMPACT_WIDTH = 100;

export interface CompactOptions {
  /** `--quiet`: the failures and the count line only. */
  quiet?: boolean;
  /** The colours of stdout (plain unless `FORCE_COLOR` asks for them where no terminal is): the verdict symbols. */
  palette?: Palette;
}

export function renderCompact(report: SuiteReport, options: CompactOptions = {}): string {
  const lines: string[] = [];
  if (!options.quiet) lines.push(cut(headline(report)));
  if (report.error) {
    lines.push(...wrapped(`✗ the run stopped before any check: ${safeText(report.error.message)}`));
    lines.push(...wrapped(`  hint: ${safeText(report.error.hint)}`));
  }
  const { diagnosis: block, counts } = documentOf(report);
  if (block) {
    lines.push(...wrapped(`✗ ${safeText(block.title)}`));
    for (const row of rowLines(block)) lines.push(...wrapped(`  ${safeText(row)}`));
  }
  for (const check of report.checks.filter(hasDetails))
    lines.push(...painted(checkLines(checkLine(check)), check, options.palette));
  // The count line CI logs are grepped for (`72 passed, 4 failed, 2 skipped`), as every report words it.
  lines.push(cut(counts), cut(warningLine(report.summary)));
  return lines.join('\n');
}

/**
 * `✗ B-DEDUP-001 must §6.1: 202 {"ok":true} (expected 202 {"ok":true,"duplicate":true})`; a known failure, with the
 * reason it is waived first: `~ B-SIZE-001 waived: fix in PLAT-123 (until 2026-12-31); 202 …`.
 */
function checkLine(check: CheckResult): string {
  const actual = safeText(check.actual);
  const expected = check.expected === '' ? '' : ` (expected ${safeText(check.expected)})`;
  if (check.waiver)
    return `${VERDICT_SYMBOL.waived} ${safeText(check.id)} waived: ${safeText(waiverText(check.waiver))}; ${actual}`;
  return `${VERDICT_SYMBOL[check.verdict]} ${safeText(check.id)} ${check.level} ${check.sections[0] ?? check.section}: ${actual}${expected}`;
}

/** What was judged: the interface and the target (or the sender judged, `--role sender`), and the clock. */
function headline(report: SuiteReport): string {
  const offset = report.clock.offsetSeconds;
  const signed = offset === null ? '' : signedSeconds(offset);
  if (report.role === 'sender') {
    const clock = offset === null ? 'its clock unknown (no well-formed timestamp)' : `its clock offset ${signed}`;
    return `cai conformance: a sender of interface ${report.interface}, judged on ${safeText(report.target)}, ${clock}`;
  }
  const clock = offset === null ? 'clock offset unknown (no Date header)' : `clock offset ${signed}`;
  const what = report.mock ? 'the built-in reference receiver' : safeText(report.target);
  return `cai conformance: interface ${report.interface}, ${what}, ${clock}`;
}

function cut(line: string): string {
  return truncate(line, COMPACT_WIDTH);
}

/** The verdict symbol that starts a check's first line, in its colour (the rest as it is). */
function painted(lines: string[], check: CheckResult, palette: Palette | undefined): string[] {
  if (palette === undefined || lines.length === 0) return lines;
  const paint = check.verdict === 'failed' ? palette.red : check.verdict === 'warning' ? palette.yellow : palette.dim;
  const [first = '', ...rest] = lines;
  const symbol = VERDICT_SYMBOL[check.verdict];
  return [`${paint(symbol)}${first.slice(symbol.length)}`, ...rest];
}

/** A check's line, wrapped to at most CHECK_LINES lines (the cause of a failure is often at the end), the last cut. */
const CHECK_LINES = 3;
function checkLines(text: string): string[] {
  const all = wrapped(text);
  if (all.length <= CHECK_LINES) return all;
  const kept = all.slice(0, CHECK_LINES);
  kept[CHECK_LINES - 1] = truncate(`${kept[CHECK_LINES - 1]} ${all[CHECK_LINES]}`, COMPACT_WIDTH).replace(/ +…$/, '…');
  return kept;
}

function wrapped(text: string): string[] {
  return wrap(text, COMPACT_WIDTH, { indent: '    ' });
}
