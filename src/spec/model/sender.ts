/**
 * The sender of either interface as an executable model. Given the answers a delivery got so far, it says what a
 * conforming sender must and may do next, and judges what the sender did:
 *
 * - a final answer (any 2xx, the duplicate answer of §2.13, a refusal) ends the delivery: the document is not sent
 *   again (§6.5, §7), nor sent again while an attempt still awaits its answer;
 * - a 5xx or a connection cut without an answer is retried, with waits that grow, for as long as it takes (§7, §8);
 * - a 429 is retried, no earlier than its Retry-After, in seconds or as an HTTP-date (§7);
 * - every retry carries the event_id and the document of the first attempt (§6.1, §2.2), the same bytes at best;
 * - every attempt is signed afresh, its timestamp moving on with the time (§5.5);
 * - across deliveries: one event_id per document and one document per event_id (§6.1, §2.2), judged by content.
 *
 * Plain data and small pure functions, no I/O: the attempts come in as cai recorded them (./sender-attempts.ts
 * judges each on its own, S5 and S7). Timing is read as intervals: an arrival is known only between the moment
 * cai's event loop got to it and `slackMs` before, so a timing term is kept, broken, or undecided.
 */
import { isDeepStrictEqual } from 'node:util';
import type { InterfaceId } from '../constants.js';
import { Headers } from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import { isObject } from '../json.js';
import {
  BACKOFF_FLOOR_MS,
  BACKOFF_GROWTH_FACTOR,
  BACKOFF_WAITS,
  FRESH_SIGNATURE_SPAN_MS,
  retryAfterToleranceMs,
} from './sender-latitude.js';
import type { AttemptTermId } from './sender-attempts.js';
import type { SenderRelationId } from './sender-relations.js';
import {
  asksRetry,
  documentOf,
  eventIdOfAttempt,
  heard,
  nextAfter,
  waitBefore,
  withoutEventId,
  type Answer,
  type Delivery,
  type SeenAttempt,
} from './sender-deliveries.js';

export * from './sender-deliveries.js';

// --- What a delivery's attempts keep or break ----------------------------------------------------------------------

export type DeliveryTermId =
  | 'stops'
  | 'one-at-a-time'
  | 'retried'
  | 'growth'
  | 'retry-after'
  | 'same-id'
  | 'same-document'
  | 'same-bytes'
  | 'fresh';
export type IdentityTermId = 'one-document-per-id' | 'one-id-per-document';

export interface Finding<A extends SeenAttempt = SeenAttempt> {
  term: DeliveryTermId | IdentityTermId | AttemptTermId;
  relation: SenderRelationId;
  level: 'must' | 'should';
  clauses: readonly string[];
  verdict: 'kept' | 'broken' | 'undecided';
  /** The attempt whose answer the finding is about (`retried`, `stops`, …) or that bore on it (a retry, a pair). */
  attempt: A;
  /** In words, for a breach or an undecided one: `retried 1.20 s after a 429 with Retry-After: 2`. */
  actual?: string;
  /** The attempts that show it. */
  shown: readonly A[];
  /** `retried`: answers of the same class in a row, up to and including this one (five 503s: 5 at the last). */
  inARow?: number;
}

export interface DeliveryContext {
  interface: InterfaceId;
  /** How long cai listened for each retry, from the delivery's first attempt (the run's wait for a sender or a callback). */
  waitMs: number;
  /** The stage ran to its end: what did not come is judged. */
  complete: boolean;
  /** When cai stopped listening to the stage. */
  endedMono: number;
  /** How far the sender's first attempts arrived past the second their timestamps name, at most (signingLagOf). */
  signingLagMs?: number;
}

const WELL_FORMED_TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * How long a sender was held up between signing an attempt and its arrival, as the run shows it: the most any first
 * attempt arrived after the end of the second its timestamp names (0 when none did). A first attempt carries no
 * signature sent again, so its lag is the sender's (a busy machine, a queue), not a stale signature.
 */
export function signingLagOf<A extends SeenAttempt>(deliveries: readonly Delivery<A>[]): number {
  let lag = 0;
  for (const { attempts } of deliveries) {
    const first = attempts[0];
    const stamp = first?.headers[Headers.timestamp] ?? '';
    if (first === undefined || !WELL_FORMED_TIMESTAMP.test(stamp)) continue;
    lag = Math.max(lag, first.arrivedAt - (Number(stamp) + 1) * 1000);
  }
  return lag;
}

