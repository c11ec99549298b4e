/**
 * What a receiver remembers of an event_id: an accepted one for long enough that a late retry is still a repeat
 * (§6.1, §2.2 on A), and a refused one not at all, so that the corrected retry is new (§6.1, §7).
 */
import { failed, notJudged, passed } from '../../check.js';
import { describeAnswer, type Exchange } from '../../evidence.js';
import { MAX_BODY_BYTES, SIGNATURE_WINDOW_SECONDS } from '../../../spec/constants.js';
import { bodyOfSize, compact, withPath, type Doc } from '../../probe/bodies.js';
import type { RequestRecipe } from '../../probe/recipe.js';
import { pause } from '../../probe/session.js';
import { expectedOf, isAccepted, judgeAnswer, type Focus } from '../../probe/verdict.js';
import { CONCURRENT_DELIVERIES, DEDUPE_MEMORY_OTHERS, WINDOW_MARGIN_SECONDS } from '../../tolerances.js';
import { checkId, checkOn, forBoth } from './receivers.js';
import { plural } from '../../../text.js';
import { formatDuration } from '../../../duration.js';

/** What a repeat check reads of the second answer: its status and whether it was answered as a repeat (or as new). */
export const AS_REPEAT: Focus = { level: 'must', terms: ['outcome', 'repeat'] };
export const AS_NEW: Focus = { level: 'must', terms: ['outcome', 'new'] };
export const OUTCOME: Focus = { level: 'must' };

/**
 * The memory of repeats (§6.1: a retry never creates a second record, whenever it comes; §7, §8: retries go on for up
 * to 24 hours; §2.2 on A): an accepted event_id is still recognised after `DEDUPE_MEMORY_OTHERS` other documents, then
 * as the run ends. The check runs last, and its document is the run's first (the preflight's, accepted before any
 * check), so the late repeat comes the run's whole length after it (at least the session's wait): a receiver that keeps
 * only the last few ids, or forgets them after a cache time shorter than the run, answers it as new. A memory longer
 * than the run is beyond what a run can see.
 */
interface MemoryEvidence {
  first?: Exchange;
  /** The first of the other documents not accepted, when one was not: the later cases are then not sent. */
  otherRefused?: Exchange;
  afterOthers?: Exchange;
  /** From the first document's acceptance to the repeat after the others. */
  othersMs?: number;
  afterWait?: Exchange;
  /** From the first document's acceptance to the late repeat. */
  waitedMs?: number;
}

export const repeatMemory = forBoth((receiver) => [
  checkOn<MemoryEvidence>(receiver, checkId(receiver, { B: 'B-DEDUP-009', A: 'A-DEDUP-008' }), {
    sections: receiver.spec.repeatSections,
    clauses: receiver.spec.repeatClauses,
    tags: ['dedupe'],
    title: `a repeat is recognised after ${DEDUPE_MEMORY_OTHERS} other ${receiver.spec.noun}s, and again as the run ends`,
    // Last, alone: its late repeat comes the run's whole length after the first. (On A, besides, every job starts a
    // conversation whose events come back to cai's listener: so many at once would delay the callback checks.)
    exclusive: 'last',
    gather: async (scope) => {
      const early = scope.session.firstAccepted;
      const body = early?.body ?? compact(receiver.document(scope));
      const first = early ? scope.adopt(early.exchange) : await scope.send({ body });
      const firstAtMs = early?.atMs ?? Date.now();
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
      const othersMs = Date.now() - firstAtMs;
      // A short run (--only) still waits for the session's wait since the first was accepted.
      await pause(scope.session.dedupeMemoryWaitMs - (Date.now() - firstAtMs), scope.session.signal);
      if (scope.session.signal.aborted) return { first, afterOthers, othersMs };
      const afterWait = await scope.send({ body });
      return { first, afterOthers, othersMs, afterWait, waitedMs: Date.now() - firstAtMs };
    },
    judge: ({ first, otherRefused, afterOthers, othersMs, afterWait, waitedMs }) => {
      if (!first) return notJudged('no request was sent');
      const accepted = judgeAnswer(first, OUTCOME);
      if (accepted.verdict !== 'passed') return accepted;
      if (otherRefused)
        return notJudged(
          `one of the ${DEDUPE_MEMORY_OTHERS} other documents was not accepted: ${describeAnswer(otherRefused)}`,
        );
      if ((afterWait !== undefined && waitedMs === undefined) || (afterOthers !== undefined && othersMs === undefined))
        return notJudged('how long the repeat waited is not known');
      const cases: [string, Exchange | undefined][] = [
        [
          `after ${DEDUPE_MEMORY_OTHERS} other documents, ${formatDuration(othersMs ?? 0)} after it was first accepted`,
          afterOthers,
        ],
        [`${formatDuration(waitedMs ?? 0)} after it was first accepted`, afterWait],
      ];
      for (const [when, repeat] of cases) {
        if (!repeat) return notJudged(`the repeat ${when} was not sent`);
        const outcome = judgeAnswer(repeat, AS_REPEAT);
        if (outcome.verdict === 'failed')
          return failed(`${outcome.expected} ${when}`, `${when}: ${outcome.actual}`, { exchanges: [first, repeat] });
      }
      return passed(
        `${expectedOf(afterOthers as Exchange, AS_REPEAT)}, after ${DEDUPE_MEMORY_OTHERS} other documents and as the run ends`,
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

export const noTrace = forBoth((receiver) => {
  const rows = REFUSED.filter((row) => !row.sizeLimit || receiver.spec.sizeLimitStated);
  return [
    checkOn<{ pairs: TracePair[] }>(receiver, checkId(receiver, { B: 'B-DEDUP-010', A: 'A-DEDUP-009' }), {
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
          const valid = isAccepted(refused) ? undefined : await scope.send({ body: compact(doc) });
          pairs.push({ name: row.name, refused, ...(valid ? { valid } : {}) });
        }
        return { pairs };
      },
      judge: ({ pairs }) => {
        if (!pairs || pairs.length === 0) return notJudged('no request was sent');
        const judged = pairs.filter((pair) => pair.valid !== undefined);
        for (const pair of judged) {
          const outcome = judgeAnswer(pair.valid, AS_NEW);
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
          `${expectedOf(judged[0]?.valid as Exchange, AS_NEW)} after each refusal`,
          `${plural(judged.length, 'case')}: each valid document new`,
          notes,
        );
      },
    }),
  ];
});
