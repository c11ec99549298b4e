/**
 * JUnit XML (the Jenkins/GitLab/GitHub flavour): one testsuite, one testcase per check; section, level and tags as
 * properties; must failures as <failure>, skipped, not judged and waived as <skipped>; should failures pass with a
 * warning in system-out unless warnings fail the run. A run stopped before any check is one testcase in <error>,
 * so a CI system shows why. Every text goes through escapeMarkup (src/output/markup.ts): what XML 1.0 cannot carry,
 * or a page or terminal would interpret, never reaches the file.
 */
import { escapeMarkup as xml } from '../../output/markup.js';
import type { SuiteReport } from '../types.js';
import { causesByCheck, diagnosisBlock, rowLines } from '../diagnose/words.js';

export interface JunitOptions {
  /** `--fail-on warnings`: a failed should check is a <failure> too. */
  warningsFail: boolean;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

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
    '    <properties>',
    `      <property name="target" value="${xml(report.target)}"/>`,
    `      <property name="cai_version" value="${xml(report.version.tool)}"/>`,
    `      <property name="spec_version" value="${xml(report.version.spec)}"/>`,
    `      <property name="catalogue_digest" value="${xml(report.version.catalogue)}"/>`,
    `      <property name="clock_offset_seconds" value="${report.clock.offsetSeconds ?? 'unknown'}"/>`,
    // A sender run: cai was the receiver, and the offset is the sender's clock as its timestamps show it.
    ...(report.role === 'sender' ? ['      <property name="role" value="sender"/>'] : []),
    '    </properties>',
  ];
  if (report.error) {
    lines.push('    <testcase classname="cai.conformance" name="the run" time="0.000">');
    lines.push(
      `      <error message="${xml(report.error.message)}" type="${xml(report.error.code)}">${xml(`${report.error.message}\nhint: ${report.error.hint}`)}</error>`,
    );
    lines.push('    </testcase>');
  }
  if (report.diagnosis) {
    const block = diagnosisBlock(report.diagnosis, report.interface);
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
    lines.push('      <properties>');
    lines.push(`        <property name="section" value="${xml(result.sections.join(' '))}"/>`);
    lines.push(`        <property name="level" value="${xml(result.level)}"/>`);
    lines.push(`        <property name="tags" value="${xml(result.tags.join(','))}"/>`);
    if (result.aliases?.length)
      lines.push(`        <property name="aliases" value="${xml(result.aliases.join(','))}"/>`);
    lines.push(`        <property name="verdict" value="${xml(result.verdict)}"/>`);
    const cause = causeOf.get(result.id);
    if (cause)
      lines.push(
        `        <property name="cause" value="${xml(`${cause.id}: ${cause.diagnosis?.cause?.message ?? cause.summary}`)}"/>`,
      );
    lines.push('      </properties>');
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
    if (result.repro)
      out.push(
        `body: ${result.repro.bodyFile}`,
        `repro: ${result.repro.script !== undefined ? `sh ${result.repro.script}` : result.repro.command}`,
      );
    if (out.length > 0) lines.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
