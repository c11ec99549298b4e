/**
 * GitHub Actions annotations of a run: one workflow command a failed check (`::error`, `::warning` for a failed
 * `should`), so that a failure shows on the run's page and the pull request, not only in the log. GitHub shows at
 * most 10 of each kind a step; past that, one line says how many more. Values from the target are one line, cut,
 * with every control character escaped; the workflow command's own escapes (`%`, CR, LF; `:` and `,` in a property)
 * keep a value from ending the command or adding one of its own.
 */
import { safeText } from '../../output/safe-text.js';
import type { CheckView, ConformanceView } from './document.js';

/** GitHub keeps 10 error and 10 warning annotations a step. */
const SHOWN_A_KIND = 10;
const MAX_VALUE = 300;

/** The annotation lines of a run, errors first; none when nothing failed. */
export function renderAnnotations(view: ConformanceView): string[] {
  if (view.error) return [`::error title=${property('cai conformance')}::${data(view.error.message)}`];
  const failed = view.checks.filter((check) => check.verdict === 'failed');
  const warned = view.checks.filter((check) => check.verdict === 'warning');
  return [...kind('error', failed), ...kind('warning', warned)];
}

function kind(command: 'error' | 'warning', checks: readonly CheckView[]): string[] {
  const lines = checks.slice(0, SHOWN_A_KIND).map((check) => {
    const title = `${check.id} (${check.level} ${check.sections.join(' ')})`;
    const text = `${check.title}: expected ${cut(check.expected)}; actual ${cut(check.actual)}`;
    return `::${command} title=${property(title)}::${data(text)}`;
  });
  const more = checks.length - SHOWN_A_KIND;
  if (more > 0)
    lines.push(
      `::${command} title=${property('cai conformance')}::${data(`and ${more} more ${command === 'error' ? 'failed' : 'warned'} check(s): see the log or the job summary`)}`,
    );
  return lines;
}

function cut(value: string): string {
  return value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
}

/** A message: one line, nothing a terminal or the runner acts on. */
function data(text: string): string {
  return safeText(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property's value: as a message, and neither `:` nor `,`, which end it. */
function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
