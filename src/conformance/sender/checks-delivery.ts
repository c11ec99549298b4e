/**
 * What a sender does with cai's answers, scenario by scenario: retries a 5xx with growing waits (§7, §8), a 429
 * after Retry-After (§7), a connection cut without an answer (§8); keeps the event_id and the document on every
 * retry (§2.2, §6.1), signs every retry afresh (§5.5); never retries a 400, 401 or 413 (§7); takes any 2xx, the
 * duplicate answer included, as delivered (§2.13, §6.5); sends promptly (§8).
 */
import { isDeepStrictEqual } from 'node:util';
import { SIGNATURE_WINDOW_SECONDS, type InterfaceId } from '../../spec/constants.js';
import { defineSenderCheck, failed, passed, skipped, type SenderCheckDefinition, type SenderOutcome } from './define.js';
import { documentOf, eventIdOf, label, ms, timestampOf, waitsOf, type Attempt, type SenderEvidence } from './evidence.js';
import { attemptsOf, retriesOf } from './judging.js';
import { describeAnswer, scenario, type ScenarioId, type ScriptedAnswer } from './scenarios.js';
import {
  BACKOFF_GROWTH_FACTOR,
  FAILURES_BEFORE_ACCEPT,
  FIRST_ATTEMPT_TARGET_SECONDS,
  FRESH_SIGNATURE_SPAN_MS,
  RETRY_AFTER_SECONDS,
  RETRY_AFTER_TOLERANCE_MS,
  TIMING_LAG_LIMIT_MS,
} from './settings.js';

const RETRY_SCENARIOS: readonly ScenarioId[] = ['retry-5xx', 'retry-429', 'retry-network'];

/** The scenario's first answer, as the checks' texts name it (`503`, `429 (Retry-After: 2)`). */
function firstAnswer(id: ScenarioId, iface: InterfaceId): string {
  return describeAnswer(scenario(id).script[0] as ScriptedAnswer, iface);
}

/** After the scenario's first answer the sender tries again (a retry must come). */
function retried(iface: InterfaceId, id: ScenarioId): (evidence: SenderEvidence) => SenderOutcome {
  return (evidence) => {
    const expected = `another attempt after the ${firstAnswer(id, iface)}`;
    const found = attemptsOf(evidence, id, expected);
    if ('outcome' in found) return found.outcome;
    const [first, second] = found.attempts;
    if (!second) return failed(expected, `1 attempt, answered ${firstAnswer(id, iface)}; no retry within --wait ${ms(evidence.waitMs)}`, [first as Attempt]);
    return passed(expected, `retried ${ms(waitsOf(found.attempts)[0] ?? 0)} after it (${found.attempts.length} attempts)`);
  };
}

/** After the scenario's final answer the sender does not try again (a retry or repeat must not come). */
function notRetried(iface: InterfaceId, id: ScenarioId, verb: string): (evidence: SenderEvidence) => SenderOutcome {
  return (evidence) => {
    const answer = firstAnswer(id, iface);
    const expected = `no attempt after the ${answer} (cai listened ${ms(evidence.observeMs)} more, --observe)`;
    const found = attemptsOf(evidence, id, expected);
    if ('outcome' in found) return found.outcome;
    const [first, ...again] = found.attempts;
    if (again.length === 0) return passed(expected, `1 attempt, answered ${answer}; nothing for ${ms(evidence.observeMs)} after it`);
    const after = ms((again[0] as Attempt).arrivedMono - ((first as Attempt).answeredMono ?? (first as Attempt).arrivedMono));
    return failed(expected, `${verb}: ${again.length} more attempt${again.length === 1 ? '' : 's'}, the first ${after} after the ${answer}`, found.attempts);
  };
}

/** The retries of every retry scenario that ran, each with the first attempt it repeats. */
function retryPairs(evidence: SenderEvidence): { first: Attempt; retry: Attempt }[] {
  return RETRY_SCENARIOS.flatMap((id) => {
    const record = evidence.records.find((entry) => entry.scenario.id === id);
    const [first] = record?.attempts ?? [];
    return first ? retriesOf(record?.attempts ?? []).map((retry) => ({ first, retry })) : [];
  });
}

