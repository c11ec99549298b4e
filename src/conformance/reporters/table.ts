/**
 * The human report of `cai conformance run` on stdout. Not on a terminal (CI logs, files, pipes): everything, plain
 * and whole: the table of every check, each failure in detail with its reproduction, each check skipped or not
 * judged, the count lines. On a terminal, where the live progress has already shown the checks go by: no table
 * (unless --verbose), the failures in detail fitted to the width with a short `sh DIR/ID.sh` reproduction, the
 * checks without a verdict grouped by reason, the count line in colour. Pure: the terminal's width, colours and
 * table drawing come in the options.
 */
import { truncate, visibleWidth, wrap } from '../../output/layout.js';
import type { Palette } from '../../output/palette.js';
import { safeText } from '../../output/safe-text.js';
import type { ColumnSpec } from '../../output/layout.js';
import type { CheckResult, CheckVerdict, SuiteReport } from '../types.js';
import { causeBlock, rowLines, type Block } from '../diagnose/words.js';
import { documentOf, withNotRun, type RunDocument } from './document.js';
import { formatDuration } from '../../duration.js';
import {
  checkTime,
  hasDetails,
  reproCommand,
  signedSeconds,
  VERDICT_SYMBOL,
  VERDICTS,
  waiverText,
  warningLine,
} from './text.js';

export interface TableOptions {
  /** The terminal's width; undefined when stdout is not a terminal (everything is shown, whole). */
  width?: number;
  palette: Palette;
  /** `--verbose`: the table of every check on a terminal too. */
  verbose: boolean;
  /** `--quiet`: the failures and the count lines only (no headline, no table, no checks without a verdict). */
  quiet?: boolean;
  /** Draws a table fitted to the width (the Output's). */
  table(head: string[], rows: string[][], columns: readonly ColumnSpec[]): Promise<string>;
}

/** The colour of each verdict (VERDICTS): green passed, red failed, yellow warning, cyan waived, dim the rest. */
export function verdictPaint(palette: Palette): Record<CheckVerdict, (text: string) => string> {
  return Object.fromEntries(VERDICTS.map(({ verdict, paint }) => [verdict, palette[paint]])) as ReturnType<
    typeof verdictPaint
  >;
}

export async function renderTable(report: SuiteReport, options: TableOptions): Promise<string> {
  const terminal = options.width !== undefined;
  const quiet = options.quiet === true;
  const doc = documentOf(report);
  const lines = quiet ? [] : [fit(headline(report, 'table'), options, '  ')];
  if (report.error) lines.push('', ...errorLines(report.error, options));
  // A diagnosis first: it is what stopped the run, and what to act on.
  if (doc.diagnosis) lines.push('', ...blockLines(doc.diagnosis, 'failed', options));
  if (report.checks.length > 0 && !quiet && (!terminal || options.verbose))
    lines.push(await checkTable(report.checks, options));
  // What the target answered is in `actual` and the notes: escaped before anything is coloured.
  lines.push(...details(doc.details, report.checks, options));
  lines.push('', terminal ? withNotRun(report, paintedCounts(report, options)) : doc.counts);
  lines.push(
    terminal && report.summary.warnings > 0
      ? options.palette.yellow(warningLine(report.summary))
      : warningLine(report.summary),
  );
  // Quiet, the report starts with its first failure.
  while (quiet && lines[0] === '') lines.shift();
  return lines.join('\n');
}

function fit(text: string, options: TableOptions, indent = ''): string {
  return options.width === undefined ? text : wrap(text, options.width, { indent }).join('\n');
}

function errorLines(error: NonNullable<SuiteReport['error']>, options: TableOptions): string[] {
  return [
    fit(`${options.palette.red('✗')} the run stopped before any check: ${safeText(error.message)}`, options, '  '),
    fit(`  hint: ${safeText(error.hint)}`, options, '        '),
  ];
}

/**
 * What was judged and the clock: the receiver at the target, or (`--role sender`) the sender cai received from; in
 * the compact form's words, or the table's.
 */
