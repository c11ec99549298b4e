/**
 * Failures that share one cause, reported once with the checks it explains. Grouped conservatively, only where
 * the answers say it is one cause:
 * - `valid-refused`: checks that sent a valid, correctly signed request and expected it accepted, refused with the
 *   same answer (identifiers and numbers aside), whatever else each probed: one refusal, from two checks on. Where
 *   the refusal is the verification's (401, 403; any 4xx on A), one of the requests is diagnosed (./refusal.ts).
 * - `same-answer`: checks of one kind (the same area and tags) that expected the same answer and got the same other
 *   one, from three checks on (two are read at a glance).
 * Every check keeps its own result; a cause only lists them.
 */
import type { Session } from '../probe/session.js';
import type { CheckResult } from '../types.js';
import { answerShape, diagnoseSignature, refusesValid, type RefusalInput } from './refusal.js';
import type { FailureCause } from './types.js';

const MIN_VALID_REFUSED = 2;
const MIN_SAME_ANSWER = 3;

type Grouped = Pick<CheckResult, 'id' | 'verdict' | 'expected' | 'actual' | 'tags'>;

/** A check that expected its request accepted (a 2xx) and got something else than a 2xx. */
function refusedValid(check: Grouped): boolean {
  return /^2/.test(check.expected) && !/^2\d\d\b/.test(check.actual);
}

/**
 * A derived check's texts name the case that failed first (`400 (…) for channel "text" (a synonym of sms)`,
 * `channel "text" (a synonym of sms): 202 {"ok":true}`, ./probe/cases.ts): the cause is the answer, whatever the case.
 */
function expectationOf(expected: string): string {
  return expected.replace(/ for .*$/s, '');
}

function answerOf(actual: string): string {
  return /^[^:]*?: (\d{3}\b.*)$/s.exec(actual)?.[1] ?? actual;
}

function keyOf(check: Grouped): { kind: FailureCause['kind']; key: string } {
  const shape = answerShape(answerOf(check.actual));
  if (refusedValid(check)) return { kind: 'valid-refused', key: `valid-refused\n${check.verdict}\n${shape}` };
  const area = check.id.split('-').slice(1, -1).join('-');
  return {
    kind: 'same-answer',
    key: `same-answer\n${check.verdict}\n${area}\n${[...check.tags].sort().join(',')}\n${expectationOf(check.expected)}\n${shape}`,
  };
}

export function groupCauses(checks: readonly Grouped[]): FailureCause[] {
  const groups = new Map<string, { kind: FailureCause['kind']; members: Grouped[] }>();
  for (const check of checks) {
    if (check.verdict !== 'failed' && check.verdict !== 'warning') continue;
    const { kind, key } = keyOf(check);
    const group = groups.get(key) ?? { kind, members: [] };
    group.members.push(check);
    groups.set(key, group);
  }
  const causes: FailureCause[] = [];
  for (const { kind, members } of groups.values()) {
    if (members.length < (kind === 'valid-refused' ? MIN_VALID_REFUSED : MIN_SAME_ANSWER)) continue;
    const first = members[0] as Grouped;
    causes.push({
      id: `cause-${causes.length + 1}`,
      kind,
      verdict: first.verdict as FailureCause['verdict'],
      summary: summaryOf(kind, first, members.length),
      expected: kind === 'same-answer' ? expectationOf(first.expected) : first.expected,
      actual: kind === 'same-answer' ? answerOf(first.actual) : first.actual,
      checks: members.map((member) => member.id),
    });
  }
  return causes;
}

function summaryOf(kind: FailureCause['kind'], first: Grouped, count: number): string {
  if (kind === 'same-answer') return `${count} ${first.tags.join(', ')} checks got the same wrong answer`;
  return /^\d{3}\b/.test(first.actual)
    ? `${count} valid, correctly signed requests refused alike`
    : `${count} valid, correctly signed requests left unanswered alike`;
}

/**
 * Diagnoses each cause that refuses valid requests the way a verification does: one of its requests (the first
 * whose body the report holds whole) is sent again, signed each of the usual wrong ways.
 */
export async function diagnoseCauses(
  session: Session,
  causes: FailureCause[],
  results: readonly CheckResult[],
  input: Omit<RefusalInput, 'body'>,
): Promise<void> {
  for (const cause of causes) {
    if (cause.kind !== 'valid-refused' || session.signal.aborted) continue;
    const members = results.filter((result) => cause.checks.includes(result.id));
    // The body as the report holds it: whole, and the same bytes once encoded again (no byte-order mark dropped).
    const sample = members.find(
      ({ exchange }) =>
        exchange?.request.body.text !== undefined &&
        Buffer.byteLength(exchange.request.body.text) === exchange.request.body.bytes,
    );
    if (!sample?.exchange || !refusesValid(input.interface, sample.exchange.response?.status)) continue;
    const finding = await diagnoseSignature(session, {
      ...input,
      body: Buffer.from(sample.exchange.request.body.text as string, 'utf8'),
    });
    if (finding) cause.diagnosis = finding;
  }
}