/** Judges each retry against its first attempt; skipped when none could be judged. */
function everyRetry(evidence: SenderEvidence, expected: string, judge: (first: Attempt, retry: Attempt) => string | undefined | null, unjudged: string): SenderOutcome {
  const pairs = retryPairs(evidence);
  const problems: { attempt: Attempt; first: Attempt; problem: string }[] = [];
  let judged = 0;
  for (const { first, retry } of pairs) {
    const problem = judge(first, retry);
    if (problem === null) continue;
    judged += 1;
    if (problem !== undefined) problems.push({ attempt: retry, first, problem });
  }
  if (judged === 0) return skipped(unjudged);
  if (problems.length === 0) return passed(expected, `${judged} retr${judged === 1 ? 'y' : 'ies'}, all right`);
  const shown = problems.slice(0, 3).map(({ attempt, problem }) => `${label(attempt)}: ${problem}`);
  return failed(expected, `${problems.length} of ${judged} retries wrong: ${shown.join('; ')}`, problems.flatMap(({ first, attempt }) => [first, attempt]));
}

function withoutEventId(doc: unknown): unknown {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return doc;
  const { event_id: _ignored, ...rest } = doc as Record<string, unknown>;
  return rest;
}

/**
 * §7: "exponential backoff": the waits after consecutive 5xx grow. The last two waits are compared with the two
 * shortest of the first three: a stall of either machine only lengthens a wait, so one early wait drawn out by a
 * busy machine does not make growing waits look flat.
 */
function backoffGrows(iface: InterfaceId): (evidence: SenderEvidence) => SenderOutcome {
  return (evidence) => {
    const expected = `waits that grow: the last two at least ${BACKOFF_GROWTH_FACTOR}× the two shortest of the first three`;
    const found = attemptsOf(evidence, 'retry-5xx', expected);
    if ('outcome' in found) return found.outcome;
    if ((found.record.maxLagMs ?? 0) > TIMING_LAG_LIMIT_MS) {
      return skipped(`cai's own event loop was held up to ${ms(found.record.maxLagMs ?? 0)} during retry-5xx (the machine is too busy): the waits it measured are not reliable; run it again`);
    }
    const failures = found.attempts.slice(0, FAILURES_BEFORE_ACCEPT + 1);
    const waits = waitsOf(failures);
    if (waits.length < FAILURES_BEFORE_ACCEPT) {
      return skipped(`${waits.length} retr${waits.length === 1 ? 'y' : 'ies'} after consecutive 503s; the growth of the waits is judged on all ${FAILURES_BEFORE_ACCEPT} (see ${iface}S-RETRY-009)`);
    }
    const first = waits.slice(0, FAILURES_BEFORE_ACCEPT);
    const early = [...first.slice(0, 3)].sort((a, b) => a - b).slice(0, 2).reduce((sum, wait) => sum + wait, 0);
    const late = first.slice(-2).reduce((sum, wait) => sum + wait, 0);
    const actual = `waits ${first.map((wait) => ms(wait)).join(', ')}: the last two ${(late / Math.max(early, 1)).toFixed(1)}× the two shortest of the first three`;
    return late >= BACKOFF_GROWTH_FACTOR * early ? passed(expected, actual) : failed(expected, actual, failures);
  };
}

/** §7: a retry after a 429 comes no earlier than its Retry-After. */
function waitsRetryAfter(iface: InterfaceId): (evidence: SenderEvidence) => SenderOutcome {
  return (evidence) => {
    const expected = `the retry at least ${RETRY_AFTER_SECONDS} s (Retry-After) after the 429`;
    const found = attemptsOf(evidence, 'retry-429', expected);
    if ('outcome' in found) return found.outcome;
    const [first, second] = found.attempts as [Attempt, Attempt | undefined];
    if (!second) return skipped(`no retry after the 429 to time (see ${iface}S-RETRY-007)`);
    const wait = waitsOf([first, second])[0] as number;
    const actual = `retried ${ms(wait)} after the 429`;
    return wait >= RETRY_AFTER_SECONDS * 1000 - RETRY_AFTER_TOLERANCE_MS ? passed(expected, actual) : failed(expected, actual, [first, second]);
  };
}