/** `850 ms`, `1.25 s`. */
export function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** The clauses and levels of the delivery terms, by interface: §7's table is Interface B's, §8's retry period binds both. */
function rules(iface: InterfaceId) {
  const fixed = interfaceSpec(iface).refusals === 'fixed';
  return {
    refusalLevel: (fixed ? 'must' : 'should') as 'must' | 'should',
    refusalClauses: (status: number): string[] =>
      fixed ? (({ 400: ['§7-2'], 401: ['§7-4'], 413: ['§7-6'] } as Record<number, string[]>)[status] ?? []) : [],
    rateLevel: (fixed ? 'must' : 'should') as 'must' | 'should',
    retry5xx: fixed ? ['§7-9', '§8-4'] : ['§8-4'],
    retry429: fixed ? ['§7-8'] : ['§8-4'],
    identity: fixed ? ['§6.1-1'] : ['§2.2-4'],
  };
}

/** `202`, `204 (no body)`, `202 {"ok":true,"duplicate":true}`, `429 (Retry-After: 2)`, `a cut connection`. */
export function describeAnswerGiven(answer: Answer, unheard = false): string {
  if (unheard) return 'no answer (the sender closed the connection first)';
  switch (answer.kind) {
    case 'accepted':
      return answer.status === 204
        ? '204 (no body)'
        : answer.empty
          ? `${answer.status} (no body)`
          : String(answer.status);
    case 'duplicate':
      return '202 {"ok":true,"duplicate":true}';
    case 'error':
      return answer.status === 429 && answer.retryAfter
        ? `429 (Retry-After ${answer.retryAfter.form === 'seconds' ? `${answer.retryAfter.seconds}` : 'as an HTTP-date'})`
        : String(answer.status);
    case 'reset':
      return 'a cut connection';
  }
}

/** Every term of one delivery, at every answer it got and every retry it made. */
export function judgeDelivery<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  return [
    ...afterEachAnswer(delivery, context),
    ...growth(delivery, context),
    ...onEveryRetry(delivery, context),
    ...freshness(delivery, context.signingLagMs ?? 0),
  ];
}

/** S1, S2, S3: what came after each answer, by what the answer asked. */
function afterEachAnswer<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  const { attempts } = delivery;
  const rule = rules(context.interface);
  const findings: Finding<A>[] = [];
  // The first final answer ends the delivery; what came after it is that answer's breach, not answers of their own.
  let ended = false;
  for (const [index, attempt] of attempts.entries()) {
    if (attempt.answeredMono === undefined) continue;
    const kind = heard(attempt);
    const later = attempts.slice(index + 1);
    if (nextAfter(attempt).must === 'stop') {
      if (ended) continue;
      ended = true;
      // The same document again once the answer was out, under its event_id or a new one (a rename is sent again
      // all the same; another document under this event_id is S6's; one sent before the answer, one-at-a-time's).
      const doc = documentOf(attempt);
      const answeredAt = attempt.answeredMono;
      const again = later.filter(
        (each) =>
          each.arrivedMono >= answeredAt &&
          (doc === undefined
            ? each.key === attempt.key
            : isDeepStrictEqual(withoutEventId(documentOf(each)), withoutEventId(doc))),
      );
      const level = kind === 'accepted' ? 'should' : rule.refusalLevel;
      const clauses =
        kind === 'accepted'
          ? ['§6.5-1']
          : rule.refusalClauses(attempt.answer.kind === 'error' ? attempt.answer.status : 0);
      const first = again[0];
      if (first) {
        const late = again.some((each) => each.late) ? ', after cai stopped listening' : '';
        const renamed = again.some((each) => eventIdOfAttempt(each) !== eventIdOfAttempt(attempt));
        const verb = `${kind === 'refused' ? 'retried' : 'sent again'}${renamed ? ' under a new event_id' : ''}`;
        const actual = `${verb}: ${again.length} more attempt${again.length === 1 ? '' : 's'}, the first ${ms(first.arrivedMono - attempt.answeredMono)} after the ${describeAnswerGiven(attempt.answer)}${late}`;
        findings.push({
          term: 'stops',
          relation: 'final',
          level,
          clauses,
          verdict: 'broken',
          attempt,
          actual,
          shown: [attempt, ...again],
        });
      } else
        findings.push({
          term: 'stops',
          relation: 'final',
          level,
          clauses,
          verdict: context.complete ? 'kept' : 'undecided',
          attempt,
          ...(context.complete ? {} : { actual: 'the stage was cut short' }),
          shown: [attempt],
        });
      continue;
    }
    const next = later[0];
    const rate = kind === 'rate-limited';
    const inARow = sameClassRun(attempts, index);
    const base = {
      term: 'retried' as const,
      relation: rate ? ('rate' as const) : ('retry' as const),
      level: rate ? rule.rateLevel : kind === 'cut' ? ('should' as const) : ('must' as const),
      clauses: rate ? rule.retry429 : kind === 'cut' ? ['§8-4'] : rule.retry5xx,
      attempt,
      inARow,
    };
    if (next) {
      findings.push({ ...base, verdict: 'kept', shown: [attempt, next] });
      continue;
    }
    const first = attempts[0] as A;
    const listened = context.endedMono - first.arrivedMono;
    if (!context.complete || listened < context.waitMs) {
      findings.push({
        ...base,
        verdict: 'undecided',
        actual: `cai stopped listening ${ms(context.endedMono - attempt.answeredMono)} after the ${describeAnswerGiven(attempt.answer, attempt.unheard)}, before the end of the ${ms(context.waitMs)} cai waits from the first attempt`,
        shown: [attempt],
      });
      continue;
    }
    const run = retryableRun(attempts, index);
    findings.push({
      ...base,
      verdict: 'broken',
      actual: `given up after ${run} answer${run === 1 ? '' : 's'} asking for a retry in a row, the last ${describeAnswerGiven(attempt.answer, attempt.unheard)} (no attempt in the ${ms(context.waitMs)} cai waited from the first)`,
      shown: [attempt],
    });
  }
  findings.push(...oneAtATime(delivery));
  findings.push(...rateWaits(delivery, rule.rateLevel, rule.retry429));
  return findings;
}

