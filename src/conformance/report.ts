/**
 * Reporters: the human summary (table rows, the failure details, the count line), JUnit XML, and redaction of
 * secrets from every format. Plain strings in, plain strings out; the command prints them.
 */
import { escapeMarkup } from '../output/markup.js';
import { redactSecrets } from '../secrets/resolve.js';
import type { CheckResult, StopReport, SuiteReport, SuiteSummary } from './types.js';

export const VERDICT_SYMBOL: Record<CheckResult['verdict'], string> = {
  passed: '✓',
  failed: '✗',
  warning: '!',
  waived: '~',
  skipped: '-',
};

/** Why a run stopped before every check ran (`--fail-fast`, `--max-failures N`), as every report says it. */
export function stoppedLine(stopped: StopReport): string {
  const limit = stopped.limit === 1 ? 'the first failed must check (--fail-fast)' : `${stopped.limit} failed must checks (--max-failures ${stopped.limit})`;
  return `stopped after ${limit}, at ${stopped.after}; the checks not run are reported as skipped`;
}

/**
 * The warning of a run whose first valid, correctly signed request was refused (401, 403): the checks after it
 * say more about the credentials than about the receiver. Undefined when it was not refused.
 */
export function preflightWarning(report: Pick<SuiteReport, 'interface' | 'preflight'>): string | undefined {
  const status = report.preflight?.status;
  if (!report.preflight || (status !== 401 && status !== 403)) return undefined;
  return `the first valid, correctly signed request got ${report.preflight.actual}: check the secret and the ${report.interface === 'B' ? '--provider code' : '--source id'} before reading the failures`;
}

/** The checks a stopped or interrupted run never finished (reported as skipped with a reason that says so). */
export function unfinishedChecks<T extends Pick<CheckResult, 'verdict' | 'actual'>>(checks: readonly T[]): T[] {
  return checks.filter((check) => check.verdict === 'skipped' && /^(not run: |interrupted )/.test(check.actual));
}

/** `N passed, N failed, N skipped` — the line CI logs are grepped for. */
export function countLine(summary: SuiteSummary): string {
  return `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`;
}

export function warningLine(summary: SuiteSummary): string {
  const parts = [`${summary.warnings} warning${summary.warnings === 1 ? '' : 's'}`];
  if (summary.waived > 0) parts.push(`${summary.waived} waived`);
  return parts.join(', ');
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function tableRows(results: readonly CheckResult[]): string[][] {
  return results.map((result) => [result.id, result.title, result.level, `${VERDICT_SYMBOL[result.verdict]} ${result.verdict}`, result.verdict === 'skipped' ? '' : formatDuration(result.durationMs)]);
}

/** The details of every check that did not pass: expected, actual, section, reproduction. */
export function failureDetails(results: readonly CheckResult[]): string[] {
  const lines: string[] = [];
  for (const result of results) {
    if (result.verdict !== 'failed' && result.verdict !== 'warning' && result.verdict !== 'waived') continue;
    lines.push('');
    lines.push(`${VERDICT_SYMBOL[result.verdict]} ${result.id} ${result.title} (${result.level}, ${result.sections.join(' ')})`);
    lines.push(`  expected: ${result.expected}`);
    lines.push(`  actual:   ${result.actual}`);
    if (result.waiver) lines.push(`  waived:   ${result.waiver.reason}${result.waiver.expires ? ` (until ${result.waiver.expires})` : ''}`);
    for (const note of result.notes) lines.push(`  note:     ${note}`);
    if (result.repro) {
      lines.push(`  body:     ${result.repro.bodyFile}`);
      lines.push(`  repro:    ${result.repro.command}`);
    }
  }
  const skipped = results.filter((result) => result.verdict === 'skipped');
  if (skipped.length > 0) {
    lines.push('');
    for (const result of skipped) lines.push(`- ${result.id} skipped: ${result.actual}`);
  }
  return lines;
}

export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return JSON.parse(redactSecrets(JSON.stringify(value), secrets.map((secret) => JSON.stringify(secret).slice(1, -1)))) as T;
}

// XML 1.0 text and attribute values: the escaping of every report (src/output/markup.ts).
const xml = escapeMarkup;

/**
 * JUnit XML (the Jenkins/GitLab/GitHub flavour): one testsuite, one testcase per check; section, level and tags as
 * properties; must failures as <failure>, skipped and waived as <skipped>; should failures pass with a
 * warning in system-out unless `warningsFail`.
 */
export function toJunit(report: SuiteReport, warningsFail: boolean): string {
  const { summary } = report;
  const failures = summary.failed + (warningsFail ? summary.warnings : 0);
  const skipped = summary.skipped + summary.waived;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cai conformance" tests="${summary.total}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="cai conformance: interface ${report.interface}${report.role === 'sender' ? ' sender' : ''}" tests="${summary.total}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${report.startedAt}">`,
    '    <properties>',
    `      <property name="target" value="${xml(report.target)}"/>`,
    `      <property name="clock_offset_seconds" value="${report.clock.offsetSeconds ?? 'unknown'}"/>`,
    // A sender run: cai was the receiver, and the offset is the sender's clock as its timestamps show it.
    ...(report.role === 'sender' ? ['      <property name="role" value="sender"/>'] : []),
    '    </properties>',
  ];
  for (const result of report.checks) {
    const area = result.id.split('-').slice(0, 2).join('.');
    lines.push(`    <testcase classname="cai.conformance.${xml(area)}" name="${xml(`${result.id} ${result.title}`)}" time="${(result.durationMs / 1000).toFixed(3)}">`);
    lines.push('      <properties>');
    lines.push(`        <property name="section" value="${xml(result.sections.join(' '))}"/>`);
    lines.push(`        <property name="level" value="${result.level}"/>`);
    lines.push(`        <property name="tags" value="${xml(result.tags.join(','))}"/>`);
    lines.push(`        <property name="verdict" value="${result.verdict}"/>`);
    lines.push('      </properties>');
    const message = `expected ${result.expected}; actual ${result.actual}`;
    if (result.verdict === 'failed' || (result.verdict === 'warning' && warningsFail)) {
      lines.push(`      <failure message="${xml(message)}" type="${result.level}">${xml(`${result.sections.join(' ')}\n${message}`)}</failure>`);
    } else if (result.verdict === 'skipped') {
      lines.push(`      <skipped message="${xml(result.actual)}"/>`);
    } else if (result.verdict === 'waived') {
      lines.push(`      <skipped message="${xml(`waived: ${result.waiver?.reason ?? ''} (${message})`)}"/>`);
    }
    const out: string[] = [];
    if (result.verdict === 'warning') out.push(`warning (should): ${message}`);
    out.push(...result.notes);
    if (result.repro) out.push(`body: ${result.repro.bodyFile}`, `repro: ${result.repro.command}`);
    if (out.length > 0) lines.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