/** §7/§8: the sender keeps retrying consecutive 5xx (cai answers 503 five times before the 202). */
function keepsRetrying(evidence: SenderEvidence): SenderOutcome {
  const expected = `${FAILURES_BEFORE_ACCEPT + 1} attempts: through ${FAILURES_BEFORE_ACCEPT} answers of 503 to the 202`;
  const found = attemptsOf(evidence, 'retry-5xx', expected);
  if ('outcome' in found) return found.outcome;
  const count = found.attempts.filter((attempt) => !attempt.late).length;
  if (count > FAILURES_BEFORE_ACCEPT) return passed(expected, `${count} attempts, the last answered 202`);
  return failed(expected, `${count} attempt${count === 1 ? '' : 's'}, then none within --wait ${ms(evidence.waitMs)}: gave up after ${count} answer${count === 1 ? '' : 's'} of 503`, found.attempts);
}

/**
 * §5.5: each attempt signed afresh. Judged on pairs of attempts of one delivery certainly sent a second or more
 * apart (the span of their arrivals, less the longest cai's loop was held up, which can only have drawn it out):
 * stamped afresh, the later one carries a later timestamp; the first attempt's headers sent again do not.
 */
function signedAfresh(evidence: SenderEvidence): SenderOutcome {
  const expected = `a later timestamp on every attempt sent ${FRESH_SIGNATURE_SPAN_MS / 1000} s or more after another`;
  let judged = 0;
  const stale: { earlier: Attempt; later: Attempt; text: string }[] = [];
  for (const record of evidence.records) {
    const timed = record.attempts.filter((attempt) => /^[0-9]{1,12}$/.test(timestampOf(attempt) ?? ''));
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
  if (judged === 0) return skipped(`no two attempts of one delivery certainly sent ${FRESH_SIGNATURE_SPAN_MS / 1000} s or more apart, with well-formed timestamps`);
  if (stale.length === 0) return passed(expected, `${judged} pair${judged === 1 ? '' : 's'} of attempts, each timestamp fresh`);
  return failed(expected, `${stale.length} of ${judged}: ${stale[0]?.text}: a signature sent again goes stale after ${SIGNATURE_WINDOW_SECONDS} s`, [stale[0]?.earlier as Attempt, stale[0]?.later as Attempt]);
}

/** §8: the time from the trigger to the first attempt, across scenarios. */
function promptFirstAttempt(evidence: SenderEvidence): SenderOutcome {
  const expected = `the first attempt within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger, in every scenario`;
  const times = evidence.records.flatMap((record) => {
    const first = record.attempts[0];
    return first ? [{ id: record.scenario.id, ms: first.arrivedMono - record.startedMono, first }] : [];
  });
  if (times.length === 0) return skipped('no scenario got an attempt to time');
  const slowest = times.reduce((worst, entry) => (entry.ms > worst.ms ? entry : worst));
  const actual = `slowest: ${ms(slowest.ms)} (${slowest.id}); ${times.length} scenario${times.length === 1 ? '' : 's'}`;
  return slowest.ms <= FIRST_ATTEMPT_TARGET_SECONDS * 1000 ? passed(expected, actual) : failed(expected, actual, [slowest.first]);
}

/** What the delivery checks of one interface share: the id prefix, and the level and sections of a status rule. */
interface DeliveryContext {
  iface: InterfaceId;
  /** `BS` or `AS`. */
  p: string;
  b: boolean;
  statusLevel: 'must' | 'should';
  statusSections(status: string): string[];
}

function contextOf(iface: InterfaceId): DeliveryContext {
  const b = iface === 'B';
  return {
    iface,
    p: `${iface}S`,
    b,
    // §7's table is Interface B's; §4.1 shows no error statuses for A, where §8's retry period is what the spec states.
    statusLevel: b ? 'must' : 'should',
    statusSections: (status) => (b ? ['§7'] : ['§7', '§4.1']).concat(status === '413' ? ['§8'] : []),
  };
}

/** A retry is signed afresh, and a 503 is retried at all. */
function firstRetryChecks({ iface, p, b }: DeliveryContext): SenderCheckDefinition[] {
  return [
    defineSenderCheck({
      id: `${p}-SIG-004`, interface: iface, level: 'should', sections: ['§5.5', '§5.2'], tags: ['signature', 'window', 'retry'], scenarios: ['retry-5xx', 'retry-429'],
      title: 'every retry is signed afresh: its timestamp moves on with the time since the first attempt',
      judge: signedAfresh,
    }),
    defineSenderCheck({
      id: `${p}-RETRY-001`, interface: iface, level: 'must', sections: b ? ['§7', '§8'] : ['§8'], tags: ['retry', '5xx'], scenarios: ['retry-5xx'],
      title: 'a 503 is retried',
      judge: retried(iface, 'retry-5xx'),
    }),
  ];
}

/** A retry carries the same event_id, the same document and the same bytes as the first attempt. */
function sameOnRetryChecks({ iface, p, b }: DeliveryContext): SenderCheckDefinition[] {
  return [
    defineSenderCheck({
      id: `${p}-RETRY-002`, interface: iface, level: 'must', sections: b ? ['§6.1', '§2.4'] : ['§2.2'], tags: ['retry', 'event-id'], scenarios: RETRY_SCENARIOS,
      title: 'every retry carries the event_id of the first attempt',
      judge: (evidence) =>
        everyRetry(evidence, 'the same event_id on every retry', (first, retry) => {
          const original = eventIdOf(first);
          if (original === undefined) return null;
          const again = eventIdOf(retry);
          return again === original ? undefined : `event_id ${again === undefined ? '(none)' : JSON.stringify(again)}, the first attempt's was ${JSON.stringify(original)}`;
        }, 'no retry of a document with an event_id to compare'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-003`, interface: iface, level: 'should', sections: b ? ['§6.1'] : ['§2.2'], tags: ['retry', 'document'], scenarios: RETRY_SCENARIOS,
      title: 'every retry carries the same document as the first attempt (event_id aside)',
      judge: (evidence) =>
        everyRetry(evidence, 'the same document on every retry', (first, retry) => {
          const original = documentOf(first);
          const again = documentOf(retry);
          if (original === undefined || again === undefined) return null;
          // A changed document under the same event_id is discarded as a repeat (§6.1): the change is lost.
          return isDeepStrictEqual(withoutEventId(original), withoutEventId(again)) ? undefined : 'the document differs from the first attempt\'s';
        }, 'no retry with a JSON document to compare'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-004`, interface: iface, level: 'should', sections: ['§5.2', b ? '§6.1' : '§2.2'], tags: ['retry', 'raw-body'], scenarios: RETRY_SCENARIOS,
      title: 'every retry of the same document sends the same bytes (not re-serialised)',
      judge: (evidence) =>
        everyRetry(evidence, 'the same bytes on every retry', (first, retry) => {
          const original = documentOf(first);
          if (original === undefined || !isDeepStrictEqual(original, documentOf(retry))) return null;
          return first.body.equals(retry.body) ? undefined : `the same document in other bytes (${first.body.length} bytes, then ${retry.body.length})`;
        }, 'no retry of an unchanged document to compare'),
    }),
  ];
}

/** The pace of retries: backoff after 503s, cut connections, 429 and its Retry-After, persistence. */
function retryPaceChecks({ iface, p, b, statusLevel }: DeliveryContext): SenderCheckDefinition[] {
  return [
    defineSenderCheck({
      id: `${p}-RETRY-005`, interface: iface, level: 'must', sections: b ? ['§7', '§8'] : ['§8'], tags: ['retry', '5xx', 'backoff'], scenarios: ['retry-5xx'],
      title: 'the waits between retries of consecutive 503s grow (backoff, not a fixed pace)',
      judge: backoffGrows(iface),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-006`, interface: iface, level: 'should', sections: ['§8'], tags: ['retry', 'network'], scenarios: ['retry-network'],
      title: 'a connection cut without an answer is retried',
      judge: retried(iface, 'retry-network'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-007`, interface: iface, level: statusLevel, sections: b ? ['§7'] : ['§7', '§8'], tags: ['retry', '429'], scenarios: ['retry-429'],
      title: 'a 429 is retried',
      judge: retried(iface, 'retry-429'),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-008`, interface: iface, level: statusLevel, sections: b ? ['§7'] : ['§7', '§8'], tags: ['retry', '429', 'retry-after'], scenarios: ['retry-429'],
      title: `a 429 with Retry-After: ${RETRY_AFTER_SECONDS} is not retried before ${RETRY_AFTER_SECONDS} s`,
      judge: waitsRetryAfter(iface),
    }),
    defineSenderCheck({
      id: `${p}-RETRY-009`, interface: iface, level: 'should', sections: b ? ['§7', '§8'] : ['§8'], tags: ['retry', '5xx'], scenarios: ['retry-5xx'],
      title: `the sender keeps retrying through ${FAILURES_BEFORE_ACCEPT} consecutive 503s`,
      judge: keepsRetrying,
    }),
  ];
}

/** No retry after 400 and 401 (and, on B, 413). */
function rejectChecks({ iface, p, b, statusLevel, statusSections }: DeliveryContext): SenderCheckDefinition[] {
  const checks: SenderCheckDefinition[] = [
    defineSenderCheck({
      id: `${p}-REJECT-001`, interface: iface, level: statusLevel, sections: statusSections('400'), tags: ['reject', '400'], scenarios: ['reject-400'],
      title: 'a 400 is not retried',
      judge: notRetried(iface, 'reject-400', 'retried'),
    }),
    defineSenderCheck({
      id: `${p}-REJECT-002`, interface: iface, level: statusLevel, sections: statusSections('401'), tags: ['reject', '401'], scenarios: ['reject-401'],
      title: 'a 401 is not retried',
      judge: notRetried(iface, 'reject-401', 'retried'),
    }),
  ];
  if (b) {
    checks.push(
      defineSenderCheck({
        id: 'BS-REJECT-003', interface: 'B', level: 'must', sections: statusSections('413'), tags: ['reject', '413'], scenarios: ['reject-413'],
        title: 'a 413 is not retried',
        judge: notRetried(iface, 'reject-413', 'retried'),
      }),
    );
  }
  return checks;
}

/** A final answer (202, the duplicate answer, any 2xx on B) ends the delivery. */
function ackChecks({ iface, b }: DeliveryContext): SenderCheckDefinition[] {
  if (b) {
    return [
      defineSenderCheck({
        id: 'BS-ACK-001', interface: 'B', level: 'should', sections: ['§7', '§4.2'], tags: ['accepted', '202'], scenarios: ['accept'],
        title: 'a 202 ends the delivery: the event is not sent again',
        judge: notRetried(iface, 'accept', 'sent again'),
      }),
      defineSenderCheck({
        id: 'BS-ACK-002', interface: 'B', level: 'should', sections: ['§2.13', '§7'], tags: ['accepted', 'duplicate'], scenarios: ['duplicate'],
        title: 'the duplicate answer 202 {"ok":true,"duplicate":true} ends the delivery',
        judge: notRetried(iface, 'duplicate', 'sent again'),
      }),
      defineSenderCheck({
        id: 'BS-ACK-003', interface: 'B', level: 'should', sections: ['§6.5'], tags: ['accepted', '2xx'], scenarios: ['ok-200'],
        title: 'a 200 ends the delivery too (any 2xx means accepted)',
        judge: notRetried(iface, 'ok-200', 'sent again'),
      }),
    ];
  }
  return [
    defineSenderCheck({
      id: 'AS-ACK-001', interface: 'A', level: 'should', sections: ['§4.1', '§2.3'], tags: ['accepted', '202'], scenarios: ['accept'],
      title: 'the 202 acknowledgment ends the delivery: the job is not sent again',
      judge: notRetried(iface, 'accept', 'sent again'),
    }),
  ];
}

/** How soon the first attempt comes. */
function timingChecks({ iface, p, b }: DeliveryContext): SenderCheckDefinition[] {
  return [
    defineSenderCheck({
      id: `${p}-TIME-001`, interface: iface, level: 'should', sections: b ? ['§8'] : ['§4.1', '§8'], tags: ['timing'], scenarios: ['accept'],
      title: `the first attempt comes within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger`,
      judge: promptFirstAttempt,
    }),
  ];
}

function deliveryChecks(iface: InterfaceId): SenderCheckDefinition[] {
  const context = contextOf(iface);
  return [firstRetryChecks, sameOnRetryChecks, retryPaceChecks, rejectChecks, ackChecks, timingChecks].flatMap((checks) => checks(context));
}

export const deliveryChecksB = deliveryChecks('B');
export const deliveryChecksA = deliveryChecks('A');
