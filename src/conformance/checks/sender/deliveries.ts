/**
 * What a sender does with each answer, delivery by delivery: retries a 5xx (500 and 503) with growing waits (§7,
 * §8), a 429 after its Retry-After, in seconds or as an HTTP-date (§7), a connection cut without an answer (§8);
 * keeps the event_id and the document on every retry (§2.2, §6.1), signs every retry afresh (§5.5); never retries
 * a 400, 401 or 413 (§7); takes any 2xx (202, the duplicate answer, 200, 201, 204) as delivered (§2.13, §6.5); gives
 * every new document a new event_id (§2.2, §6.1); sends promptly (§8). Every judgement reads the answers a delivery
 * really got, whatever the scenario: a sender that sends one document or twenty is judged the same way.
 */
import { isDeepStrictEqual } from 'node:util';
import { SIGNATURE_WINDOW_SECONDS, type InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import { isObject } from '../../../spec/json.js';
import { defineSenderCheck, failed, notJudged, passed, type Outcome, type SenderCheck } from '../../check.js';
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
import { afterEachAnswer, deliveriesIn, everyRetry, type DeliveryView, type Judgement } from './judging.js';

const is5xx = (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status >= 500;
const is429 = (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status === 429;
const isReset = (answer: ScriptedAnswer) => answer.kind === 'reset';
const isStatus = (status: number) => (answer: ScriptedAnswer) => answer.kind === 'error' && answer.status === status;
const isAccepted = (status: AcceptedStatus) => (answer: ScriptedAnswer) => answer.kind === 'accepted' && answer.status === status;
const isAcceptance = (answer: ScriptedAnswer) => answer.kind === 'accepted' || answer.kind === 'duplicate';
const isDuplicate = (answer: ScriptedAnswer) => answer.kind === 'duplicate';

/** `after 1.25 s`: how long after the answer the next attempt came. */
function after(answered: Attempt, next: Attempt): string {
  return ms(next.arrivedMono - (answered.answeredMono ?? answered.arrivedMono));
}

/** After an answer asking for a retry, the delivery is tried again (within --wait of its first attempt). */
function retriedAfter(answerText: string, matches: (answer: ScriptedAnswer) => boolean): (evidence: SenderEvidence) => Outcome {
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
function notRetriedAfter(answerText: string, matches: (answer: ScriptedAnswer) => boolean, verb: string, options: { sameDocument?: boolean } = {}): (evidence: SenderEvidence) => Outcome {
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
function waitsRetryAfter(form: RetryAfter['form']): (evidence: SenderEvidence) => Outcome {
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
function keepsRetrying(evidence: SenderEvidence): Outcome {
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
function backoffGrows(evidence: SenderEvidence): Outcome {
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
function signedAfresh(evidence: SenderEvidence): Outcome {
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
function promptFirstAttempt(evidence: SenderEvidence): Outcome {
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
function sameEventId(first: Attempt, retry: Attempt): Judgement {
  const original = attemptEventId(first);
  if (original === undefined) return null;
  const again = attemptEventId(retry);
  return again === original ? undefined : `event_id ${again === undefined ? '(none)' : JSON.stringify(again)}, the delivery's first attempt had ${JSON.stringify(original)}`;
}

/** A changed document under the same event_id is discarded as a repeat (§6.1): the change is lost. */
function sameDocument(first: Attempt, retry: Attempt): Judgement {
  const original = documentOf(first);
  const again = documentOf(retry);
  if (original === undefined || again === undefined) return null;
  return isDeepStrictEqual(withoutEventId(original), withoutEventId(again)) ? undefined : "the document differs from the first attempt's";
}

/** §5.2: the bytes are what is signed; a retry re-serialised is another text of the same document. */
function sameBytes(first: Attempt, retry: Attempt): Judgement {
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
function newDocumentsNewIds(evidence: SenderEvidence): Outcome {
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

/** What the delivery checks of one interface share: the id prefix, and the level and sections of a status rule. */
interface DeliveryContext {
  iface: InterfaceId;
  /** `BS` or `AS`. */
  p: string;
  /** §7's table is Interface B's; §4.1 shows no error statuses for A, where §8's retry period is what the spec states. */
  statusLevel: 'must' | 'should';
  statusSections(status: string): string[];
  /** The sections of a retry rule, and of the identity of a retried document. */
  retrySections: string[];
  identitySections: string[];
  /** The clauses of a sender's action after an answer (§7's table on B; §8's retry period on both). */
  clauses: { retry5xx: string[]; retry429: string[]; identity: string[]; accepted: string[]; reject: Record<400 | 401 | 413, string[]> };
}

function contextOf(iface: InterfaceId): DeliveryContext {
  const spec = interfaceSpec(iface);
  const fixed = spec.refusals === 'fixed';
  return {
    iface,
    p: spec.senderCheckPrefix,
    statusLevel: fixed ? 'must' : 'should',
    statusSections: (status) => (fixed ? ['§7'] : ['§7', '§4.1']).concat(status === '413' ? ['§8'] : []),
    retrySections: fixed ? ['§7', '§8'] : ['§8'],
    identitySections: fixed ? ['§6.1', '§2.4'] : ['§2.2'],
    clauses: {
      retry5xx: fixed ? ['§7-9', '§8-4'] : ['§8-4'],
      retry429: fixed ? ['§7-8'] : ['§8-4'],
      identity: fixed ? ['§6.1-1'] : ['§2.2-4'],
      accepted: ['§6.5-1'],
      // §7's table is Interface B's: on A a refusal's client action is the spec's silence (§4.1).
      reject: fixed ? { 400: ['§7-2'], 401: ['§7-4'], 413: ['§7-6'] } : { 400: [], 401: [], 413: [] },
    },
  };
}

/** A retry is signed afresh, and a 503 is retried at all. */
function firstRetryChecks({ iface, p, retrySections, clauses }: DeliveryContext): SenderCheck[] {
  return [
    defineSenderCheck({
      id: `${p}-SIG-004`, interface: iface, level: 'should', sections: ['§5.5', '§5.2'], clauses: ['§5.5-1'], tags: ['signature', 'window', 'retry'], scenarios: ['retry-5xx', 'retry-429', 'retry-429-date'],
      title: 'every retry is signed afresh: its timestamp moves on with the time since the first attempt',
      judge: signedAfresh,
    }),
    defineSenderCheck({
      id: `${p}-RETRY-001`, interface: iface, level: 'must', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx'], scenarios: ['retry-5xx', 'retry-500'],
      title: 'a document answered 5xx (503, 500) is sent again',
      judge: retriedAfter('5xx', is5xx),
    }),
  ];
}

const RETRY_SCENARIOS = ['retry-5xx', 'retry-500', 'retry-429', 'retry-429-date', 'retry-network'] as const;

/** A retry carries the same event_id, the same document and the same bytes as the delivery's first attempt. */
function sameOnRetryChecks({ iface, p, identitySections, clauses }: DeliveryContext): SenderCheck[] {
  const own = identitySections[0] as string;
  return [
    defineSenderCheck({
      id: `${p}-RETRY-002`, interface: iface, level: 'must', sections: identitySections, clauses: clauses.identity, tags: ['retry', 'event-id'], scenarios: RETRY_SCENARIOS,
      title: 'every retry carries the event_id of the first attempt',
      judge: (evidence) => everyRetry(evidence, 'the same event_id on every retry', sameEventId, 'no retry of a document with an event_id to compare'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-003`, interface: iface, level: 'should', sections: [own], clauses: clauses.identity, tags: ['retry', 'document'], scenarios: RETRY_SCENARIOS,
      title: 'every retry carries the same document as the first attempt (event_id aside)',
      judge: (evidence) => everyRetry(evidence, 'the same document on every retry', sameDocument, 'no retry with a JSON document to compare'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-004`, interface: iface, level: 'should', sections: ['§5.2', own], clauses: ['§5.2-2'], tags: ['retry', 'raw-body'], scenarios: RETRY_SCENARIOS,
      title: 'every retry of the same document sends the same bytes (not re-serialised)',
      judge: (evidence) => everyRetry(evidence, 'the same bytes on every retry', sameBytes, 'no retry of an unchanged document to compare'),
    }),
  ];
}

/** The pace of retries: backoff after 5xx, cut connections, 429 and its Retry-After, persistence. */
function retryPaceChecks({ iface, p, statusLevel, retrySections, clauses }: DeliveryContext): SenderCheck[] {
  const pace = statusLevel === 'must' ? ['§7'] : ['§7', '§8'];
  return [
    defineSenderCheck({
      id: `${p}-RETRY-005`, interface: iface, level: 'must', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx', 'backoff'], scenarios: ['retry-5xx'],
      title: 'the waits between retries of consecutive 5xx grow (backoff, not a fixed pace)',
      judge: backoffGrows,
    }),
    defineSenderCheck({
      id: `${p}-RETRY-006`, interface: iface, level: 'should', sections: ['§8'], clauses: ['§8-4'], tags: ['retry', 'network'], scenarios: ['retry-network'],
      title: 'a connection cut without an answer is retried',
      judge: retriedAfter('connection reset', isReset),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-007`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429'], scenarios: ['retry-429', 'retry-429-date'],
      title: 'a document answered 429 is sent again',
      judge: retriedAfter('429', is429),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-008`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429', 'retry-after'], scenarios: ['retry-429'],
      title: 'a 429 is not retried before its Retry-After (a number of seconds)',
      judge: waitsRetryAfter('seconds'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-009`, interface: iface, level: 'should', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx'], scenarios: ['retry-5xx'],
      title: `the sender keeps retrying through ${FAILURES_BEFORE_ACCEPT} consecutive 5xx`,
      judge: keepsRetrying,
    }),
    defineSenderCheck({
      id: `${p}-RETRY-010`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429', 'retry-after', 'http-date'], scenarios: ['retry-429-date'],
      title: 'a 429 whose Retry-After is an HTTP-date is not retried before that date',
      judge: waitsRetryAfter('date'),
    }),
  ];
}

/** No retry after 400 and 401 (and, where §8 states the limit, 413). */
function rejectChecks({ iface, p, statusLevel, statusSections, clauses }: DeliveryContext): SenderCheck[] {
  const rows: [id: string, status: 400 | 401 | 413][] = [['REJECT-001', 400], ['REJECT-002', 401]];
  if (interfaceSpec(iface).sizeLimitStated) rows.push(['REJECT-003', 413]);
  return rows.map(([id, status]) =>
    defineSenderCheck({
      id: `${p}-${id}`, interface: iface, level: status === 413 ? 'must' : statusLevel, sections: statusSections(String(status)), clauses: clauses.reject[status], tags: ['reject', String(status)], scenarios: [`reject-${status}`],
      title: `a ${status} is not retried`,
      judge: notRetriedAfter(String(status), isStatus(status), 'retried'),
    }),
  );
}

/** A final answer (202, the duplicate answer, any 2xx on B) ends the delivery. */
function ackChecks({ iface, p, clauses }: DeliveryContext): SenderCheck[] {
  if (interfaceSpec(iface).document === 'job') {
    return [
      defineSenderCheck({
        id: `${p}-ACK-001`, interface: iface, level: 'should', sections: ['§4.1', '§2.3'], clauses: clauses.accepted, tags: ['accepted', '202'], scenarios: ['accept'],
        title: 'the 202 acknowledgment ends the delivery: the job is not sent again',
        judge: notRetriedAfter('202', isAccepted(202), 'sent again', { sameDocument: true }),
      }),
    ];
  }
  return [
    defineSenderCheck({
      id: `${p}-ACK-001`, interface: iface, level: 'should', sections: ['§7', '§4.2'], clauses: clauses.accepted, tags: ['accepted', '202'], scenarios: ['accept'],
      title: 'a 202 ends the delivery: the event is not sent again',
      judge: notRetriedAfter('202', isAccepted(202), 'sent again', { sameDocument: true }),
    }),
    defineSenderCheck({
      id: `${p}-ACK-002`, interface: iface, level: 'should', sections: ['§2.13', '§7'], clauses: ['§6.5-1'], tags: ['accepted', 'duplicate'], scenarios: ['duplicate'],
      title: 'the duplicate answer 202 {"ok":true,"duplicate":true} ends the delivery',
      judge: notRetriedAfter('202 {"ok":true,"duplicate":true}', isDuplicate, 'sent again', { sameDocument: true }),
    }),
    ...([['ACK-003', 200, 'ok-200', ''], ['ACK-004', 201, 'ok-201', ''], ['ACK-005', 204, 'ok-204', ' (no body)']] as const).map(([id, status, scenario, body]) =>
      defineSenderCheck({
        id: `${p}-${id}`, interface: iface, level: 'should', sections: ['§6.5'], clauses: ['§6.5-1'], tags: ['accepted', '2xx', String(status)], scenarios: [scenario],
        title: `a ${status}${body} ends the delivery too (any 2xx means accepted)`,
        judge: notRetriedAfter(String(status), isAccepted(status), 'sent again', { sameDocument: true }),
      }),
    ),
  ];
}

/** A new document carries a new event_id (a retry the old one: RETRY-002). */
function identityChecks({ iface, p, identitySections, clauses }: DeliveryContext): SenderCheck[] {
  const kind = interfaceSpec(iface).documentName;
  return [
    defineSenderCheck({
      id: `${p}-ID-001`, interface: iface, level: 'must', sections: identitySections, clauses: clauses.identity, tags: ['event-id', 'identity'], scenarios: ['accept', 'retry-network'],
      title: `every new ${kind} carries a new event_id: none reuses the id of one already accepted`,
      judge: newDocumentsNewIds,
    }),
  ];
}

/** How soon the first attempt comes. */
function timingChecks({ iface, p, statusLevel }: DeliveryContext): SenderCheck[] {
  return [
    defineSenderCheck({
      id: `${p}-TIME-001`, interface: iface, level: 'should', sections: statusLevel === 'must' ? ['§8'] : ['§4.1', '§8'], clauses: ['§8-7'], tags: ['timing'], scenarios: ['accept'],
      title: `the first attempt comes within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger`,
      judge: promptFirstAttempt,
    }),
  ];
}

function deliveryChecks(iface: InterfaceId): SenderCheck[] {
  const context = contextOf(iface);
  return [identityChecks, firstRetryChecks, sameOnRetryChecks, retryPaceChecks, rejectChecks, ackChecks, timingChecks].flatMap((checks) => checks(context));
}

export const deliveryChecksB = deliveryChecks('B');
export const deliveryChecksA = deliveryChecks('A');
