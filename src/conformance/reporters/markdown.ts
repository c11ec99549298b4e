/**
 * `cai conformance run --summary FILE` (and `$GITHUB_STEP_SUMMARY`): a short Markdown summary of a run, for a CI
 * job's page. The verdict line, the checks that failed (and warned) with their sections and a one-line expected
 * and actual, then the counts. Values that come from the target are flattened to one line, cut, and escaped so
 * they render as text and do nothing on the page (no HTML, links, mentions, issue references, emphasis or table
 * cells of theirs).
 */
import { safeText } from '../../output/safe-text.js';
import type { ScenarioSummary } from '../types.js';
import { INTERRUPTED_NOTICE, summaryText } from './text.js';
import { documentOf, withCauses, type ConformanceView } from './document.js';
import { causeBlock, rowLines, type Block } from '../diagnose/words.js';
import { coverageLine, coverageOfRun, renderCoverageMarkdown } from './coverage.js';
import { plural } from '../../text.js';

export interface JobSummaryOptions {
  /** Checks listed before "… and N more". */
  maxListed?: number;
  /** Characters kept of an expected or actual value. */
  maxValue?: number;
}

/** The whitespace runs (newlines included) and the control characters a value's one line is flattened over. */
// eslint-disable-next-line no-control-regex
const FLATTENED = /[\u0000-\u001f\u007f-\u009f\s]+/g;
/** The noncharacters (U+FFFE, U+FFFF, U+FDD0–FDEF, and the last two of every plane): no text holds one. */
const NONCHARACTER = /\p{Noncharacter_Code_Point}/gu;

/**
 * One line of text, safe as the content of a Markdown line: whitespace runs (newlines included) become one space,
 * control characters go; the bidi controls (which would reorder the page's text around them, "Trojan Source"), a
 * lone surrogate (which UTF-8 would turn into U+FFFD) and a noncharacter are written as their escapes (`\u202e`,
 * `\ud800`, `\ufffe`); cut to `maxLength` with `…`.
 */
