/**
 * JUnit XML (the Jenkins/GitLab/GitHub flavour): one testsuite, one testcase per check; section, level and tags as
 * properties; must failures as <failure>, skipped, not judged and waived as <skipped>; should failures pass with a
 * warning in system-out unless warnings fail the run. A run stopped before any check is one testcase in <error>,
 * so a CI system shows why. Every text goes through escapeMarkup (src/output/markup.ts): what XML 1.0 cannot carry,
 * or a page or terminal would interpret, never reaches the file.
 */
import { escapeMarkup as xml } from '../../output/markup.js';
import type { SuiteReport } from '../types.js';
import { causesByCheck, rowLines } from '../diagnose/words.js';
import { documentOf } from './document.js';
import { reproCommand } from './text.js';

export interface JunitOptions {
  /** `--fail-on warnings`: a failed should check is a <failure> too. */
  warningsFail: boolean;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** A <properties> element at `indent`, a <property> a line. */
function properties(indent: string, entries: readonly (readonly [string, string])[]): string[] {
  const lines = entries.map(([name, value]) => `${indent}  <property name="${name}" value="${xml(value)}"/>`);
  return [`${indent}<properties>`, ...lines, `${indent}</properties>`];
}

export function renderJunit(report: SuiteReport, options: JunitOptions): string {
  const { summary } = report;
  const warningsFail = options.warningsFail;
  const skipped = summary.skipped + summary.waived + summary.notJudged;
  const errors = report.error ? 1 : 0;
  // A run stopped by its diagnosis is one failed testcase: the first valid request, refused.
  const diagnosed = report.diagnosis ? 1 : 0;
  const failures = summary.failed + (warningsFail ? summary.warnings : 0) + diagnosed;
  const tests = summary.total + errors + diagnosed;
  const suite = `cai conformance: interface ${report.interface}${report.role === 'sender' ? ' sender' : ''}`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cai conformance" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(report.durationMs)}">`,
    `  <testsuite name="${xml(suite)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(report.durationMs)}" timestamp="${xml(report.startedAt)}">`,
    ...properties('    ', [
      ['target', report.target],
      ['cai_version', report.version.tool],
      ['spec_version', report.version.spec],
      ['catalogue_digest', report.version.catalogue],
      ['clock_offset_seconds', String(report.clock.offsetSeconds ?? 'unknown')],
      // A sender run: cai was the receiver, and the offset is the sender's clock as its timestamps show it.
      ...(report.role === 'sender' ? [['role', 'sender'] as const] : []),
    ]),
  ];
  if (report.error) {
    lines.push('    <testcase classname="cai.conformance" name="the run" time="0.000">');
    lines.push(
      `      <error message="${xml(report.error.message)}" type="${xml(report.error.code)}">${xml(`${report.error.message}\nhint: ${report.error.hint}`)}</error>`,
    );
    lines.push('    </testcase>');
  }
  const block = documentOf(report).diagnosis;
  if (report.diagnosis && block) {
    const text = [block.title, ...rowLines(block)].join('\n');
    lines.push(
      '    <testcase classname="cai.conformance" name="the first valid, correctly signed request" time="0.000">',
    );
    lines.push(
      `      <failure message="${xml(report.diagnosis.cause?.message ?? block.title)}" type="refused">${xml(text)}</failure>`,
    );
    lines.push('    </testcase>');
  }
  const causeOf = causesByCheck(report.causes);
  for (const result of report.checks) {
    const area = result.id.split('-').slice(0, 2).join('.');
    lines.push(
      `    <testcase classname="cai.conformance.${xml(area)}" name="${xml(`${result.id} ${result.title}`)}" time="${seconds(result.durationMs)}">`,
    );
    const cause = causeOf.get(result.id);
    lines.push(
      ...properties('      ', [
        ['section', result.sections.join(' ')],
        ['level', result.level],
        ['tags', result.tags.join(',')],
        ...(result.aliases?.length ? [['aliases', result.aliases.join(',')] as const] : []),
        ['verdict', result.verdict],
        ...(cause ? [['cause', `${cause.id}: ${cause.diagnosis?.cause?.message ?? cause.summary}`] as const] : []),
      ]),
    );
    const message = `expected ${result.expected}; actual ${result.actual}`;
    if (result.verdict === 'failed' || (result.verdict === 'warning' && warningsFail)) {
      lines.push(
        `      <failure message="${xml(message)}" type="${xml(result.level)}">${xml(`${result.sections.join(' ')}\n${message}`)}</failure>`,
      );
    } else if (result.verdict === 'skipped') {
      lines.push(`      <skipped message="${xml(result.actual)}"/>`);
    } else if (result.verdict === 'not-judged') {
      lines.push(`      <skipped message="${xml(`not judged: ${result.actual}`)}"/>`);
    } else if (result.verdict === 'waived') {
      lines.push(`      <skipped message="${xml(`waived: ${result.waiver?.reason ?? ''} (${message})`)}"/>`);
    }
    const out: string[] = [];
    if (result.verdict === 'warning') out.push(`warning (should): ${message}`);
    out.push(...result.notes);
    if (result.repro) out.push(`body: ${result.repro.bodyFile}`, `repro: ${reproCommand(result.repro)}`);
    if (out.length > 0) lines.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
