/**
 * Safe retries: a repeated event_id is recognised (§6.1 and §2.13 on B; §2.2 on A), even when the repeats
 * arrive at once, and authentication comes before the duplicate lookup. The concurrency and the
 * failed-authentication repeat are shared by both interfaces; what counts as "the same answer" is each one's.
 * Each check gathers its requests in order, stopping where the next would prove nothing (a first delivery not
 * accepted), and judges what it gathered. How long an id is remembered is ./dedupe-memory.ts.
 */
import { asciiEscape } from '../../../signing/diagnose.js';
import { Headers, type InterfaceId, SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { concurrentBreach, type Expectation } from '../../../spec/model/receiver.js';
import { failed, notJudged, passed, type CheckMeta, type Outcome, type ReceiverCheck } from '../../check.js';
import { describeAnswer, type Exchange } from '../../evidence.js';
import { compact, type Doc } from '../../probe/bodies.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import type { ProbeScope } from '../../probe/scope.js';
import { pause } from '../../probe/session.js';
import { answerOf, isAccepted, judgeAnswer, type Focus } from '../../probe/verdict.js';
import { CONCURRENT_DELIVERIES, CONCURRENT_ROUNDS } from '../../tolerances.js';
import {
  anotherSecret,
  appliesTo,
  checkId,
  checkOn,
  event,
  EVENTS_RECEIVER,
  forBoth,
  JOBS_RECEIVER,
  joined,
  type Receiver,
} from './receivers.js';
import { AS_NEW, AS_REPEAT, noTrace, OUTCOME, repeatMemory } from './dedupe-memory.js';

type Entry = Pick<CheckMeta, 'title' | 'sections' | 'clauses'>;

/** A first delivery and what followed it: the evidence of most repeat checks. */
interface Repeat {
  first: Exchange;
  second: Exchange;
}

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
function concurrentRepeats(receiver: Receiver, id: string, entry: Entry): ReceiverCheck<Rounds> {
  return checkOn<Rounds>(receiver, id, {
    ...entry,
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

const bodyOf = (doc: Doc): RequestRecipe => ({ body: compact(doc) });

/** A valid document, then (once accepted) `again` of it, each answer judged on its focus (the first's: OUTCOME). */
function sentAgain(receiver: Receiver, again: (doc: Doc) => RequestRecipe, secondAs: Focus, firstAs?: Focus) {
  return {
    gather: (scope: ProbeScope) => {
      const doc = receiver.document(scope);
      return sendThenRepeat(
        scope,
        () => bodyOf(doc),
        () => again(doc),
      ) as Promise<Repeat>;
    },
    judge: (evidence: Partial<Repeat>) => judgePair(evidence, secondAs, firstAs),
  };
}

/** Accepted once, then repeated with a wrong signature: refused, never answered as a duplicate (§5.5). */
function repeatFailingAuthentication(receiver: Receiver, id: string, entry: Entry): ReceiverCheck<Repeat> {
  return checkOn<Repeat>(receiver, id, {
    ...entry,
    tags: ['dedupe', 'auth'],
    ...sentAgain(
      receiver,
      (doc) => ({ ...bodyOf(doc), signature: { kind: 'wrong-secret', secret: anotherSecret() } }),
      OUTCOME,
    ),
  });
}

const eventsDuplicates: ReceiverCheck[] = [
  checkOn<Repeat>(EVENTS_RECEIVER, 'B-DEDUP-001', {
    sections: ['§6.1', '§2.13', '§7'],
    clauses: ['§6.1-2', '§2.13-1'],
    tags: ['dedupe'],
    title: 'a sequential repeat of an event_id is answered 202 {"ok":true,"duplicate":true}',
    ...sentAgain(EVENTS_RECEIVER, bodyOf, AS_REPEAT, AS_NEW),
  }),
  concurrentRepeats(EVENTS_RECEIVER, 'B-DEDUP-002', {
    title: 'concurrent repeats of one event_id: exactly one is counted as new',
    sections: ['§6.1', '§2.13'],
    clauses: ['§6.1-2', '§6.1-3'],
  }),
  repeatFailingAuthentication(EVENTS_RECEIVER, 'B-DEDUP-003', {
    title: 'a repeat that fails authentication gets 401, never a duplicate answer',
    sections: ['§5.5', '§7', '§6.1'],
    clauses: ['§5.1-1', '§7-3'],
  }),
  checkOn<Repeat>(EVENTS_RECEIVER, 'B-DEDUP-004', {
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
  checkOn<Repeat>(EVENTS_RECEIVER, 'B-DEDUP-005', {
    sections: ['§6.1', '§2.13'],
    clauses: ['§6.1-2', '§6.1-3'],
    tags: ['dedupe'],
    title: 'a repeat with the same event_id but a changed body is still a duplicate',
    ...sentAgain(EVENTS_RECEIVER, (doc) => bodyOf({ ...doc, text: `${String(doc.text ?? '')} (edited)` }), AS_REPEAT),
  }),
];

/**
 * How far from now the retry across the window is signed: 10 s inside §5.5's 300 (the target's clock is known to the
 * second), where a receiver with a narrower tolerance may refuse (latitude `window-interior`: then not judged).
 */
const ACROSS_SHIFT_SECONDS = SIGNATURE_WINDOW_SECONDS - 10;
/**
 * The bucket width the two timestamps straddle a multiple of: every width that divides it (60, 120, 300, 600 s) puts
 * them in two buckets.
 */
const ACROSS_BUCKET_SECONDS = 600;

interface AcrossEvidence extends Repeat {
  /** The X-CAI-Timestamp of each delivery, as sent. */
  stamps: [string, string];
  /** The multiple of ACROSS_BUCKET_SECONDS between them. */
  boundary: number;
}

/**
 * A multiple of `ACROSS_BUCKET_SECONDS` in (now − shift + 5, now + shift], when there is one: the first delivery,
 * signed `shift` before the time it is sent (up to 5 s later), stays below it; the retry, signed `shift` after a
 * later now, above it.
 */
function boundaryNear(nowSeconds: number): number | undefined {
  const low = nowSeconds - ACROSS_SHIFT_SECONDS + 5;
  const boundary = Math.floor(low / ACROSS_BUCKET_SECONDS + 1) * ACROSS_BUCKET_SECONDS;
  return boundary <= nowSeconds + ACROSS_SHIFT_SECONDS ? boundary : undefined;
}

/**
 * §6.1: a retry never creates a second record, and a sender re-signs each retry with the time it is sent (§5.4), any
 * time within §5.5's 300 s. The first delivery is signed 290 s before now, its retry 290 s after now, so that the two
 * timestamps straddle a multiple of 600 s: a receiver that keys its memory on the event_id and a bucket of the
 * timestamp (a 1-, 5- or 10-minute window of "recent" ids) records the retry as new. For 25 s of every 600 (about
 * one run in 24) no multiple lies between the two: the check waits (at most 25 s) until one does.
 */
const retryAcrossWindow = checkOn<AcrossEvidence>(EVENTS_RECEIVER, 'B-DEDUP-011', {
  sections: ['§6.1', '§5.4', '§5.5', '§2.13'],
  clauses: ['§6.1-2', '§6.1-3'],
  tags: ['dedupe', 'window'],
  title: `a retry signed ${ACROSS_SHIFT_SECONDS} s after now, its first delivery ${ACROSS_SHIFT_SECONDS} s before (across a multiple of ${ACROSS_BUCKET_SECONDS} s), is answered as a repeat`,
  gather: async (scope) => {
    let boundary = boundaryNear(scope.session.targetNowSeconds());
    while (boundary === undefined && !scope.session.signal.aborted) {
      await pause(1000, scope.session.signal);
      boundary = boundaryNear(scope.session.targetNowSeconds());
    }
    const body = compact(EVENTS_RECEIVER.document(scope));
    const sent = await sendThenRepeat(
      scope,
      () => ({ body, timestamp: { kind: 'now', shiftSeconds: -ACROSS_SHIFT_SECONDS } }),
      () => ({ body, timestamp: { kind: 'now', shiftSeconds: ACROSS_SHIFT_SECONDS } }),
    );
    const stamps = [sent.first, sent.second].map((exchange) => exchange?.request.headers[Headers.timestamp] ?? '?');
    return { ...sent, stamps: stamps as [string, string], boundary: boundary ?? 0 } as AcrossEvidence;
  },
  judge: (evidence) => {
    if (!evidence.stamps || evidence.boundary === undefined) return notJudged('the timestamps sent are not known');
    const outcome = judgePair(evidence, AS_REPEAT, AS_NEW);
    if (outcome.verdict === 'failed' || !evidence.second) return outcome;
    // A refusal of a timestamp 290 s off is latitude (a narrower window), not the evidence of a repeat.
    if (!isAccepted(evidence.second))
      return notJudged(`the retry signed at ${evidence.stamps[1]} was refused: ${describeAnswer(evidence.second)}`);
    const when = `signed at ${evidence.stamps[0]}, then at ${evidence.stamps[1]} (across ${evidence.boundary})`;
    return outcome.verdict === 'passed' ? { ...outcome, actual: `${outcome.actual}, ${when}` } : outcome;
  },
});

const jobsDuplicates: ReceiverCheck[] = [
  checkOn<Repeat>(JOBS_RECEIVER, 'A-DEDUP-001', {
    sections: ['§2.2', '§8'],
    clauses: ['§2.2-5'],
    tags: ['dedupe'],
    title: 'a repeated event_id gets the same acknowledgment and starts no second job',
    ...sentAgain(JOBS_RECEIVER, bodyOf, AS_REPEAT),
  }),
  concurrentRepeats(JOBS_RECEIVER, 'A-DEDUP-002', {
    title: 'concurrent repeats of one event_id all get the same provider_job_id',
    sections: ['§2.2'],
    clauses: ['§2.2-5'],
  }),
  repeatFailingAuthentication(JOBS_RECEIVER, 'A-DEDUP-003', {
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

/** An id as JSON, non-ASCII escaped (the ids are ASCII but for it), so the two spellings can be told apart. */
const visible = (id: string) => asciiEscape(JSON.stringify(id));

interface DistinctEvidence extends Repeat {
  ids: [string, string];
}

const distinctIds = forBoth((receiver) =>
  DISTINCT_IDS.filter((row) => appliesTo(receiver, row.ids)).map((row) =>
    checkOn<DistinctEvidence>(receiver, checkId(receiver, row.ids), {
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

export const duplicates = joined({ B: eventsDuplicates, A: jobsDuplicates }, distinctIds, repeatMemory, noTrace, {
  B: [retryAcrossWindow],
});