function flatLine(text: string, maxLength: number): string {
  const flat = safeText(text.replace(FLATTENED, ' ').trim()).replace(NONCHARACTER, (char) =>
    char
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
  return flat.length > maxLength ? `${flat.slice(0, maxLength).replace(/[\uD800-\uDBFF]$/, '')}…` : flat;
}

/** `& < >` as entities (so no HTML gets through) and the punctuation that means something inside a line escaped. */
function escapedInline(flat: string): string {
  return flat
    .replace(/[&<>]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[char] as string)
    .replace(/[\\`*_[\]|~]/g, '\\$&');
}

/**
 * Text → inline Markdown that renders as that text, and does nothing else on GitHub's page: flattened to one line
 * (flatLine), `& < >` as entities, the punctuation that means something inside a line (emphasis, code, links, table
 * cells, strike-through) backslash-escaped, and what GitHub would turn into a link broken by a WORD JOINER (U+2060,
 * invisible, so the text reads the same): after `@` (a mention, an e-mail address), `#` and `GH-` (an issue or pull
 * request), inside `://` and after `www` (a bare URL). A backslash cannot do that: GitHub finds mentions and issue
 * references in the rendered text. The values are never at the start of a line, so `#`, `-`, `+` and `1.` cannot
 * start a heading or a list and are left as they are.
 */
export function escapeMarkdown(text: string, maxLength = Infinity): string {
  return withoutLinks(escapedInline(flatLine(text, maxLength)));
}

/** A WORD JOINER where GitHub would start a link, a mention or a reference (escapeMarkdown). */
function withoutLinks(escaped: string): string {
  return escaped
    .replace(/([@#]|\bGH-)(?=\S|$)/gi, '$1\u2060')
    .replace(/:\/\//g, ':\u2060//')
    .replace(/\b(www)\./gi, '$1\u2060.');
}

/**
 * escapeMarkdown for the texts of a run against `target`: wherever they name it (an error about it), the user's own
 * URL is kept as it is, its link with it; everything else is escapeMarkdown's.
 */
type Escape = (text: string, maxLength?: number) => string;
function escapeFor(target: string | undefined): Escape {
  const kept = target ? flatLine(target, Infinity) : '';
  if (kept === '') return escapeMarkdown;
  return (text, maxLength = Infinity) =>
    flatLine(text, maxLength)
      .split(kept)
      .map((piece) => withoutLinks(escapedInline(piece)))
      .join(escapedInline(kept));
}

/** The target as the user gave it (or cai's own address): escaped, its link kept. */
function targetMarkdown(target: string): string {
  return escapedInline(flatLine(target, Infinity));
}

export function renderJobSummary(report: ConformanceView, options: JobSummaryOptions = {}): string {
  const maxListed = options.maxListed ?? 50;
  const maxValue = options.maxValue ?? 160;
  const escape = escapeFor(report.target);
  const who = `interface ${escapeMarkdown(report.interface)}${report.role ? ` (${escapeMarkdown(report.role)})` : ''}`;
  const where = !report.target
    ? ''
    : report.role === 'sender'
      ? `, cai listening on ${targetMarkdown(report.target)}`
      : ` against ${targetMarkdown(report.target)}${report.mock ? ' (built-in reference receiver)' : ''}`;
  const lines = [`### ${report.ok ? '✅ cai conformance passed' : '❌ cai conformance failed'}: ${who}${where}`, ''];
  lines.push(...runNotices(report, maxValue, escape));
  const listed = report.checks.filter(
    (check) => check.verdict === 'failed' || (check.verdict === 'warning' && report.failOn === 'warnings'),
  );
  const warnings = report.failOn === 'warnings' ? [] : report.checks.filter((check) => check.verdict === 'warning');
  for (const { check, cause } of withCauses([...listed, ...warnings].slice(0, maxListed), report.causes)) {
    const mark = check.verdict === 'failed' ? '✗' : '!';
    // A cause once, where its first check would be, with the checks it explains.
    if (cause) {
      lines.push(...blockMarkdown(mark, causeBlock(cause), maxValue * 4, escape));
      continue;
    }
    const level = check.verdict === 'warning' ? ', should' : '';
    lines.push(
      `- ${mark} **${escapeMarkdown(check.id)}** ${escapeMarkdown(check.title)} (${escapeMarkdown(check.sections.join(' '))}${level})  `,
    );
    const cut = check.exchange?.response?.bodyTruncated ? ' (the body was cut: cai reads only its start)' : '';
    lines.push(`  expected ${escape(check.expected, maxValue)}; actual ${escape(check.actual, maxValue)}${cut}`);
  }
  const more = listed.length + warnings.length - maxListed;
  if (more > 0) lines.push(`- … and ${more} more (the HTML or JUnit report lists them all)`);
  if (listed.length + warnings.length > 0) lines.push('');
  if (report.scenarios && report.scenarios.length > 0) lines.push(...scenarioLines(report.scenarios, maxListed), '');
  // A run stopped by its diagnosis ran none of its checks: say how many, as the log's count line does.
  const notRun = report.diagnosis ? `, ${report.diagnosis.notRun} checks not run` : '';
  lines.push(summaryText(report.summary, notRun), '');
  const coverage = coverageOfRun(report);
  // Folded: the clauses are the spec's text and cai's check ids, nothing that came from the target.
  if (coverage)
    lines.push(
      `<details><summary>Clause coverage: ${coverageLine(coverage)}</summary>`,
      '',
      renderCoverageMarkdown(coverage, true),
      '',
      '</details>',
      '',
    );
  return lines.join('\n') + '\n';
}

/** The run's own state, before the checks: stopped before any check (exit 3), refused credentials, stopped early. */
function runNotices(report: ConformanceView, maxValue: number, escape: Escape): string[] {
  const lines: string[] = [];
  if (report.error) {
    lines.push(`**Stopped before any check:** ${escape(report.error.message, maxValue * 2)}`, '');
    if (report.error.hint) lines.push(`Hint: ${escape(report.error.hint, maxValue * 2)}`, '');
  }
  const { diagnosis, refused, stopped, unfinished } = documentOf(report);
  if (diagnosis) lines.push(...blockMarkdown('✗', diagnosis, maxValue * 4, escape), '');
  if (refused !== undefined) lines.push(`**Warning:** ${escape(refused, maxValue * 2)}`, '');
  if (stopped) lines.push(`**Stopped early:** ${escape(stopped)}`, '');
  if (report.interrupted) lines.push(INTERRUPTED_NOTICE, '');
  // The waivers file's notices (expired, unused, now passing), as the terminal warns them.
  for (const waiver of report.waivers ?? []) lines.push(`**Waivers:** ${escape(waiver.message, maxValue * 2)}`, '');
  if (unfinished.length > 0) {
    const ids = unfinished.slice(0, 20).map((check) => escapeMarkdown(check.id));
    lines.push(
      `Not finished (${unfinished.length}): ${ids.join(', ')}${unfinished.length > ids.length ? ', …' : ''}`,
      '',
    );
  }
  return lines;
}

/** A diagnosis or a cause: its title as a list item, its rows as the item's lines. */
function blockMarkdown(mark: string, block: Block, maxValue: number, escape: Escape): string[] {
  return [
    `- ${mark} **${escape(block.title)}**  `,
    ...rowLines(block).map((line, index, all) => `  ${escape(line, maxValue)}${index < all.length - 1 ? '  ' : ''}`),
  ];
}

/** Sender runs: one line per scenario (its attempts and what cai answered them). */
function scenarioLines(scenarios: readonly ScenarioSummary[], maxListed: number): string[] {
  const lines = ['Scenarios:'];
  for (const scenario of scenarios.slice(0, maxListed)) {
    const count = scenario.attempts.length;
    const answers = scenario.attempts.map((attempt) => attempt.answer + (attempt.late ? ' (late)' : '')).join(', ');
    const documents = scenario.deliveries === undefined ? '' : `${plural(scenario.deliveries, 'document')}, `;
    const what = count === 0 ? 'no attempt' : `${documents}${plural(count, 'attempt')} (answered ${answers})`;
    const first = scenario.firstAttemptMs !== undefined ? `, first after ${scenario.firstAttemptMs} ms` : '';
    const plays = scenario.plays !== undefined ? ` (played ${scenario.plays} times, the last shown)` : '';
    lines.push(`- ${escapeMarkdown(scenario.id)}: ${escapeMarkdown(what, 200)}${first}${plays}`);
  }
  if (scenarios.length > maxListed) lines.push(`- … and ${scenarios.length - maxListed} more`);
  return lines;
}