/** How many answers of the class of `index`'s came in a row, up to and including it. */
function sameClassRun(attempts: readonly SeenAttempt[], index: number): number {
  const kind = heard(attempts[index] as SeenAttempt);
  let count = 0;
  for (let at = index; at >= 0 && heard(attempts[at] as SeenAttempt) === kind; at -= 1) count += 1;
  return count;
}

/** How many answers asking for a retry came in a row, up to and including `index`. */
function retryableRun(attempts: readonly SeenAttempt[], index: number): number {
  let count = 0;
  for (let at = index; at >= 0 && asksRetry(heard(attempts[at] as SeenAttempt)); at -= 1) count += 1;
  return count;
}

/**
 * S1: a document is sent again only once its attempt before was answered (or cut, or given up by the sender): §7
 * gives a client action for each answer, none while an answer is awaited.
 */
function oneAtATime<A extends SeenAttempt>(delivery: Delivery<A>): Finding<A>[] {
  const findings: Finding<A>[] = [];
  for (const [index, attempt] of delivery.attempts.entries()) {
    if (index === 0) continue;
    // One the sender gave up waiting for (it closed the connection) is no longer open, however late cai saw the close.
    const open = delivery.attempts
      .slice(0, index)
      .find(
        (earlier) =>
          !earlier.unheard && (earlier.answeredMono === undefined || earlier.answeredMono > attempt.arrivedMono),
      );
    const base = {
      term: 'one-at-a-time' as const,
      relation: 'final' as const,
      level: 'should' as const,
      clauses: [],
      attempt,
    };
    if (open)
      findings.push({
        ...base,
        verdict: 'broken',
        actual: `sent again while attempt #${delivery.attempts.indexOf(open) + 1} still awaited its answer`,
        shown: [open, attempt],
      });
    else findings.push({ ...base, verdict: 'kept', shown: [attempt] });
  }
  return findings;
}

