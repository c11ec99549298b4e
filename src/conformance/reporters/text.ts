/**
 * The words every reporter shares: a verdict's symbol, the count lines CI logs are grepped for, why a run stopped
 * early, the warning of refused credentials, and which checks an interrupted run never finished.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { CheckResult, CheckVerdict, StopReport, SuiteReport, SuiteSummary } from '../types.js';
import { optionName } from '../../errors.js';
import { plural } from '../../text.js';
import { formatDuration } from '../../duration.js';

/** Each verdict, in the order the pages list them: its symbol, its colour on a terminal, its label, tone and count on a page. */
export const VERDICTS = [
  { verdict: 'failed', symbol: '✗', paint: 'red', label: 'failed', tone: 'fail', count: 'failed' },
  { verdict: 'warning', symbol: '!', paint: 'yellow', label: 'warnings', tone: 'warn', count: 'warnings' },
  { verdict: 'waived', symbol: '~', paint: 'cyan', label: 'waived', tone: 'waived', count: 'waived' },
  { verdict: 'not-judged', symbol: '?', paint: 'dim', label: 'not judged', tone: 'skip', count: 'notJudged' },
  { verdict: 'passed', symbol: '✓', paint: 'green', label: 'passed', tone: 'ok', count: 'passed' },
  { verdict: 'skipped', symbol: '-', paint: 'dim', label: 'skipped', tone: 'skip', count: 'skipped' },
] as const;

const symbols = Object.fromEntries(VERDICTS.map((row) => [row.verdict, row.symbol]));
export const VERDICT_SYMBOL = symbols as Record<CheckVerdict, string>;

/** Why a run stopped before every check ran (`--fail-fast`, `--max-failures N`), as every report says it. */
export function stoppedLine(stopped: StopReport): string {
  const limit =
    stopped.limit === 1
      ? `the first failed must check (${optionName('fail-fast')})`
      : `${stopped.limit} failed must checks (${optionName('max-failures')} ${stopped.limit})`;
  return `stopped after ${limit}, at ${stopped.after}; the checks not run are reported as skipped`;
}

/**
 * The warning of a run whose first valid, correctly signed request was refused (401, 403) and then accepted when
 * diagnosed (a refusal that did not repeat): the checks after it may say more about the credentials than about the
 * receiver. Undefined when it was not refused, or when the run stopped with the diagnosis (which says it all).
 */
export function preflightWarning(
  report: Pick<SuiteReport, 'preflight' | 'diagnosis'> & { interface: string },
): string | undefined {
  const status = report.preflight?.status;
  if (!report.preflight || report.diagnosis || (status !== 401 && status !== 403)) return undefined;
  const spec = interfaceSpec(report.interface as InterfaceId);
  return `the first valid, correctly signed request got ${report.preflight.actual}: check the secret and the ${spec.identityName} (${optionName(spec.identityOption)}) before reading the failures`;
}

/** The checks a stopped or interrupted run never finished: not run, or cut short while they gathered. */
export function unfinishedChecks<T extends Pick<CheckResult, 'verdict' | 'actual'>>(checks: readonly T[]): T[] {
  return checks.filter(
    (check) =>
      (check.verdict === 'skipped' && /^not run: /.test(check.actual)) ||
      (check.verdict === 'not-judged' && /^interrupted /.test(check.actual)),
  );
}

/** `N passed, N failed, N skipped` — the line CI logs are grepped for. */
export function countLine(summary: Pick<SuiteSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`;
}

/** The counts as the pages say them: `3 passed, 1 failed, 0 skipped; 2 warnings, 1 not judged (1 must) (6 checks)`. */
export function summaryText(summary: Omit<SuiteSummary, 'notJudged'> & { notJudged?: number }, more = ''): string {
  return `${countLine(summary)}; ${warningLine(summary, { must: true })} (${summary.total} checks${more})`;
}

export const INTERRUPTED_NOTICE =
  'The run was interrupted: the checks not run are reported as skipped, the checks cut short as not judged.';

/** `0 warnings`, `1 warning, 2 waived, 3 not judged` (`must`: `3 not judged (1 must)`, the must checks among them). */
export function warningLine(
  summary: Pick<SuiteSummary, 'warnings' | 'waived' | 'notJudgedMust'> & { notJudged?: number },
  options: { must?: boolean } = {},
): string {
  const parts = [plural(summary.warnings, 'warning')];
  if (summary.waived > 0) parts.push(`${summary.waived} waived`);
  const must = options.must && summary.notJudgedMust ? ` (${summary.notJudgedMust} must)` : '';
  if (summary.notJudged) parts.push(`${summary.notJudged} not judged${must}`);
  return parts.join(', ');
}

/** `+2 s`: a clock offset as every report writes it. */
export const signedSeconds = (offset: number): string => `${offset >= 0 ? '+' : ''}${offset} s`;

/** A check's time; none for a check without a verdict of its own (skipped, not judged). */
export const checkTime = (check: Pick<CheckResult, 'verdict' | 'durationMs'>): string =>
  check.verdict === 'skipped' || check.verdict === 'not-judged' ? '' : formatDuration(check.durationMs);

/** How to reproduce a check: its script where one was written (`sh DIR/ID.sh`), else the command. */
export const reproCommand = (repro: { command: string; script?: string }): string =>
  repro.script !== undefined ? `sh ${repro.script}` : repro.command;

/** `fix in PLAT-123 (until 2026-12-31)`: why a failure is waived, and until when. */
export function waiverText(waiver: { reason: string; expires?: string }): string {
  return `${waiver.reason}${waiver.expires ? ` (until ${waiver.expires})` : ''}`;
}

/** Verdicts that carry details in every report: what was expected, what happened, how to reproduce it. */
export function hasDetails(result: Pick<CheckResult, 'verdict'>): boolean {
  return result.verdict === 'failed' || result.verdict === 'warning' || result.verdict === 'waived';
}
