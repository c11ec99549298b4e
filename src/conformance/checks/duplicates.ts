/**
 * Safe retries: a repeated event_id is recognised (§6.1 and §2.13 on B; §2.2 on A), even when the repeats
 * arrive at once, and authentication comes before the duplicate lookup. The concurrency and the
 * failed-authentication repeat are shared by both interfaces; what counts as "the same answer" is each one's.
 */
import { isDuplicateAck } from '../../spec/acknowledgment.js';
import { compact } from '../bodies.js';
import { defineCheck, expectStatus, type CheckDefinition, type CheckScope } from '../define.js';
import { isAccepted, statusMatches, UNAUTHORISED } from '../expectations.js';
import { describeAnswer, fail, parseJson, pass } from '../outcomes.js';
import { CONCURRENT_DELIVERIES, CONCURRENT_ROUNDS } from '../settings.js';
import type { CheckOutcome, CheckMeta, Exchange } from '../types.js';
import { anotherSecret, event, EVENTS_RECEIVER, job, JOBS_RECEIVER, type Receiver } from './receivers.js';

const DUPLICATE = '202 {"ok":true,"duplicate":true}';
const SAME_ACK = '202 with the same provider_job_id as the first delivery';

type Entry = Pick<CheckMeta, 'id' | 'title' | 'sections'>;

/** The first delivery of a repeat test must be accepted; this is the failure when it is not. */
function firstNotAccepted(first: Exchange): CheckOutcome {
  return fail('202 for the first delivery', describeAnswer(first), first);
}

/**
 * `CONCURRENT_DELIVERIES` simultaneous deliveries of one event_id, `CONCURRENT_ROUNDS` times: a
 * check-then-insert race shows up in at least one round. `judge` returns a failure for a round, or nothing.
 */
function concurrentRepeats(
  receiver: Receiver,
  entry: Entry,
  judge: (answers: Exchange[], round: number) => CheckOutcome | undefined,
  passed: () => CheckOutcome,
): CheckDefinition {
  return defineCheck({
    ...entry, interface: receiver.interface, level: 'must', tags: ['dedupe', 'concurrency'],
    run: async (scope) => {
      for (let round = 1; round <= CONCURRENT_ROUNDS; round += 1) {
        const body = compact(receiver.document(scope));
        const answers = await scope.sendAll(Array.from({ length: CONCURRENT_DELIVERIES }, () => ({ body })));
        const notAccepted = answers.find((answer) => !isAccepted(answer));
        if (notAccepted) return fail('202 for every delivery', describeAnswer(notAccepted), notAccepted);
        const failure = judge(answers, round);
        if (failure) return failure;
      }
      return passed();
    },
  });
}

/** Accepted once, then repeated with a wrong signature: refused, never answered as a duplicate (§5.5). */
function repeatFailingAuthentication(receiver: Receiver, entry: Entry): CheckDefinition {
  return defineCheck({
    ...entry, interface: receiver.interface, level: 'must', tags: ['dedupe', 'auth'],
    run: async (scope) => {
      const body = compact(receiver.document(scope));
      const first = await scope.send({ body });
      if (!isAccepted(first)) return firstNotAccepted(first);
      return expectStatus(scope, { body, signature: { kind: 'wrong-secret', secret: anotherSecret() } }, receiver.refuses.authentication.expect);
    },
  });
}

/** Sends a repeat and judges its answer by §2.13. */
async function expectDuplicateAnswer(scope: CheckScope, repeat: Buffer): Promise<CheckOutcome> {
  const answer = await scope.send({ body: repeat });
  return isDuplicateAck(answer) ? pass(DUPLICATE, describeAnswer(answer)) : fail(DUPLICATE, describeAnswer(answer), answer);
}