/** S3: each retry after a 429 no earlier than the moment its Retry-After names (less the tolerance). */
function rateWaits<A extends SeenAttempt>(
  delivery: Delivery<A>,
  level: 'must' | 'should',
  clauses: readonly string[],
): Finding<A>[] {
  const findings: Finding<A>[] = [];
  for (const [index, answered] of delivery.attempts.entries()) {
    const sent = answered.retryAfter;
    const after = nextAfter(answered);
    if (
      sent === undefined ||
      answered.answeredMono === undefined ||
      after.must !== 'retry' ||
      after.notBeforeMono === undefined
    )
      continue;
    // The retry is the first attempt after the answer went out (one sent while it was awaited is one-at-a-time's).
    const from = answered.answeredMono;
    const next = delivery.attempts.slice(index + 1).find((attempt) => attempt.arrivedMono >= from);
    if (!next) continue;
    const notBefore = after.notBeforeMono;
    const asked = notBefore - answered.answeredMono;
    const line = notBefore - retryAfterToleranceMs(asked);
    const latest = next.arrivedMono;
    const earliest = latest - (next.slackMs ?? 0);
    const wait = ms(latest - answered.answeredMono);
    const text =
      sent.form === 'seconds'
        ? `retried ${wait} after a 429 with Retry-After: ${sent.header}`
        : `retried ${wait} after a 429 with Retry-After: ${sent.header}, ${ms(notBefore - latest)} before that date (it asked for ${ms(asked)})`;
    const base = {
      term: 'retry-after' as const,
      relation: 'rate' as const,
      level,
      clauses,
      attempt: answered,
      shown: [answered, next],
    };
    if (latest < line) findings.push({ ...base, verdict: 'broken', actual: text });
    else if (earliest >= line) findings.push({ ...base, verdict: 'kept' });
    else
      findings.push({
        ...base,
        verdict: 'undecided',
        actual: `${text}, but cai's loop may have been ${ms(next.slackMs ?? 0)} late to it`,
      });
  }
  return findings;
}

/**
 * S2: "exponential backoff" (§7, §8): the first BACKOFF_WAITS waits after consecutive 5xx or cut connections grow:
 * the last two add up to BACKOFF_GROWTH_FACTOR times the two shortest of the first three, and to BACKOFF_FLOOR_MS at
 * least (a retry at once is no backoff, and waits of a millisecond are too short to time to a ratio). Each wait is an interval
 * (cai's own lag); the growth holds when it holds for the shortest reading of the late waits and the longest of the
 * early ones, fails when it fails for the opposite, and is undecided between.
 */
function growth<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  const { attempts } = delivery;
  const start = attempts.findIndex((attempt) => heard(attempt) === 'unavailable' || heard(attempt) === 'cut');
  if (start < 0) return [];
  const run = attempts.slice(start, start + BACKOFF_WAITS + 1);
  if (
    run.length < BACKOFF_WAITS + 1 ||
    run.slice(0, BACKOFF_WAITS).some((attempt) => heard(attempt) !== 'unavailable' && heard(attempt) !== 'cut')
  )
    return [];
  // Waits are from an answer to the next attempt: one sent before the answer came is one-at-a-time's, not a wait.
  if (
    run
      .slice(1)
      .some((attempt, index) => attempt.arrivedMono < ((run[index] as A).answeredMono ?? Number.POSITIVE_INFINITY))
  )
    return [];
  const waits = run.slice(1).map((attempt, index) => waitBefore(run[index] as A, attempt));
  const sumOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  const early = (pick: 'earliest' | 'latest') =>
    sumOf(
      waits
        .slice(0, 3)
        .map((wait) => wait[pick])
        .sort((a, b) => a - b)
        .slice(0, 2),
    );
  const late = (pick: 'earliest' | 'latest') => sumOf(waits.slice(-2).map((wait) => wait[pick]));
  const measured = `waits ${waits.map((wait) => ms(wait.latest)).join(', ')}: the last two ${(late('latest') / Math.max(early('latest'), 1)).toFixed(1)}× the two shortest of the first three`;
  const base = {
    term: 'growth' as const,
    relation: 'retry' as const,
    level: 'must' as const,
    clauses: rules(context.interface).retry5xx,
    attempt: run[0] as A,
    shown: run,
  };
  if (late('latest') < BACKOFF_FLOOR_MS)
    return [
      {
        ...base,
        verdict: 'broken',
        actual: `${measured}: retried at once, the last two under ${BACKOFF_FLOOR_MS} ms together`,
      },
    ];
  if (late('earliest') >= BACKOFF_GROWTH_FACTOR * early('latest'))
    return [{ ...base, verdict: 'kept', actual: measured }];
  if (late('latest') < BACKOFF_GROWTH_FACTOR * early('earliest'))
    return [{ ...base, verdict: 'broken', actual: measured }];
  const slack = Math.max(...run.map((attempt) => attempt.slackMs ?? 0));
  return [
    {
      ...base,
      verdict: 'undecided',
      actual: `${measured}; cai's own loop may have been up to ${ms(slack)} late to an arrival, which leaves it open`,
    },
  ];
}

