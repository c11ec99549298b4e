/**
 * Safe retries: a repeated event_id is recognised (§6.1 and §2.13 on B; §2.2 on A), even when the repeats
 * arrive at once, and authentication comes before the duplicate lookup. The concurrency and the
 * failed-authentication repeat are shared by both interfaces; what counts as "the same answer" is each one's.
 */
import { isDuplicateAck } from '../../spec/acknowledgment.js';
import type { InterfaceId } from '../../spec/constants.js';
import { compact } from '../bodies.js';
import { defineCheck, expectStatus, type CheckDefinition, type CheckScope } from '../define.js';
import { isAccepted, statusMatches, UNAUTHORISED } from '../expectations.js';
import { describeAnswer, fail, pass, skip } from '../outcomes.js';
import { CONCURRENT_DELIVERIES, CONCURRENT_ROUNDS, REPEAT_GRACE_MIN_MS } from '../settings.js';
import type { CheckOutcome, CheckMeta, Exchange } from '../types.js';
import { eventOf, gatherJob, gatherMore, isFinal, NO_LISTENER, type JobEvents } from './callback-evidence.js';
import { anotherSecret, appliesTo, checkId, event, EVENTS_RECEIVER, forBoth, job, JOBS_RECEIVER, providerJobIdOf, type Receiver } from './receivers.js';

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

/**
 * Identifiers compare exactly (§6.1, §2.2: a repeated *value*; RFC 8259 §8.3: JSON strings are equal when their
 * code units are): an event_id that differs from an accepted one only in case, in Unicode normalisation, or by a
 * trailing space is another event, answered as new. A receiver that folds case (a case-insensitive collation),
 * normalises or trims its keys discards a real event as a repeat.
 */
interface DistinctIds {
  ids: Partial<Record<InterfaceId, string>>;
  /** After "an event_id that differs from an accepted one only ". */
  differs: string;
  /** The first event_id and the second, from a fresh one. */
  pair(fresh: string): [string, string];
}

const DISTINCT_IDS: readonly DistinctIds[] = [
  { ids: { B: 'B-DEDUP-006', A: 'A-DEDUP-004' }, differs: 'in case', pair: (fresh) => [fresh, fresh.toUpperCase()] },
  { ids: { B: 'B-DEDUP-007', A: 'A-DEDUP-005' }, differs: 'in Unicode normalisation (NFC é, then NFD e + U+0301)', pair: (fresh) => [`${fresh}-caf\u00e9`, `${fresh}-cafe\u0301`] },
  { ids: { B: 'B-DEDUP-008', A: 'A-DEDUP-006' }, differs: 'by a trailing space', pair: (fresh) => [fresh, `${fresh} `] },
];

/** An id as JSON, with everything outside printable ASCII escaped, so the two spellings can be told apart. */
function visible(id: string): string {
  return JSON.stringify(id).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const distinctIds = forBoth((receiver) =>
  DISTINCT_IDS.filter((row) => appliesTo(receiver, row.ids)).map((row) =>
    defineCheck({
      id: checkId(receiver, row.ids), interface: receiver.interface, level: 'must', sections: receiver.interface === 'B' ? ['§6.1', '§2.4', '§2.13'] : ['§2.2', '§4.1'], tags: ['dedupe', 'identifiers'],
      title: `an event_id that differs from an accepted one only ${row.differs} is a new ${receiver.interface === 'B' ? 'event' : 'job'}`,
      run: async (scope) => {
        const [firstId, secondId] = row.pair(scope.eventId());
        const first = await scope.send({ body: compact({ ...receiver.document(scope), event_id: firstId }) });
        if (!isAccepted(first)) return firstNotAccepted(first);
        const second = await scope.send({ body: compact({ ...receiver.document(scope), event_id: secondId }) });
        const expected = `2xx for ${visible(secondId)}, not answered as a repeat of ${visible(firstId)}`;
        if (!isAccepted(second)) return fail(expected, describeAnswer(second), second);
        return receiver.answeredAsRepeat(first, second) ? fail(expected, `${describeAnswer(second)}: answered as a repeat`, second) : pass(expected, describeAnswer(second));
      },
    }),
  ),
);

/** appointment.booked and job.closed: the results a conversation ends in (§3 step 5), each once per handling. */
function endingsOf(events: JobEvents): number {
  return events.requests.filter((request) => {
    const type = eventOf(request)?.event;
    return type === 'appointment.booked' || type === 'job.closed';
  }).length;
}

/** A job's events until its first final event, then half as long again (at least REPEAT_GRACE_MIN_MS). */
async function throughItsEnd(scope: CheckScope, events: JobEvents | undefined): Promise<JobEvents | undefined> {
  if (!events) return undefined;
  const final = events.requests.find((request) => isFinal(eventOf(request)?.event));
  if (!final) return events;
  const took = final.arrivedAt - events.startedAt;
  return gatherMore(scope, events, final.arrivedAt + Math.max(REPEAT_GRACE_MIN_MS, took / 2) - Date.now());
}

/**
 * §2.2: a repeated event_id is ignored, so a job sent twice starts one conversation. Judged by what follows the
 * acknowledgment: the job sent twice must not end more often than the same job sent once (a second conversation
 * books or closes a second time).
 */
const repeatStartsNothing = defineCheck({
  id: 'A-DEDUP-007', interface: 'A', level: 'must', sections: ['§2.2', '§3'], tags: ['dedupe', 'callback'], needs: 'callback',
  title: 'a repeated job starts no second conversation (no second ending among its events)',
  run: async (scope) => {
    if (!scope.session.callback) return skip(NO_LISTENER);
    const [once, twice] = await Promise.all([
      gatherJob(scope, { name: 'sent-once' }).then((events) => throughItsEnd(scope, events)),
      gatherJob(scope, { name: 'sent-twice', twice: true }).then((events) => throughItsEnd(scope, events)),
    ]);
    if (!once || !twice) return skip(NO_LISTENER);
    if (!isAccepted(twice.job)) return firstNotAccepted(twice.job);
    if (!twice.repeat || !isAccepted(twice.repeat)) return pass('the repeat ignored', `the repeat was answered ${twice.repeat ? describeAnswer(twice.repeat) : '(not sent)'}: nothing started (A-DEDUP-001 judges the answer)`);
    const baseline = Math.max(1, endingsOf(once));
    const expected = `at most ${baseline} ending event(s) (appointment.booked, job.closed), as for the same job sent once`;
    const endings = endingsOf(twice);
    const actual = `${endings} ending event(s) among ${twice.requests.length} events in ${(twice.waitedMs / 1000).toFixed(1)} s`;
    return endings <= baseline ? pass(expected, actual) : fail(expected, `${actual}: a second conversation`);
  },
});

export const duplicates = {
  B: [...eventsDuplicates, ...(distinctIds.B ?? [])],
  A: [...jobsDuplicates, ...(distinctIds.A ?? []), repeatStartsNothing],
};