function headline(report: SuiteReport, form: 'table' | 'compact'): string {
  const offset = report.clock.offsetSeconds;
  const signed = offset === null ? '' : signedSeconds(offset);
  const target = safeText(report.target);
  if (report.role === 'sender') {
    const [a, judged, whose] = form === 'table' ? ['the', 'judged by cai on', "sender's"] : ['a', 'judged on', 'its'];
    const clock =
      offset === null ? `${whose} clock unknown (no well-formed timestamp)` : `${whose} clock offset ${signed}`;
    return `cai conformance: ${a} sender of interface ${report.interface}, ${judged} ${target}, ${clock}`;
  }
  const clock =
    offset === null
      ? `clock offset unknown (${report.clock?.dateHeader ? 'its Date is no usable clock' : 'no Date header'})`
      : `clock offset ${signed}`;
  const mock = form === 'table' ? `built-in reference receiver ${target}` : 'the built-in reference receiver';
  return `cai conformance: interface ${report.interface}, ${report.mock ? mock : target}, ${clock}`;
}

/** Every check: id, title, level, verdict (coloured on a terminal), time. The title wraps when the terminal is narrow. */
function checkTable(checks: readonly CheckResult[], options: TableOptions): Promise<string> {
  const paint = verdictPaint(options.palette);
  const rows = checks.map((check) => [
    check.id,
    check.title,
    check.level,
    paint[check.verdict](`${VERDICT_SYMBOL[check.verdict]} ${check.verdict}`),
    checkTime(check),
  ]);
  return options.table(['id', 'title', 'level', 'verdict', 'time'], rows, [
    { fit: 'fixed' },
    { fit: 'wrap', min: 12 },
    { fit: 'fixed' },
    { fit: 'fixed' },
    { fit: 'fixed' },
  ]);
}

/** `54 passed, 1 failed, 2 skipped in 1.4 s`, each count in its verdict's colour when not zero. */
function paintedCounts(report: SuiteReport, options: TableOptions): string {
  const { summary } = report;
  const c = options.palette;
  const part = (count: number, word: string, paint: (text: string) => string) =>
    count > 0 ? paint(`${count} ${word}`) : `${count} ${word}`;
  const counts = `${part(summary.passed, 'passed', c.green)}, ${part(summary.failed, 'failed', c.red)}, ${part(summary.skipped, 'skipped', c.yellow)}`;
  const took = ` in ${formatDuration(report.durationMs)}`;
  // The time only where it fits: the counts are the line CI and people look for.
  return visibleWidth(counts + took) <= (options.width ?? Infinity) ? counts + c.dim(took) : counts;
}

/** `  label:   text`, the text wrapped in its column on a terminal, and escaped. */
function fieldLine(label: string, value: string, options: TableOptions): string {
  const head = `  ${label === '' ? '' : `${label}:`}`.padEnd(12);
  if (options.width === undefined) return head + safeText(value);
  // Wrapped on its own: a line that starts with the margin would lose it.
  const lines = wrap(safeText(value), Math.max(10, options.width - 12));
  return lines.map((line, index) => (index === 0 ? head : ' '.repeat(12)) + line).join('\n');
}

/** A diagnosis or a cause: its title after the verdict's mark, then its rows. */
function blockLines(block: Block, verdict: CheckVerdict, options: TableOptions): string[] {
  const head = verdictPaint(options.palette)[verdict](VERDICT_SYMBOL[verdict]);
  return [
    fit(`${head} ${safeText(block.title)}`, options, '  '),
    ...block.rows.map(([label, value]) => fieldLine(label, value, options)),
  ];
}

/**
 * The failures (and warnings, waivers) in detail, a cause once for the checks it explains, then the checks without
 * a verdict, grouped by reason on a terminal.
 */
