/**
 * The judgements of a sender's deliveries (deliveries.ts defines the checks that use them): what came after each
 * answer in one delivery, read from the answers it really got (§2.2, §5.5, §6.1, §6.5, §7, §8).
 */
import { isDeepStrictEqual } from 'node:util';
import { SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { isObject } from '../../../spec/json.js';
import { failed, notJudged, passed, type Outcome } from '../../check.js';
import { allAttempts, attemptEventId, completeRecords, documentOf, label, ms, timestampOf, waitsOf, withoutEventId, type Attempt, type SenderEvidence } from '../../evidence.js';
import type { AcceptedStatus, RetryAfter, ScriptedAnswer } from '../../listen/scenarios.js';
import {
  BACKOFF_GROWTH_FACTOR,
  FAILURES_BEFORE_ACCEPT,
  FIRST_ATTEMPT_TARGET_SECONDS,
  FRESH_SIGNATURE_SPAN_MS,
  retryAfterToleranceMs,
  TIMING_LAG_LIMIT_MS,
} from '../../tolerances.js';
import { afterEachAnswer, deliveriesIn, type DeliveryView, type Judgement } from './judging.js';

export const is5xx = (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status >= 500;
export const is429 = (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status === 429;
export const isReset = (answer: ScriptedAnswer) => answer.kind === 'reset';
export const isStatus = (status: number) => (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status === status;
export const isAccepted = (status: AcceptedStatus) => (answer: ScriptedAnswer) => answer.kind === 'accepted' && answer.status === status;
const isAcceptance = (answer: ScriptedAnswer) => answer.kind === 'accepted' || answer.kind === 'duplicate';
export const isDuplicate = (answer: ScriptedAnswer) => answer.kind === 'duplicate';

/** `after 1.25 s`: how long after the answer the next attempt came. */
function after(answered: Attempt, next: Attempt): string {
  return ms(next.arrivedMono - (answered.answeredMono ?? answered.arrivedMono));
}

/** After an answer asking for a retry, the delivery is tried again (within --wait of its first attempt). */
export function retriedAfter(answerText: string, matches: (answer: ScriptedAnswer) => boolean): (evidence: SenderEvidence) => Outcome {
  return (evidence) =>
    afterEachAnswer(evidence, answerText, matches, `another attempt after the ${answerText}`, (_answered, next) => (next ? undefined : `not retried within --wait ${ms(evidence.waitMs)}`), { firstOnly: true });
}

/** What came after an attempt in its delivery. */
function laterThan(answered: Attempt, view: DeliveryView): Attempt[] {
  const attempts = view.delivery.attempts;
  return attempts.slice(attempts.indexOf(answered) + 1);
}

/**
 * After a final answer, the delivery is not tried again (cai listened --observe more). With `sameDocument`, only
 * the same document counts as sent again: another document under the event_id of an accepted one is a new document
 * with an old identity, the fault of the identity check (newDocumentsNewIds), not a repeat.
 */
export function notRetriedAfter(answerText: string, matches: (answer: ScriptedAnswer) => boolean, verb: string, options: { sameDocument?: boolean } = {}): (evidence: SenderEvidence) => Outcome {
  const repeats = (answered: Attempt, view: DeliveryView) =>
    laterThan(answered, view).filter((attempt) => !options.sameDocument || isDeepStrictEqual(documentOf(attempt), documentOf(answered)));
  return (evidence) =>
    afterEachAnswer(
      evidence,
      answerText,
      matches,
      `no attempt after the ${answerText} (cai listened ${ms(evidence.observeMs)} more, --observe)`,
      (answered, _next, view) => {
        const again = repeats(answered, view);
        const next = again[0];
        if (!next) return undefined;
        const late = again.some((attempt) => attempt.late) ? ', after cai stopped listening' : '';
        return `${verb}: ${again.length} more attempt${again.length === 1 ? '' : 's'}, the first ${after(answered, next)} after the ${answerText}${late}`;
      },
      { firstOnly: true, shown: (answered, view) => [answered, ...repeats(answered, view)] },
    );
}

const isRateLimitedWith = (form: RetryAfter['form']) => (answer: ScriptedAnswer) => is429(answer) && answer.kind === 'error' && answer.retryAfter?.form === form;

/**
 * §7: a retry after a 429 comes no earlier than its Retry-After (less the tolerance of tolerances.ts): the number
 * of seconds from cai's answer, or the moment the HTTP-date names (RFC 9110 §10.2.3), on cai's clock.
 */
export function waitsRetryAfter(form: RetryAfter['form']): (evidence: SenderEvidence) => Outcome {
  const answerText = form === 'seconds' ? '429 with Retry-After in seconds' : '429 with Retry-After as an HTTP-date';
  const expected = form === 'seconds' ? 'each retry no earlier than the Retry-After of the 429 before it' : 'each retry no earlier than the HTTP-date of the Retry-After before it';
  return (evidence) =>
    afterEachAnswer(evidence, answerText, isRateLimitedWith(form), expected, (answered, next) => {
      const sent = answered.retryAfter;
      if (!next || sent === undefined || answered.answeredMono === undefined) return null;
      const wait = next.arrivedMono - answered.answeredMono;
      const notBefore = sent.dateMono ?? answered.answeredMono + sent.seconds * 1000;
      const asked = notBefore - answered.answeredMono;
      if (next.arrivedMono >= notBefore - retryAfterToleranceMs(asked / 1000)) return undefined;
      return form === 'seconds'
        ? `retried ${ms(wait)} after a 429 with Retry-After: ${sent.header}`
        : `retried ${ms(wait)} after a 429 with Retry-After: ${sent.header}, ${ms(notBefore - next.arrivedMono)} before that date (it asked for ${ms(asked)})`;
    });
}

/** §7/§8: consecutive 5xx are retried until the FAILURES_BEFORE_ACCEPT-th at least (a sender that gives up early loses the document). */
export function keepsRetrying(evidence: SenderEvidence): Outcome {
  return afterEachAnswer(
    evidence,
    '5xx',
    is5xx,
    `retries through ${FAILURES_BEFORE_ACCEPT} consecutive answers of 5xx`,
    (_answered, next, view) => {
      const run = consecutiveFrom(view.delivery.attempts, is5xx);
      if (next || run >= FAILURES_BEFORE_ACCEPT) return undefined;
      return `gave up after ${run} answer${run === 1 ? '' : 's'} of 5xx in a row (no attempt within --wait ${ms(evidence.waitMs)})`;
    },
    { firstOnly: true },
  );
}

/** How many attempts from the delivery's first 5xx on got an answer that `matches`, in a row. */
function consecutiveFrom(attempts: readonly Attempt[], matches: (answer: ScriptedAnswer) => boolean): number {
  const start = attempts.findIndex((attempt) => matches(attempt.answer));
  let count = 0;
  for (const attempt of attempts.slice(Math.max(0, start))) {
    if (!matches(attempt.answer)) break;
    count += 1;
  }
  return count;
}

/**
 * §7: "exponential backoff": the waits after consecutive 5xx grow. The last two waits are compared with the two
 * shortest of the first three: a stall of either machine only lengthens a wait, so one early wait drawn out by a
 * busy machine does not make growing waits look flat. Judged on every delivery retried through
 * FAILURES_BEFORE_ACCEPT consecutive 5xx.
 */
export function backoffGrows(evidence: SenderEvidence): Outcome {
  const expected = `waits that grow: the last two at least ${BACKOFF_GROWTH_FACTOR}× the two shortest of the first three`;
  const complete = new Set(completeRecords(evidence));
  const timed = deliveriesIn(evidence).filter((view) => complete.has(view.record) && consecutiveFrom(view.delivery.attempts, is5xx) >= FAILURES_BEFORE_ACCEPT);
  const judged = timed.filter((view) => view.delivery.attempts.length > FAILURES_BEFORE_ACCEPT);
  if (judged.length === 0) return notJudged(`no delivery was retried through ${FAILURES_BEFORE_ACCEPT} consecutive 5xx to time its waits (see the checks of retries after 5xx)`);
  const lag = Math.max(...judged.map((view) => view.record.maxLagMs ?? 0));
  if (lag > TIMING_LAG_LIMIT_MS) return notJudged(`cai's own event loop was held up to ${ms(lag)} while the waits were timed (the machine is too busy): the waits it measured are not reliable; run it again`);
  const flat: { view: DeliveryView; text: string }[] = [];
  let shown = '';
  for (const view of judged) {
    const start = view.delivery.attempts.findIndex((attempt) => is5xx(attempt.answer));
    const failures = view.delivery.attempts.slice(start, start + FAILURES_BEFORE_ACCEPT + 1);
    const waits = waitsOf(failures);
    const early = [...waits.slice(0, 3)].sort((a, b) => a - b).slice(0, 2).reduce((sum, wait) => sum + wait, 0);
    const late = waits.slice(-2).reduce((sum, wait) => sum + wait, 0);
    const text = `waits ${waits.map((wait) => ms(wait)).join(', ')}: the last two ${(late / Math.max(early, 1)).toFixed(1)}× the two shortest of the first three`;
    shown ||= text;
    if (late < BACKOFF_GROWTH_FACTOR * early) flat.push({ view, text });
  }
  if (flat.length === 0) return passed(expected, judged.length === 1 ? shown : `${judged.length} deliveries, each growing (the first: ${shown})`);
  const first = flat[0] as { view: DeliveryView; text: string };
  return failed(expected, `${flat.length} of ${judged.length} deliveries: ${first.text}`, { attempts: first.view.delivery.attempts.slice(0, FAILURES_BEFORE_ACCEPT + 1) });
}

/**
 * §5.5: each attempt signed afresh. Judged on pairs of attempts of one delivery certainly sent a second or more
 * apart (the span of their arrivals, less the longest cai's loop was held up, which can only have drawn it out):
 * stamped afresh, the later one carries a later timestamp; the first attempt's headers sent again do not.
 */
export function signedAfresh(evidence: SenderEvidence): Outcome {
  const expected = `a later timestamp on every attempt sent ${FRESH_SIGNATURE_SPAN_MS / 1000} s or more after another of its delivery`;
  let judged = 0;
  const stale: { earlier: Attempt; later: Attempt; text: string }[] = [];
  for (const { record, delivery } of deliveriesIn(evidence)) {
    const timed = delivery.attempts.filter((attempt) => /^[0-9]{1,12}$/.test(timestampOf(attempt) ?? ''));
    for (let i = 0; i < timed.length; i += 1) {
      for (let j = i + 1; j < timed.length; j += 1) {
        const earlier = timed[i] as Attempt;
        const later = timed[j] as Attempt;
        const span = later.arrivedMono - earlier.arrivedMono;
        if (span - (record.maxLagMs ?? 0) < FRESH_SIGNATURE_SPAN_MS) continue;
        judged += 1;
        const moved = Number(timestampOf(later)) - Number(timestampOf(earlier));
        if (moved < 1) stale.push({ earlier, later, text: `${label(later)} arrived ${ms(span)} after ${label(earlier)} with ${moved === 0 ? 'the same timestamp' : `a timestamp ${-moved} s earlier`}` });
      }
    }
  }
  if (judged === 0) return notJudged(`no two attempts of one delivery certainly sent ${FRESH_SIGNATURE_SPAN_MS / 1000} s or more apart, with well-formed timestamps`);
  if (stale.length === 0) return passed(expected, `${judged} pair${judged === 1 ? '' : 's'} of attempts, each timestamp fresh`);
  const first = stale[0] as (typeof stale)[number];
  return failed(expected, `${stale.length} of ${judged}: ${first.text}: a signature sent again goes stale after ${SIGNATURE_WINDOW_SECONDS} s`, { attempts: [first.earlier, first.later] });
}

/** §8: the time from the trigger to the first attempt, in every scenario. */
export function promptFirstAttempt(evidence: SenderEvidence): Outcome {
  const expected = `the first attempt within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger, in every scenario`;
  const times = evidence.records.flatMap((record) => {
    const first = record.attempts[0];
    return first ? [{ id: record.id, ms: first.arrivedMono - record.startedMono, first }] : [];
  });
  if (times.length === 0) return notJudged('no scenario got an attempt to time');
  const slowest = times.reduce((worst, entry) => (entry.ms > worst.ms ? entry : worst));
  const actual = `slowest: ${ms(slowest.ms)} (${slowest.id}); ${times.length} scenario${times.length === 1 ? '' : 's'}`;
  return slowest.ms <= FIRST_ATTEMPT_TARGET_SECONDS * 1000 ? passed(expected, actual) : failed(expected, actual, { attempts: [slowest.first] });
}

/** §6.1, §2.2: a retry is the same delivery, so it carries the first attempt's event_id. */
export function sameEventId(first: Attempt, retry: Attempt): Judgement {
  const original = attemptEventId(first);
  if (original === undefined) return null;
  const again = attemptEventId(retry);
  return again === original ? undefined : `event_id ${again === undefined ? '(none)' : JSON.stringify(again)}, the delivery's first attempt had ${JSON.stringify(original)}`;
}

/** A changed document under the same event_id is discarded as a repeat (§6.1): the change is lost. */
export function sameDocument(first: Attempt, retry: Attempt): Judgement {
  const original = documentOf(first);
  const again = documentOf(retry);
  if (original === undefined || again === undefined) return null;
  return isDeepStrictEqual(withoutEventId(original), withoutEventId(again)) ? undefined : "the document differs from the first attempt's";
}

/** §5.2: the bytes are what is signed; a retry re-serialised is another text of the same document. */
export function sameBytes(first: Attempt, retry: Attempt): Judgement {
  const original = documentOf(first);
  if (original === undefined || !isDeepStrictEqual(original, documentOf(retry))) return null;
  return first.body.equals(retry.body) ? undefined : `the same document in other bytes (${first.body.length} bytes, then ${retry.body.length})`;
}

/** The top-level fields in which two documents differ, for a message: `text, occurred_at`. */
function differingFields(a: unknown, b: unknown): string {
  if (!isObject(a) || !isObject(b)) return 'the whole body';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !isDeepStrictEqual(a[key], b[key]));
  return keys.length > 3 ? `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more` : keys.join(', ');
}

/**
 * §6.1, §2.2: a new document carries a new event_id. The receiver discards a document whose event_id it already
 * accepted (§6.1, §2.13), so another document under that id is lost. Judged on every attempt, across scenarios and
 * in order of arrival: one whose event_id an earlier attempt was accepted under (any 2xx, the duplicate answer
 * included), with a different document, fails. The same document again is a repeat, the acknowledgment checks'; a
 * changed document on a retry after a 5xx, 429 or cut connection is a retry, the retry checks'.
 */
export function newDocumentsNewIds(evidence: SenderEvidence): Outcome {
  const expected = 'every new document under an event_id of its own (none under the id of a document already accepted)';
  const attempts = allAttempts(evidence)
    .filter((attempt) => attemptEventId(attempt) !== undefined)
    .sort((a, b) => a.arrivedMono - b.arrivedMono);
  const accepted = new Map<string, Attempt>();
  const problems: { earlier: Attempt; attempt: Attempt; text: string }[] = [];
  for (const attempt of attempts) {
    const id = attemptEventId(attempt) as string;
    const earlier = accepted.get(id);
    if (earlier === undefined) {
      if (isAcceptance(attempt.answer)) accepted.set(id, attempt);
      continue;
    }
    if (isDeepStrictEqual(documentOf(earlier), documentOf(attempt))) continue;
    if (problems.some((problem) => attemptEventId(problem.attempt) === id && isDeepStrictEqual(documentOf(problem.attempt), documentOf(attempt)))) continue;
    problems.push({ earlier, attempt, text: `${label(attempt)} carries event_id ${JSON.stringify(id.slice(0, 80))}, accepted before in ${label(earlier)}, with another document (it differs in ${differingFields(documentOf(earlier), documentOf(attempt))}): a receiver discards it as a repeat (§6.1)` });
  }
  const ids = new Set(attempts.map((attempt) => attemptEventId(attempt))).size;
  if (problems.length === 0 && ids < 2) return notJudged(ids === 0 ? 'no attempt carried an event_id' : 'every attempt carried one event_id: no second document to compare it with');
  if (problems.length === 0) return passed(expected, `${ids} documents, each under its own event_id`);
  const more = problems.length > 1 ? `; and ${problems.length - 1} more` : '';
  return failed(expected, `${(problems[0] as (typeof problems)[number]).text}${more}`, { attempts: problems.slice(0, 3).flatMap((problem) => [problem.earlier, problem.attempt]) });
}
