/**
 * The reporters of a conformance run, one map: each renders the same report, whatever stopped it (an early stop
 * is a report with its `error`), as the text of one format. Pure functions of the report; the command writes
 * their text to stdout or to a file.
 */
import { redactSecrets } from '../../secrets/resolve.js';
import type { ReportView, SuiteReport } from '../types.js';
import { groupCauses } from '../diagnose/causes.js';
import { renderConformanceHtml } from './html.js';
import { jsonText } from '../../output/safe-text.js';
import { renderJunit } from './junit.js';
import { renderJobSummary } from './markdown.js';
import { renderCompact, renderTable, type CompactOptions, type TableOptions } from './table.js';
import { optionName } from '../../errors.js';
import { plural } from '../../text.js';

export type { ReportView } from '../types.js';

export interface ReporterOptions {
  /** The terminal's width, colours and table drawing (the `table` format). */
  table?: TableOptions;
  /** `--quiet` for the `compact` format. */
  compact?: CompactOptions;
  /** `cai 0.2.0`, for the pages' generator line. */
  generator?: string;
}

export type Reporter = (report: ReportView, options: ReporterOptions) => string | Promise<string>;

export type ReporterName = 'table' | 'compact' | 'json' | 'junit' | 'html' | 'markdown';

export const REPORTERS: Readonly<Record<ReporterName, Reporter>> = {
  table: (report, options) => {
    if (!options.table) throw new Error('the table reporter needs the terminal options');
    return renderTable(report, options.table);
  },
  compact: (report, options) => renderCompact(report, options.compact),
  // One JSON document, `ok` and `failOn` included; what would end a line or a script in a page is escaped (jsonText).
  json: (report) => jsonText(report, 2),
  junit: (report) => renderJunit(report, { warningsFail: report.failOn === 'warnings' }),
  html: (report, options) =>
    renderConformanceHtml(report, options.generator !== undefined ? { generator: options.generator } : {}),
  markdown: (report) => renderJobSummary(report),
};

/**
 * The view every reporter renders: secrets removed from everything the target or the sender sent back (and from
 * notes), `ok` false where `--fail-on warnings` makes a warning fail the run, and the failures that share a cause
 * grouped (a receiver run groups and diagnoses its own; any other report is grouped here).
 */
export function viewOf(
  report: SuiteReport,
  failOn: 'must' | 'warnings',
  secrets: readonly string[],
  options: { failOnNotJudged?: boolean } = {},
): ReportView {
  const safe = redactDeep(report, secrets);
  const unverified = options.failOnNotJudged === true && (safe.summary.notJudgedMust ?? 0) > 0;
  const ok = safe.ok && !(failOn === 'warnings' && safe.summary.warnings > 0) && !unverified;
  return {
    ...safe,
    ok,
    failOn,
    ...(options.failOnNotJudged ? { failOnNotJudged: true } : {}),
    causes: safe.causes ?? groupCauses(safe.checks),
  };
}

/** `1 must check not judged (BS-RETRY-005): …`, the warning of a run that left a rule of the spec unverified. */
export function unverifiedLine(view: ReportView): string | undefined {
  const ids = view.checks
    .filter((check) => check.verdict === 'not-judged' && check.level === 'must')
    .map((check) => check.id);
  if (ids.length === 0) return undefined;
  const shown = `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
  const option = optionName('fail-on-not-judged');
  const consequence = view.failOnNotJudged
    ? `the run fails (${option})`
    : `their rules are unverified (${option} fails the run on them)`;
  return `${plural(ids.length, 'must check')} not judged (${shown}): ${consequence}`;
}

export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return JSON.parse(
    redactSecrets(
      JSON.stringify(value),
      secrets.map((secret) => JSON.stringify(secret).slice(1, -1)),
    ),
  ) as T;
}

/** What a run says besides its report, as warnings (stderr): refused credentials, an early stop, waivers. */
export { preflightWarning, stoppedLine } from './text.js';