/** S4: every retry (an attempt after an answer asking for one) against the delivery's first attempt. */
function onEveryRetry<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  const [first, ...later] = delivery.attempts;
  if (!first) return [];
  const identity = rules(context.interface).identity;
  const findings: Finding<A>[] = [];
  for (const [index, retry] of later.entries()) {
    const previous = delivery.attempts[index] as A;
    if (!asksRetry(heard(previous))) continue;
    const shown = [first, retry];
    const push = (
      term: 'same-id' | 'same-document' | 'same-bytes',
      level: 'must' | 'should',
      clauses: readonly string[],
      actual: string | undefined | null,
    ) => {
      if (actual !== null)
        findings.push({
          term,
          relation: 'same',
          level,
          clauses,
          verdict: actual === undefined ? 'kept' : 'broken',
          attempt: retry,
          ...(actual !== undefined ? { actual } : {}),
          shown,
        });
    };
    const [original, again] = [eventIdOfAttempt(first), eventIdOfAttempt(retry)];
    push(
      'same-id',
      'must',
      identity,
      original === undefined
        ? null
        : again === original
          ? undefined
          : `event_id ${again === undefined ? '(none)' : JSON.stringify(again)}, the delivery's first attempt had ${JSON.stringify(original)}`,
    );
    const [doc, retried] = [documentOf(first), documentOf(retry)];
    push(
      'same-document',
      'should',
      identity,
      doc === undefined || retried === undefined
        ? null
        : isDeepStrictEqual(withoutEventId(doc), withoutEventId(retried))
          ? undefined
          : `the document differs from the first attempt's (in ${differingFields(doc, retried)})`,
    );
    push(
      'same-bytes',
      'should',
      ['§5.2-2'],
      doc === undefined || !isDeepStrictEqual(doc, retried)
        ? null
        : first.body.equals(retry.body)
          ? undefined
          : `the same document in other bytes (${first.body.length} bytes, then ${retry.body.length})`,
    );
  }
  return findings;
}

/** The top-level fields in which two documents differ, for a message: `text, occurred_at`. */
export function differingFields(a: unknown, b: unknown): string {
  if (!isObject(a) || !isObject(b)) return 'the whole body';
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !isDeepStrictEqual(a[key], b[key]));
  return keys.length > 3 ? `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more` : keys.join(', ');
}

/**
 * S5 (§5.5): each attempt signed afresh. Judged on pairs of attempts of one delivery certainly sent
 * FRESH_SIGNATURE_SPAN_MS or more apart (the span less the later one's slack): the later carries a later timestamp.
 * Arrivals are not sendings: a sender held up between signing and sending (a busy machine) brings a fresh signature
 * late. Where the span is within the sender's signing lag of the bound, the same timestamp is undecided.
 */
function freshness<A extends SeenAttempt>(delivery: Delivery<A>, signingLagMs: number): Finding<A>[] {
  const timed = delivery.attempts.filter((attempt) =>
    WELL_FORMED_TIMESTAMP.test(attempt.headers[Headers.timestamp] ?? ''),
  );
  const findings: Finding<A>[] = [];
  for (let i = 0; i < timed.length; i += 1) {
    for (let j = i + 1; j < timed.length; j += 1) {
      const [earlier, later] = [timed[i] as A, timed[j] as A];
      const span = later.arrivedMono - (later.slackMs ?? 0) - earlier.arrivedMono;
      // A request that waited in the sender's queue was signed when it was queued: its timestamp tells nothing.
      if (span < FRESH_SIGNATURE_SPAN_MS || later.queued) continue;
      const moved = Number(later.headers[Headers.timestamp]) - Number(earlier.headers[Headers.timestamp]);
      const base = {
        term: 'fresh' as const,
        relation: 'fresh' as const,
        level: 'should' as const,
        clauses: ['§5.5-1'],
        attempt: later,
        shown: [earlier, later],
      };
      const text = `attempt #${j + 1} arrived ${ms(later.arrivedMono - earlier.arrivedMono)} after #${i + 1} with ${moved === 0 ? 'the same timestamp' : `a timestamp ${-moved} s earlier`}`;
      if (moved >= 1) findings.push({ ...base, verdict: 'kept' });
      else if (span < FRESH_SIGNATURE_SPAN_MS + signingLagMs)
        findings.push({
          ...base,
          verdict: 'undecided',
          actual: `${text}, but the sender's first attempts arrived up to ${ms(signingLagMs)} after their timestamps' second: it may have been held up that long between signing and sending`,
        });
      else
        findings.push({ ...base, verdict: 'broken', actual: `${text}: a signature sent again goes stale after 300 s` });
    }
  }
  return findings;
}

