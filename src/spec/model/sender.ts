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
 * judges each on its own, S5 and S7). The terms of time (S2, S3, S5) are ./sender-timing.ts's, read as intervals;
 * what every judge returns, a finding, is ./sender-findings.ts's.
 */
import type { InterfaceId } from '../constants.js';
import {
  asksRetry,
  sentAfterAnswer,
  documentOf,
  eventIdOfAttempt,
  heard,
  nextAfter,
  sameContent,
  sameDocument,
  type AnswerClass,
  type Delivery,
  type SeenAttempt,
} from './sender-deliveries.js';
import { describeAnswerGiven, differingFields, ms, type DeliveryContext, type Finding } from './sender-findings.js';
import { deliveryRules } from './sender-relations.js';
import { freshness, growth, rateWaits } from './sender-timing.js';
import { plural } from '../../text.js';

export * from './sender-deliveries.js';
export * from './sender-findings.js';
export { signingLagOf } from './sender-timing.js';

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
  const rule = deliveryRules(context.interface);
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
      findings.push(stopped(attempt, later, context));
      continue;
    }
    const next = later[0];
    const rate = kind === 'rate-limited';
    const base = {
      term: 'retried' as const,
      relation: rate ? ('rate' as const) : ('retry' as const),
      level: rate ? rule.rateLevel : kind === 'cut' ? ('should' as const) : ('must' as const),
      clauses: rate ? rule.retry429 : kind === 'cut' ? ['§8-4'] : rule.retry5xx,
      attempt,
      inARow: runUpTo(attempts, index, (each) => each === kind),
    };
    const listened = context.endedMono - (attempts[0] as A).arrivedMono;
    if (next) findings.push({ ...base, verdict: 'kept', shown: [attempt, next] });
    else if (!context.complete || listened < context.waitMs)
      findings.push({
        ...base,
        verdict: 'undecided',
        actual: `cai stopped listening ${ms(context.endedMono - attempt.answeredMono)} after the ${describeAnswerGiven(attempt.answer, attempt.unheard)}, before the end of the ${ms(context.waitMs)} cai waits from the first attempt`,
        shown: [attempt],
      });
    else
      findings.push({
        ...base,
        verdict: 'broken',
        actual: `given up after ${plural(runUpTo(attempts, index, asksRetry), 'answer')} asking for a retry in a row, the last ${describeAnswerGiven(attempt.answer, attempt.unheard)} (no attempt in the ${ms(context.waitMs)} cai waited from the first)`,
        shown: [attempt],
      });
  }
  findings.push(...oneAtATime(delivery));
  findings.push(...rateWaits(delivery, rule.rateLevel, rule.retry429));
  return findings;
}

/**
 * S1, after a final answer: the same document again once the answer was out, under its event_id or a new one (a
 * rename is sent again all the same; another document under this event_id is S6's; one sent before the answer,
 * one-at-a-time's).
 */
function stopped<A extends SeenAttempt>(attempt: A, later: readonly A[], context: DeliveryContext): Finding<A> {
  const rule = deliveryRules(context.interface);
  const kind = heard(attempt);
  const doc = documentOf(attempt);
  const answeredAt = attempt.answeredMono as number;
  const again = later.filter(
    (each) =>
      each.arrivedMono >= answeredAt && (doc === undefined ? each.key === attempt.key : sameContent(each, attempt)),
  );
  const status = attempt.answer.kind === 'error' ? attempt.answer.status : 0;
  const base = {
    term: 'stops' as const,
    relation: 'final' as const,
    level: kind === 'accepted' ? ('should' as const) : rule.refusalLevel,
    clauses: kind === 'accepted' ? ['§6.5-1'] : rule.refusalClauses(status),
    attempt,
  };
  // An attempt cai got to after a late answer went out may have come before it, by cai's lag (a busy machine): a
  // sender that gave up waiting (its time-out) and sent again did right. Only one surely after the answer breaks.
  const surely = again.filter((each) => sentAfterAnswer(attempt, each));
  const first = surely[0];
  if (!first && again.length > 0) {
    const maybe = again[0] as A;
    return {
      ...base,
      verdict: 'undecided',
      actual: `sent again ${ms(maybe.arrivedMono - answeredAt)} after the ${describeAnswerGiven(attempt.answer)} as cai's loop got to it, but that loop may have been ${ms(maybe.slackMs ?? 0)} late to it: it may have been sent before the answer, which went out ${ms(answeredAt - attempt.arrivedMono)} after the attempt (a sender may give up waiting)`,
      shown: [attempt, ...again],
    };
  }
  if (!first)
    return {
      ...base,
      verdict: context.complete ? 'kept' : 'undecided',
      ...(context.complete ? {} : { actual: 'the stage was cut short' }),
      shown: [attempt],
    };
  const late = surely.some((each) => each.late) ? ', after cai stopped listening' : '';
  const renamed = surely.some((each) => eventIdOfAttempt(each) !== eventIdOfAttempt(attempt));
  const verb = `${kind === 'refused' ? 'retried' : 'sent again'}${renamed ? ' under a new event_id' : ''}`;
  return {
    ...base,
    verdict: 'broken',
    actual: `${verb}: ${plural(surely.length, 'more attempt')}, the first ${ms(first.arrivedMono - answeredAt)} after the ${describeAnswerGiven(attempt.answer)}${late}`,
    shown: [attempt, ...surely],
  };
}

/** How many answers came in a row up to and including `index`'s, each of a class `alike` takes. */
function runUpTo(attempts: readonly SeenAttempt[], index: number, alike: (kind: AnswerClass) => boolean): number {
  let count = 0;
  for (let at = index; at >= 0 && alike(heard(attempts[at] as SeenAttempt)); at -= 1) count += 1;
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

/** S4: every retry (an attempt after an answer asking for one) against the delivery's first attempt. */
function onEveryRetry<A extends SeenAttempt>(delivery: Delivery<A>, context: DeliveryContext): Finding<A>[] {
  const [first, ...later] = delivery.attempts;
  if (!first) return [];
  const identity = deliveryRules(context.interface).identity;
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
        : sameContent(first, retry)
          ? undefined
          : `the document differs from the first attempt's (in ${differingFields(doc, retried)})`,
    );
    push(
      'same-bytes',
      'should',
      ['§5.2-2'],
      doc === undefined || !sameDocument(first, retry)
        ? null
        : first.body.equals(retry.body)
          ? undefined
          : `the same document in other bytes (${first.body.length} bytes, then ${retry.body.length})`,
    );
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
  const clauses = deliveryRules(iface).identity;
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
    if (sameDocument(earlier, attempt)) continue;
    if (findings.some((finding) => eventIdOfAttempt(finding.attempt) === id && sameDocument(finding.attempt, attempt)))
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