function details(
  detailed: RunDocument<CheckResult>['details'],
  checks: readonly CheckResult[],
  options: TableOptions,
): string[] {
  const terminal = options.width !== undefined;
  const paint = verdictPaint(options.palette);
  const lines: string[] = [];
  const field = (label: string, value: string) => lines.push(fieldLine(label, value, options));
  // On a terminal the short `sh DIR/ID.sh`; elsewhere the whole command.
  const repro = (given: NonNullable<CheckResult['repro']>) => (terminal ? reproCommand(given) : given.command);
  for (const { check: result, cause } of detailed) {
    if (cause !== undefined) {
      // Shown once, where its first check would be, with that check's reproduction.
      lines.push('', ...blockLines(causeBlock(cause), result.verdict, options));
      if (result.repro) field('repro', `${repro(result.repro)} (${result.id})`);
      continue;
    }
    lines.push('');
    const head = paint[result.verdict](`${VERDICT_SYMBOL[result.verdict]} ${result.id}`);
    lines.push(
      fit(
        `${head} ${safeText(result.title)} ${options.palette.dim(`(${result.level}, ${result.sections.join(' ')})`)}`,
        options,
        '  ',
      ),
    );
    field('expected', result.expected);
    field('actual', result.actual);
    if (result.waiver) field('waived', waiverText(result.waiver));
    for (const note of result.notes) field('note', note);
    if (result.repro && !terminal) field('body', result.repro.bodyFile);
    if (result.repro) field('repro', repro(result.repro));
  }
  if (options.quiet === true) return lines;
  for (const verdict of ['not-judged', 'skipped'] as const)
    lines.push(
      ...unjudged(
        checks.filter((result) => result.verdict === verdict),
        verdict,
        options,
      ),
    );
  return lines;
}

/** Checks without a verdict: one line each, or (on a terminal, three or more for one reason) one line for the reason. */
function unjudged(group: readonly CheckResult[], verdict: 'not-judged' | 'skipped', options: TableOptions): string[] {
  if (group.length === 0) return [];
  const terminal = options.width !== undefined;
  const word = verdict === 'skipped' ? 'skipped' : 'not judged';
  const mark = options.palette.dim(VERDICT_SYMBOL[verdict]);
  const lines = [''];
  const byReason = new Map<string, CheckResult[]>();
  for (const result of group) byReason.set(result.actual, [...(byReason.get(result.actual) ?? []), result]);
  for (const [reason, checks] of byReason) {
    if (!terminal || checks.length < 3) {
      for (const result of checks) lines.push(fit(`${mark} ${result.id} ${word}: ${safeText(reason)}`, options, '  '));
      continue;
    }
    lines.push(fit(`${mark} ${checks.length} checks ${word}: ${safeText(reason)}`, options, '  '));
    lines.push(truncate(`  ${checks.map((result) => result.id).join(', ')}`, options.width ?? Infinity));
  }
  return lines;
}

/**
 * The compact form, the report of `cai conformance run` for a log (CI, a pipe, a file): what was judged in one line, a line for each
 * failed, warned or waived check, the count lines. No line is wider than COMPACT_WIDTH columns, whatever the target
 * answered: a check's line is wrapped to three at most, the last cut with an ellipsis (its details are in `--format
 * table`, `--junit`, `--html`), a stop's error or diagnosis is wrapped whole, since it is all there is to read.
 * `quiet` leaves only the failures and the count lines.
 * What the target answered (`actual`, the diagnosis) is escaped before it is laid out.
 */
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
  if (!options.quiet) lines.push(cut(headline(report, 'compact')));
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

/**
 * A check's line, wrapped to at most CHECK_LINES lines (the cause of a failure is often at the end), the last cut:
 * the last is the text that follows the lines before it, as it is, cut with `…` (never wrapped lines joined again,
 * which would put the break's spaces and the next line's indent inside a quoted value).
 */
const CHECK_LINES = 3;
function checkLines(text: string): string[] {
  const all = wrapped(text);
  if (all.length <= CHECK_LINES) return all;
  const kept = all.slice(0, CHECK_LINES - 1);
  let rest = text;
  for (const [index, line] of kept.entries()) {
    // Each wrapped line is the text's next words as they were (its indent aside); the spaces at a break are dropped.
    const words = index === 0 ? line : line.slice(INDENT.length);
    // Should wrap ever lay the text out otherwise, its third line, marked as cut.
    if (!rest.startsWith(words)) return [...kept, truncate(`${all[CHECK_LINES - 1]}…`, COMPACT_WIDTH)];
    rest = rest.slice(words.length).replace(/^ +/, '');
  }
  return [...kept, truncate(`${INDENT}${rest}`, COMPACT_WIDTH).replace(/ +…$/, '…')];
}

/** The indent of a check's continuation lines. */
const INDENT = '    ';
function wrapped(text: string): string[] {
  return wrap(text, COMPACT_WIDTH, { indent: INDENT });
}