// --- Across deliveries (S6) ----------------------------------------------------------------------------------------

/**
 * §6.1, §2.2: one event_id per document and one document per event_id, across deliveries, stages and runs.
 * `one-document-per-id`: a different document under the event_id of one already accepted (any 2xx, the duplicate
 * answer included) is discarded by the receiver as a repeat: lost. (A changed document on a retry after a 5xx, 429
 * or cut is S4's.) `one-id-per-document`: a delivery renamed, its document sent again under a new event_id.
 */
export function judgeIdentity<A extends SeenAttempt>(
  iface: InterfaceId,
  attempts: readonly A[],
  deliveries: readonly Delivery<A>[],
): Finding<A>[] {
  const clauses = rules(iface).identity;
  const base = { relation: 'identity' as const, level: 'must' as const, clauses };
  const findings: Finding<A>[] = [];
  const ordered = attempts
    .filter((attempt) => eventIdOfAttempt(attempt) !== undefined)
    .sort((a, b) => a.arrivedMono - b.arrivedMono);
  const accepted = new Map<string, A>();
  const ids = new Set<string>();
  for (const attempt of ordered) {
    const id = eventIdOfAttempt(attempt) as string;
    ids.add(id);
    const earlier = accepted.get(id);
    if (earlier === undefined) {
      if (heard(attempt) === 'accepted') accepted.set(id, attempt);
      continue;
    }
    if (isDeepStrictEqual(documentOf(earlier), documentOf(attempt))) continue;
    if (
      findings.some(
        (finding) =>
          eventIdOfAttempt(finding.attempt) === id &&
          isDeepStrictEqual(documentOf(finding.attempt), documentOf(attempt)),
      )
    )
      continue;
    const actual = `event_id ${JSON.stringify(id.slice(0, 80))}, accepted before, carried another document (it differs in ${differingFields(documentOf(earlier), documentOf(attempt))}): a receiver discards it as a repeat (§6.1)`;
    findings.push({
      ...base,
      term: 'one-document-per-id',
      verdict: 'broken',
      attempt,
      actual,
      shown: [earlier, attempt],
    });
  }
  // Kept: every document under an id of its own, once there are two to tell apart.
  if (ids.size >= 2 && !findings.some((finding) => finding.term === 'one-document-per-id')) {
    const first = ordered[0] as A;
    findings.push({
      ...base,
      term: 'one-document-per-id',
      verdict: 'kept',
      attempt: first,
      actual: `${ids.size} event_ids`,
      shown: [first],
    });
  }
  for (const delivery of deliveries) {
    const first = delivery.attempts[0];
    if (!first || eventIdOfAttempt(first) === undefined) continue;
    if (!delivery.renamed) {
      findings.push({ ...base, term: 'one-id-per-document', verdict: 'kept', attempt: first, shown: [first] });
      continue;
    }
    const names = [...new Set(delivery.attempts.map((attempt) => eventIdOfAttempt(attempt)))];
    const renamedAt = delivery.attempts.find((attempt) => eventIdOfAttempt(attempt) !== names[0]) as A;
    const before = delivery.attempts[delivery.attempts.indexOf(renamedAt) - 1] as A;
    const actual = `the document of event_id ${JSON.stringify(String(names[0]).slice(0, 80))} sent again under ${names.length - 1} new event_id${names.length === 2 ? '' : 's'} (the first after ${describeAnswerGiven(before.answer, before.unheard)})`;
    findings.push({
      ...base,
      term: 'one-id-per-document',
      verdict: 'broken',
      attempt: renamedAt,
      actual,
      shown: [before, renamedAt],
    });
  }
  return findings;
}
