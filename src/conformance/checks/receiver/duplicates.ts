/**
 * Safe retries: a repeated event_id is recognised (§6.1 and §2.13 on B; §2.2 on A), even when the repeats
 * arrive at once, and authentication comes before the duplicate lookup. The concurrency and the
 * failed-authentication repeat are shared by both interfaces; what counts as "the same answer" is each one's.
 * Each check gathers its requests in order, stopping where the next would prove nothing (a first delivery not
 * accepted), and judges what it gathered.
 */
import type { InterfaceId } from '../../../spec/constants.js';
import { concurrentBreach, type Expectation } from '../../../spec/model/receiver.js';
import {
  defineCheck,
  failed,
  notJudged,
  passed,
  type CheckMeta,
  type Outcome,
  type ReceiverCheck,
} from '../../check.js';
import { describeAnswer, type Exchange } from '../../evidence.js';
import { MAX_BODY_BYTES, SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { bodyOfSize, compact, withPath, type Doc } from '../../probe/bodies.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import { answerOf, expectedOf, isAccepted, judgeAnswer, type Focus } from '../../probe/verdict.js';
import type { ProbeScope } from '../../probe/scope.js';
import {
  CONCURRENT_DELIVERIES,
  CONCURRENT_ROUNDS,
  DEDUPE_MEMORY_OTHERS,
  WINDOW_MARGIN_SECONDS,
} from '../../tolerances.js';
import {
  anotherSecret,
  appliesTo,
  checkId,
  event,
  EVENTS_RECEIVER,
  forBoth,
  job,
  JOBS_RECEIVER,
  type Receiver,
} from './receivers.js';

type Entry = Pick<CheckMeta, 'id' | 'title' | 'sections' | 'clauses'>;

/** A first delivery and what followed it: the evidence of most repeat checks. */
interface Repeat {
  first: Exchange;
  second: Exchange;
}

/** What a repeat check reads of the second answer: its status and whether it was answered as a repeat (or as new). */
const AS_REPEAT: Focus = { level: 'must', terms: ['outcome', 'repeat'] };
const AS_NEW: Focus = { level: 'must', terms: ['outcome', 'new'] };
const OUTCOME: Focus = { level: 'must' };
/** A new document, after a refusal of the same event_id: accepted, and not answered as a repeat. */
const AS_NEW_DOCUMENT: Focus = { level: 'must', terms: ['outcome', 'new'] };

/** Sends `first`, then, once it is accepted, `second`. */
async function sendThenRepeat(
  scope: ProbeScope,
  first: () => Parameters<ProbeScope['send']>[0],
  second: () => Parameters<ProbeScope['send']>[0],
): Promise<Partial<Repeat>> {
  const answer = await scope.send(first());
  if (!isAccepted(answer) || scope.session.signal.aborted) return { first: answer };
  return { first: answer, second: await scope.send(second()) };
}

/**
 * A repeat check's judgement: the first delivery as the model expects it (accepted, and with `firstAs`, judged on
 * that focus too), then the second on `secondAs`. Both answers are shown when the second is wrong.
 */
function judgePair(evidence: Partial<Repeat>, secondAs: Focus, firstAs: Focus = OUTCOME): Outcome {
  if (!evidence.first) return notJudged('no request was sent');
  const first = judgeAnswer(evidence.first, firstAs);
  if (first.verdict !== 'passed') return first;
  if (!evidence.second) return notJudged('the second delivery was not sent');
  const second = judgeAnswer(evidence.second, secondAs);
  return second.verdict === 'failed' ? { ...second, exchanges: [evidence.first, evidence.second] } : second;
}

interface Rounds {
  /** The answers of each round of simultaneous deliveries. */
  rounds: Exchange[][];
}

/**
 * `CONCURRENT_DELIVERIES` simultaneous deliveries of one event_id, `CONCURRENT_ROUNDS` times: a check-then-insert
 * race shows up in at least one round. Each round is judged by the model as a group (exactly one is new on B, one
 * provider_job_id on A).
 */
function concurrentRepeats(receiver: Receiver, entry: Entry): ReceiverCheck<Rounds> {
  return defineCheck<Rounds>({
    ...entry,
    interface: receiver.interface,
    level: 'must',
    tags: ['dedupe', 'concurrency'],
    gather: async (scope) => {
      const rounds: Exchange[][] = [];
      for (let round = 1; round <= CONCURRENT_ROUNDS && !scope.session.signal.aborted; round += 1) {
        const body = compact(receiver.document(scope));
        const answers = await scope.sendAll(Array.from({ length: CONCURRENT_DELIVERIES }, () => ({ body })));
        rounds.push(answers);
        if (answers.some((answer) => !isAccepted(answer))) break;
      }
      return { rounds };
    },
    judge: ({ rounds }) => {
      if (!rounds || rounds.length === 0) return notJudged('no request was sent');
      const expected = `${CONCURRENT_DELIVERIES} deliveries of one event_id at once: ${receiver.spec.document === 'event' ? 'exactly one new, the others answered as repeats' : 'one provider_job_id for all'}`;
      for (const [index, answers] of rounds.entries()) {
        // One request of a burst, sent alone, does not show what the burst did: the reproduction runs the check again.
        const wrong = answers.find((answer) => judgeAnswer(answer, OUTCOME).verdict === 'failed');
        if (wrong) return { ...judgeAnswer(wrong, OUTCOME), runAgain: true };
        const breach = concurrentBreach(
          receiver.interface,
          answers.map((answer) => answer.expected as Expectation),
          answers.map(answerOf),
        );
        if (breach)
          return {
            ...failed(expected, `round ${index + 1}: ${breach}`, { exchanges: answers.slice(0, 2) }),
            runAgain: true,
          };
      }
      return rounds.length < CONCURRENT_ROUNDS
        ? notJudged(`${rounds.length} of ${CONCURRENT_ROUNDS} rounds sent`)
        : passed(`${expected} (${CONCURRENT_ROUNDS} rounds)`, `as expected in each of ${CONCURRENT_ROUNDS} rounds`);
    },
  });
}

/** Accepted once, then repeated with a wrong signature: refused, never answered as a duplicate (§5.5). */
function repeatFailingAuthentication(receiver: Receiver, entry: Entry): ReceiverCheck<Repeat> {
  return defineCheck<Repeat>({
    ...entry,
    interface: receiver.interface,
    level: 'must',
    tags: ['dedupe', 'auth'],
    gather: (scope) => {
      const body = compact(receiver.document(scope));
      return sendThenRepeat(
        scope,
        () => ({ body }),
        () => ({ body, signature: { kind: 'wrong-secret', secret: anotherSecret() } }),
      ) as Promise<Repeat>;
    },
    judge: (evidence) => judgePair(evidence, OUTCOME),
  });
}

const eventsDuplicates: ReceiverCheck[] = [
  defineCheck<Repeat>({
    id: 'B-DEDUP-001',
    interface: 'B',
    level: 'must',
    sections: ['§6.1', '§2.13', '§7'],
    clauses: ['§6.1-2', '§2.13-1'],
    tags: ['dedupe'],
    title: 'a sequential repeat of an event_id is answered 202 {"ok":true,"duplicate":true}',
    gather: (scope) => {
      const body = compact(event(scope));
      return sendThenRepeat(
        scope,
        () => ({ body }),
        () => ({ body }),
      ) as Promise<Repeat>;
    },
    judge: (evidence) => judgePair(evidence, AS_REPEAT, AS_NEW),
  }),
  concurrentRepeats(EVENTS_RECEIVER, {
    id: 'B-DEDUP-002',
    title: 'concurrent repeats of one event_id: exactly one is counted as new',
    sections: ['§6.1', '§2.13'],
    clauses: ['§6.1-2', '§6.1-3'],
  }),
  repeatFailingAuthentication(EVENTS_RECEIVER, {
    id: 'B-DEDUP-003',
    title: 'a repeat that fails authentication gets 401, never a duplicate answer',
    sections: ['§5.5', '§7', '§6.1'],
    clauses: ['§5.1-1', '§7-3'],
  }),
  defineCheck<Repeat>({
    id: 'B-DEDUP-004',
    interface: 'B',
    level: 'must',
    sections: ['§6.1', '§7'],
    clauses: ['§6.1-3', '§7-3'],
    tags: ['dedupe', 'auth'],
    title: 'an event rejected with 401 is not recorded: the same event correctly signed is then new',
    gather: async (scope) => {
      const body = compact(event(scope));
      const first = await scope.send({ body, signature: { kind: 'wrong-secret', secret: anotherSecret() } });
      if (judgeAnswer(first, OUTCOME).verdict !== 'passed' || scope.session.signal.aborted) return { first } as Repeat;
      return { first, second: await scope.send({ body }) };
    },
    judge: (evidence) => judgePair(evidence, AS_NEW),
  }),
  defineCheck<Repeat>({
    id: 'B-DEDUP-005',
    interface: 'B',
    level: 'must',
    sections: ['§6.1', '§2.13'],
    clauses: ['§6.1-2', '§6.1-3'],
    tags: ['dedupe'],
    title: 'a repeat with the same event_id but a changed body is still a duplicate',
    gather: (scope) => {
      const doc = event(scope);
      return sendThenRepeat(
        scope,
        () => ({ body: compact(doc) }),
        () => ({ body: compact({ ...doc, text: `${String(doc.text ?? '')} (edited)` }) }),
      ) as Promise<Repeat>;
    },
    judge: (evidence) => judgePair(evidence, AS_REPEAT),
  }),
];

const jobsDuplicates: ReceiverCheck[] = [
  defineCheck<Repeat>({
    id: 'A-DEDUP-001',
    interface: 'A',
    level: 'must',
    sections: ['§2.2', '§8'],
    clauses: ['§2.2-5'],
    tags: ['dedupe'],
    title: 'a repeated event_id gets the same acknowledgment and starts no second job',
    gather: (scope) => {
      const body = compact(job(scope));
      return sendThenRepeat(
        scope,
        () => ({ body }),
        () => ({ body }),
      ) as Promise<Repeat>;
    },
    judge: (evidence) => judgePair(evidence, AS_REPEAT),
  }),
  concurrentRepeats(JOBS_RECEIVER, {
    id: 'A-DEDUP-002',
    title: 'concurrent repeats of one event_id all get the same provider_job_id',
    sections: ['§2.2'],
    clauses: ['§2.2-5'],
  }),
  repeatFailingAuthentication(JOBS_RECEIVER, {
    id: 'A-DEDUP-003',
    title: 'a repeat that fails authentication is rejected, not acknowledged',
    sections: ['§4.1', '§5.5', '§2.2'],
    clauses: ['§4.1-6', '§5.1-1'],
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
  {
    ids: { B: 'B-DEDUP-007', A: 'A-DEDUP-005' },
    differs: 'in Unicode normalisation (NFC é, then NFD e + U+0301)',
    pair: (fresh) => [`${fresh}-caf\u00e9`, `${fresh}-cafe\u0301`],
  },
  {
    ids: { B: 'B-DEDUP-008', A: 'A-DEDUP-006' },
    differs: 'by a trailing space',
    pair: (fresh) => [fresh, `${fresh} `],
  },
];

/** Where the rule of a repeated value stands, and the identifier's own section, on each interface. */
const DISTINCT_SECTIONS: Readonly<Record<InterfaceId, readonly string[]>> = {
  B: ['§6.1', '§2.4', '§2.13'],
  A: ['§2.2', '§4.1'],
};

/** An id as JSON, with everything outside printable ASCII escaped, so the two spellings can be told apart. */
function visible(id: string): string {
  return JSON.stringify(id).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

interface DistinctEvidence extends Repeat {
  ids: [string, string];
}

const distinctIds = forBoth((receiver) =>
  DISTINCT_IDS.filter((row) => appliesTo(receiver, row.ids)).map((row) =>
    defineCheck<DistinctEvidence>({
      id: checkId(receiver, row.ids),
      interface: receiver.interface,
      level: 'must',
      sections: DISTINCT_SECTIONS[receiver.interface],
      clauses: receiver.spec.repeatClauses,
      tags: ['dedupe', 'identifiers'],
      title: `an event_id that differs from an accepted one only ${row.differs} is a new ${receiver.spec.noun}`,
      gather: async (scope) => {
        const ids = row.pair(scope.eventId());
        const sent = await sendThenRepeat(
          scope,
          () => ({ body: compact({ ...receiver.document(scope), event_id: ids[0] }) }),
          () => ({ body: compact({ ...receiver.document(scope), event_id: ids[1] }) }),
        );
        return { ...sent, ids } as DistinctEvidence;
      },
      judge: (evidence) => {
        if (!evidence.ids) return notJudged('the two event_ids sent are not known');
        const [firstId, secondId] = evidence.ids;
        const outcome = judgePair(evidence, AS_NEW);
        return {
          ...outcome,
          expected: `${outcome.expected} for ${visible(secondId)}, not a repeat of ${visible(firstId)}`,
        };
      },
    }),
  ),
);

/**
 * The memory of repeats (§6.1: a retry never creates a second record, whenever it comes; §2.2 on A): an accepted
 * event_id is still recognised after `DEDUPE_MEMORY_OTHERS` other documents, then after the session's wait (a few
 * seconds). A receiver that keeps only the last few ids, or forgets them after a short cache time, answers the late
 * repeat as new.
 */
interface MemoryEvidence {
  first?: Exchange;
  /** The first of the other documents not accepted, when one was not: the later cases are then not sent. */
  otherRefused?: Exchange;
  afterOthers?: Exchange;
  afterWait?: Exchange;
  waitedMs?: number;
}

const repeatMemory = forBoth((receiver) => [
  defineCheck<MemoryEvidence>({
    id: checkId(receiver, { B: 'B-DEDUP-009', A: 'A-DEDUP-008' }),
    interface: receiver.interface,
    level: 'must',
    sections: receiver.spec.repeatSections,
    clauses: receiver.spec.repeatClauses,
    tags: ['dedupe'],
    title: `a repeat is recognised after ${DEDUPE_MEMORY_OTHERS} other ${receiver.spec.noun}s, and again seconds later`,
    // On A every job starts a conversation whose events come back to cai's listener: so many at once would delay the
    // callbacks the callback checks wait for, so the check runs alone, after them.
    ...(receiver.spec.acceptanceStartsConversation ? { exclusive: true } : {}),
    gather: async (scope) => {
      const body = compact(receiver.document(scope));
      const first = await scope.send({ body });
      if (!isAccepted(first)) return { first };
      // The others in waves, as many at once as the concurrent-repeat checks send.
      for (let sent = 0; sent < DEDUPE_MEMORY_OTHERS && !scope.session.signal.aborted; sent += CONCURRENT_DELIVERIES) {
        const wave = Array.from({ length: Math.min(CONCURRENT_DELIVERIES, DEDUPE_MEMORY_OTHERS - sent) }, () => ({
          body: compact(receiver.document(scope)),
        }));
        const refused = (await scope.sendAll(wave)).find((answer) => !isAccepted(answer));
        if (refused) return { first, otherRefused: refused };
      }
      if (scope.session.signal.aborted) return { first };
      const afterOthers = await scope.send({ body });
      const started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, scope.session.dedupeMemoryWaitMs));
      if (scope.session.signal.aborted) return { first, afterOthers };
      const afterWait = await scope.send({ body });
      return { first, afterOthers, afterWait, waitedMs: Date.now() - started };
    },
    judge: ({ first, otherRefused, afterOthers, afterWait, waitedMs }) => {
      if (!first) return notJudged('no request was sent');
      const accepted = judgeAnswer(first, OUTCOME);
      if (accepted.verdict !== 'passed') return accepted;
      if (otherRefused)
        return notJudged(
          `one of the ${DEDUPE_MEMORY_OTHERS} other documents was not accepted: ${describeAnswer(otherRefused)}`,
        );
      if (afterWait !== undefined && waitedMs === undefined)
        return notJudged('how long the repeat waited is not known');
      const cases: [string, Exchange | undefined][] = [
        [`after ${DEDUPE_MEMORY_OTHERS} other documents`, afterOthers],
        [`${((waitedMs ?? 0) / 1000).toFixed(1)} s later`, afterWait],
      ];
      for (const [when, repeat] of cases) {
        if (!repeat) return notJudged(`the repeat ${when} was not sent`);
        const outcome = judgeAnswer(repeat, AS_REPEAT);
        if (outcome.verdict === 'failed')
          return failed(`${outcome.expected} ${when}`, `${when}: ${outcome.actual}`, { exchanges: [first, repeat] });
      }
      return passed(
        `${expectedOf(afterOthers as Exchange, AS_REPEAT)}, after ${DEDUPE_MEMORY_OTHERS} other documents and seconds later`,
        `answered as a repeat both times (the second ${cases[1]?.[0]})`,
      );
    },
  }),
]);

/**
 * Side effects (§6.1: only an accepted event is recorded; §7): a document refused for its schema, its size or its
 * timestamp leaves no trace. The valid document with the same event_id, sent next, is new: accepted and not
 * answered as a repeat. A receiver that records the id before it validates the document (or reads its size, or its
 * timestamp) discards the corrected retry as a duplicate: the event is lost.
 */
interface Refused {
  name: string;
  refused(doc: Doc): RequestRecipe;
  /** §8 states the size limit for Interface B only: the row is for a receiver it binds. */
  sizeLimit?: true;
}

const REFUSED: readonly Refused[] = [
  {
    name: 'refused for its schema (an unknown channel/origin.channel)',
    refused: (doc) => ({
      body: compact(
        'channel' in doc ? withPath(doc, 'channel', 'carrier_pigeon') : withPath(doc, 'origin.channel', 'fax'),
      ),
    }),
  },
  {
    name: 'refused for a field of the wrong type (event_id kept, the phone number a number)',
    refused: (doc) => ({
      body: compact(
        'from_number_e164' in doc
          ? withPath(doc, 'from_number_e164', 34600000000)
          : withPath(doc, 'contact.phone_e164', 34600000000),
      ),
    }),
  },
  {
    name: `refused for its size (${MAX_BODY_BYTES + 1} bytes)`,
    refused: (doc) => ({ body: bodyOfSize(doc, 'text', MAX_BODY_BYTES + 1) }),
    sizeLimit: true,
  },
  {
    name: `refused for its timestamp (${SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS} s old)`,
    refused: (doc) => ({
      body: compact(doc),
      timestamp: { kind: 'now', shiftSeconds: -(SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS) },
    }),
  },
];

interface TracePair {
  name: string;
  refused: Exchange;
  valid?: Exchange;
}

const noTrace = forBoth((receiver) => {
  const rows = REFUSED.filter((row) => !row.sizeLimit || receiver.spec.sizeLimitStated);
  return [
    defineCheck<{ pairs: TracePair[] }>({
      id: checkId(receiver, { B: 'B-DEDUP-010', A: 'A-DEDUP-009' }),
      interface: receiver.interface,
      level: 'must',
      sections: [receiver.spec.repeatSections[0] as string, receiver.spec.refusalSection],
      clauses: receiver.spec.repeatClauses,
      tags: ['dedupe', 'schema'],
      title: `a refused ${receiver.spec.noun} leaves no trace: the valid one with the same event_id, sent next, is new (refused for its schema${receiver.spec.sizeLimitStated ? ', its size' : ''} or its timestamp)`,
      gather: async (scope) => {
        const pairs: TracePair[] = [];
        for (const row of rows) {
          if (scope.session.signal.aborted) break;
          const doc = receiver.document(scope);
          const refused = await scope.send(row.refused(doc));
          // A document accepted here is another check's failure; its valid twin would rightly be a repeat.
          pairs.push(
            isAccepted(refused)
              ? { name: row.name, refused }
              : { name: row.name, refused, valid: await scope.send({ body: compact(doc) }) },
          );
        }
        return { pairs };
      },
      judge: ({ pairs }) => {
        if (!pairs || pairs.length === 0) return notJudged('no request was sent');
        const judged = pairs.filter((pair) => pair.valid !== undefined);
        for (const pair of judged) {
          const outcome = judgeAnswer(pair.valid, AS_NEW_DOCUMENT);
          if (outcome.verdict === 'failed')
            return failed(
              `${outcome.expected} for the valid document after one ${pair.name}`,
              `after one ${pair.name} (${describeAnswer(pair.refused)}): ${outcome.actual}`,
              { exchanges: [pair.refused, pair.valid as Exchange] },
            );
        }
        const notes = pairs
          .filter((pair) => pair.valid === undefined)
          .map((pair) => `not judged: ${pair.name} (it was accepted: ${describeAnswer(pair.refused)})`);
        if (judged.length === 0) return notJudged(notes.join('; '));
        if (pairs.length < rows.length) return notJudged(`${pairs.length} of ${rows.length} cases sent (interrupted)`);
        return passed(
          `${expectedOf(judged[0]?.valid as Exchange, AS_NEW_DOCUMENT)} after each refusal`,
          `${judged.length} case${judged.length === 1 ? '' : 's'}: each valid document new`,
          notes,
        );
      },
    }),
  ];
});

export const duplicates = {
  B: [...eventsDuplicates, ...(distinctIds.B ?? []), ...(repeatMemory.B ?? []), ...(noTrace.B ?? [])],
  A: [...jobsDuplicates, ...(distinctIds.A ?? []), ...(repeatMemory.A ?? []), ...(noTrace.A ?? [])],
};