const eventsDuplicates: CheckDefinition[] = [
  defineCheck({
    id: 'B-DEDUP-001', interface: 'B', level: 'must', sections: ['§6.1', '§2.13', '§7'], tags: ['dedupe'],
    title: 'a sequential repeat of an event_id is answered 202 {"ok":true,"duplicate":true}',
    run: async (scope) => {
      const body = compact(event(scope));
      const first = await scope.send({ body });
      if (!isAccepted(first)) return firstNotAccepted(first);
      if (isDuplicateAck(first)) return fail('the first delivery not marked duplicate', describeAnswer(first), first);
      return expectDuplicateAnswer(scope, body);
    },
  }),
  concurrentRepeats(
    EVENTS_RECEIVER,
    { id: 'B-DEDUP-002', title: 'concurrent repeats of one event_id: exactly one is counted as new', sections: ['§6.1', '§2.13'] },
    (answers, round) => {
      const fresh = answers.filter((answer) => !isDuplicateAck(answer));
      if (fresh.length === 1) return undefined;
      const n = CONCURRENT_DELIVERIES;
      return fail(`1 of ${n} concurrent deliveries new, ${n - 1} ${DUPLICATE}`, `round ${round}: ${fresh.length} of ${n} answered as new`, fresh[1] ?? answers[0]);
    },
    () => {
      const n = CONCURRENT_DELIVERIES;
      return pass(`1 of ${n} concurrent deliveries new, ${n - 1} duplicates (${CONCURRENT_ROUNDS} rounds)`, `1 new, ${n - 1} duplicates in each of ${CONCURRENT_ROUNDS} rounds`);
    },
  ),
  repeatFailingAuthentication(EVENTS_RECEIVER, {
    id: 'B-DEDUP-003',
    title: 'a repeat that fails authentication gets 401, never a duplicate answer',
    sections: ['§5.5', '§7', '§6.1'],
  }),
  defineCheck({
    id: 'B-DEDUP-004', interface: 'B', level: 'must', sections: ['§6.1', '§7'], tags: ['dedupe', 'auth'],
    title: 'an event rejected with 401 is not recorded: the same event correctly signed is then new',
    run: async (scope) => {
      const body = compact(event(scope));
      const forged = await scope.send({ body, signature: { kind: 'wrong-secret', secret: anotherSecret() } });
      if (!statusMatches(forged, UNAUTHORISED)) return fail('401 for the wrongly signed delivery', describeAnswer(forged), forged);
      const genuine = await scope.send({ body });
      if (!isAccepted(genuine) || isDuplicateAck(genuine)) return fail('202, not marked duplicate', describeAnswer(genuine), genuine);
      return pass('202, not marked duplicate', describeAnswer(genuine));
    },
  }),
  defineCheck({
    id: 'B-DEDUP-005', interface: 'B', level: 'must', sections: ['§6.1', '§2.13'], tags: ['dedupe'],
    title: 'a repeat with the same event_id but a changed body is still a duplicate',
    run: async (scope) => {
      const doc = event(scope);
      const first = await scope.send({ body: compact(doc) });
      if (!isAccepted(first)) return firstNotAccepted(first);
      return expectDuplicateAnswer(scope, compact({ ...doc, text: `${String(doc.text ?? '')} (edited)` }));
    },
  }),
];

/** The provider_job_id of an acknowledgment as sent (any JSON value), to compare two answers. */
function providerJobIdOf(exchange: Exchange): unknown {
  const value = parseJson(exchange.body);
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>).provider_job_id : undefined;
}

const jobsDuplicates: CheckDefinition[] = [
  defineCheck({
    id: 'A-DEDUP-001', interface: 'A', level: 'must', sections: ['§2.2', '§8'], tags: ['dedupe'],
    title: 'a repeated event_id gets the same acknowledgment and starts no second job',
    run: async (scope) => {
      const body = compact(job(scope));
      const first = await scope.send({ body });
      if (!isAccepted(first)) return firstNotAccepted(first);
      const repeat = await scope.send({ body });
      const a = providerJobIdOf(first);
      const b = providerJobIdOf(repeat);
      if (!isAccepted(repeat)) return fail(SAME_ACK, describeAnswer(repeat), repeat);
      return a !== undefined && a === b ? pass(SAME_ACK, describeAnswer(repeat)) : fail(SAME_ACK, `first ${JSON.stringify(a)}, repeat ${JSON.stringify(b)}`, repeat);
    },
  }),
  concurrentRepeats(
    JOBS_RECEIVER,
    { id: 'A-DEDUP-002', title: 'concurrent repeats of one event_id all get the same provider_job_id', sections: ['§2.2'] },
    (answers, round) => {
      const ids = new Set(answers.map((answer) => JSON.stringify(providerJobIdOf(answer))));
      if (ids.size === 1) return undefined;
      return fail(`one provider_job_id for ${CONCURRENT_DELIVERIES} concurrent deliveries`, `round ${round}: ${ids.size} different provider_job_ids`, answers[0]);
    },
    () => pass(`one provider_job_id for ${CONCURRENT_DELIVERIES} concurrent deliveries (${CONCURRENT_ROUNDS} rounds)`, 'one provider_job_id in each round'),
  ),
  repeatFailingAuthentication(JOBS_RECEIVER, {
    id: 'A-DEDUP-003',
    title: 'a repeat that fails authentication is rejected, not acknowledged',
    sections: ['§4.1', '§5.5', '§2.2'],
  }),
];

export const duplicates = { B: eventsDuplicates, A: jobsDuplicates };
