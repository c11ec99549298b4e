/**
 * What a sender does with each answer, delivery by delivery, as readable scenarios: each check names the answers it
 * reads and the term of the sender model (src/spec/model/sender.ts) it asks about them: retries a 5xx (500 and 503)
 * with growing waits (§7, §8), a 429 after its Retry-After, in seconds or as an HTTP-date (§7), a connection cut
 * without an answer (§8); keeps the event_id and the document on every retry (§2.2, §6.1), signs every retry afresh
 * (§5.5); never retries a 400, 401 or 413 (§7); takes any 2xx (202, the duplicate answer, 200, 201, 204) as
 * delivered (§2.13, §6.5); gives every new document a new event_id (§2.2, §6.1); sends promptly (§8). Every
 * judgement reads the answers a delivery really got, whatever the scenario: one document or twenty alike.
 */
import type { InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import {
  heard,
  ms,
  type AnswerClass,
  type DeliveryTermId,
  type IdentityTermId,
  type SeenAttempt,
} from '../../../spec/model/sender.js';
import { FIRST_ATTEMPT_TARGET_SECONDS } from '../../../spec/model/sender-latitude.js';
import {
  defineSenderCheck,
  failed,
  notJudged,
  passed,
  type Outcome,
  type SenderCheck,
  type SenderCheckSpec,
} from '../../check.js';
import type { SenderEvidence } from '../../evidence.js';
import { FAILURES_BEFORE_ACCEPT } from '../../tolerances.js';
import { findingsOf, unrepeatedOf, verdictOf, type SenderFinding, type VerdictWords } from './judging.js';
import { optionName } from '../../../errors.js';
import { plural } from '../../../text.js';

type Reads = (attempt: SeenAttempt) => boolean;
type Term = DeliveryTermId | IdentityTermId;

const hears =
  (kind: AnswerClass): Reads =>
  (attempt) =>
    heard(attempt) === kind;
/** An answer the sender heard: a refusal (`error`) or an acceptance, of `status`. */
const answered =
  (kind: 'error' | 'accepted', status: number): Reads =>
  (attempt) =>
    !attempt.unheard && attempt.answer.kind === kind && 'status' in attempt.answer && attempt.answer.status === status;
const isDuplicate: Reads = (attempt) => !attempt.unheard && attempt.answer.kind === 'duplicate';

/** The model's findings of one term, on the attempts a check reads. */
function findings(evidence: SenderEvidence, term: Term, reads: Reads = () => true): SenderFinding[] {
  return findingsOf(evidence).filter((finding) => finding.term === term && reads(finding.attempt));
}

/** A check that asks one term of the model about the attempts it reads. */
function asks(term: Term, reads: Reads | undefined, words: (evidence: SenderEvidence) => VerdictWords) {
  return (evidence: SenderEvidence): Outcome =>
    verdictOf(findings(evidence, term, reads), words(evidence), unrepeatedOf(evidence, term));
}

const afterAnswer = (answer: string, expected: string) => () => ({
  expected,
  unit: ['answer', 'answers'] as [string, string],
  unjudged: `no delivery was answered ${answer}`,
});

/** Another attempt after every answer of a kind (§7, §8). */
const retriedAfter = (kind: AnswerClass, answer: string, every = answer) =>
  asks('retried', hears(kind), afterAnswer(answer, `another attempt after every ${every}`));

/** §7: no retry of a 429 before its Retry-After, written as `form`. */
const waitsOut = (form: 'seconds' | 'date', written: string, limit: string) =>
  asks(
    'retry-after',
    (attempt) => attempt.retryAfter?.form === form,
    afterAnswer(`429 with Retry-After ${written}`, `each retry no earlier than the ${limit} before it`),
  );

/** After a final answer, nothing more of that document (cai listened --observe more). */
function stopsAfter(answer: string, reads: Reads) {
  return asks('stops', reads, (evidence) => ({
    expected: `no attempt after the ${answer} (cai listened ${ms(evidence.observeMs)} more, ${optionName('observe')})`,
    unit: ['delivery', 'deliveries'],
    unjudged: `no delivery was answered ${answer}`,
  }));
}

/**
 * §7, §8: a sender keeps retrying through FAILURES_BEFORE_ACCEPT consecutive 5xx. It passes only on a delivery that
 * got that many in a row and was sent again after each; any 5xx not retried fails it.
 */
function keepsRetrying(evidence: SenderEvidence): Outcome {
  const expected = `retries through ${FAILURES_BEFORE_ACCEPT} consecutive answers of 5xx`;
  const found = findings(evidence, 'retried', hears('unavailable'));
  const broken = found.filter((finding) => finding.verdict === 'broken');
  if (broken.length > 0) return verdictOf(broken, { expected, unit: ['delivery', 'deliveries'], unjudged: '' });
  const through = found.filter(
    (finding) => finding.verdict === 'kept' && (finding.inARow ?? 0) >= FAILURES_BEFORE_ACCEPT,
  );
  if (through.length === 0)
    return notJudged(`no delivery was answered 5xx ${FAILURES_BEFORE_ACCEPT} times in a row and retried after each`);
  const actual = `${plural(through.length, 'delivery', 'deliveries')} retried after each of ${FAILURES_BEFORE_ACCEPT} consecutive 5xx`;
  return passed(expected, actual);
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
  const actual = `slowest: ${ms(slowest.ms)} (${slowest.id}); ${plural(times.length, 'scenario')}`;
  return slowest.ms <= FIRST_ATTEMPT_TARGET_SECONDS * 1000
    ? passed(expected, actual)
    : failed(expected, actual, { attempts: [slowest.first] });
}

/** What every group of checks reads of the interface, and the check of that interface built from a row. */
function groundsOf(iface: InterfaceId) {
  const spec = interfaceSpec(iface);
  const fixed = spec.refusals === 'fixed';
  return {
    spec,
    fixed,
    // §7's table is B's; §4.1 shows no error statuses for A, where §8's retry period is what the spec states.
    statusLevel: fixed ? 'must' : 'should',
    check: (id: string, row: Omit<SenderCheckSpec, 'id' | 'interface'>) =>
      defineSenderCheck({ id: `${spec.senderCheckPrefix}-${id}`, interface: iface, ...row }),
  } as const;
}

type Grounds = ReturnType<typeof groundsOf>;

/**
 * §2.2, §6.1, §5.2, §5.5: what a delivery keeps and what it changes. A new document gets a new event_id; a retry
 * keeps the event_id, the document and its bytes, and is signed afresh.
 */
function identityChecks({ spec, fixed, check }: Grounds): SenderCheck[] {
  const identitySections = fixed ? ['§6.1', '§2.4'] : ['§2.2'];
  const identity = fixed ? ['§6.1-1'] : ['§2.2-4'];
  const retries = ['retry-5xx', 'retry-500', 'retry-429', 'retry-429-date', 'retry-network'] as const;
  const onRetries = (term: DeliveryTermId, expected: string, unjudged: string) =>
    asks(term, undefined, () => ({ expected, unit: ['retry', 'retries'], unjudged }));
  return [
    check('ID-001', {
      level: 'must',
      sections: identitySections,
      clauses: identity,
      tags: ['event-id', 'identity'],
      scenarios: ['accept', 'retry-network'],
      title: `every new ${spec.documentName} carries a new event_id: none reuses the id of one already accepted`,
      judge: asks('one-document-per-id', undefined, () => ({
        expected: 'every new document under an event_id of its own (none under the id of a document already accepted)',
        unit: ['document', 'documents'],
        unjudged: 'fewer than two event_ids arrived: no second document to compare',
        passedText: (kept) => kept[0]?.actual ?? '',
      })),
    }),
    check('SIG-004', {
      level: 'should',
      sections: ['§5.5', '§5.2'],
      clauses: ['§5.5-1'],
      tags: ['signature', 'window', 'retry'],
      scenarios: ['retry-5xx', 'retry-429', 'retry-429-date'],
      title: 'every retry is signed afresh: its timestamp moves on with the time since the first attempt',
      judge: asks('fresh', undefined, () => ({
        expected: 'a later timestamp on every attempt sent 1.5 s or more after another of its delivery',
        unit: ['pair of attempts', 'pairs of attempts'],
        unjudged: 'no two attempts of one delivery certainly sent 1.5 s or more apart, with well-formed timestamps',
      })),
    }),
    check('RETRY-002', {
      level: 'must',
      sections: identitySections,
      clauses: identity,
      tags: ['retry', 'event-id'],
      scenarios: retries,
      title: 'every retry carries the event_id of the first attempt',
      judge: onRetries(
        'same-id',
        'the same event_id on every retry',
        'no retry of a document with an event_id to compare',
      ),
    }),
    check('RETRY-003', {
      level: 'should',
      sections: [identitySections[0] as string],
      clauses: identity,
      tags: ['retry', 'document'],
      scenarios: retries,
      title: 'every retry carries the same document as the first attempt (event_id aside)',
      judge: onRetries('same-document', 'the same document on every retry', 'no retry with a JSON document to compare'),
    }),
    check('RETRY-004', {
      level: 'should',
      sections: ['§5.2', identitySections[0] as string],
      clauses: ['§5.2-2'],
      tags: ['retry', 'raw-body'],
      scenarios: retries,
      title: 'every retry of the same document sends the same bytes (not re-serialised)',
      judge: onRetries('same-bytes', 'the same bytes on every retry', 'no retry of an unchanged document to compare'),
    }),
  ];
}

/** §7, §8: a document is sent again after a 5xx (waits growing), a cut connection, a 429 (after its Retry-After). */
function retryChecks({ fixed, statusLevel, check }: Grounds): SenderCheck[] {
  // Each retry's tags, and where its rule is written: §7's table on B; §8's retry period on A (§7 still names the 429).
  const after5xx = {
    tags: ['retry', '5xx'],
    ...(fixed ? { sections: ['§7', '§8'], clauses: ['§7-9', '§8-4'] } : { sections: ['§8'], clauses: ['§8-4'] }),
  };
  const after429 = {
    level: statusLevel,
    tags: ['retry', '429'],
    ...(fixed ? { sections: ['§7'], clauses: ['§7-8'] } : { sections: ['§7', '§8'], clauses: ['§8-4'] }),
  };
  return [
    check('RETRY-001', {
      level: 'must',
      ...after5xx,
      scenarios: ['retry-5xx', 'retry-500'],
      title: 'a document answered 5xx (503, 500) is sent again',
      judge: retriedAfter('unavailable', '5xx'),
    }),
    check('RETRY-005', {
      level: 'must',
      ...after5xx,
      tags: [...after5xx.tags, 'backoff'],
      scenarios: ['retry-5xx'],
      title: 'the waits between retries of consecutive 5xx grow (backoff, not a fixed pace)',
      judge: asks('growth', undefined, () => ({
        expected: 'waits that grow: the last two at least 2× the two shortest of the first three',
        unit: ['delivery', 'deliveries'],
        unjudged: `no delivery was retried through ${FAILURES_BEFORE_ACCEPT} consecutive 5xx to time its waits (see the checks of retries after 5xx)`,
        passedText: (kept) =>
          kept.length === 1
            ? (kept[0]?.actual ?? '')
            : `${kept.length} deliveries, each growing (the first: ${kept[0]?.actual ?? ''})`,
      })),
    }),
    check('RETRY-006', {
      level: 'should',
      sections: ['§8'],
      clauses: ['§8-4'],
      tags: ['retry', 'network'],
      scenarios: ['retry-network'],
      title: 'a connection cut without an answer is retried',
      judge: retriedAfter('cut', 'connection reset', 'cut connection'),
    }),
    check('RETRY-007', {
      ...after429,
      scenarios: ['retry-429', 'retry-429-date'],
      title: 'a document answered 429 is sent again',
      judge: retriedAfter('rate-limited', '429'),
    }),
    check('RETRY-008', {
      ...after429,
      tags: [...after429.tags, 'retry-after'],
      scenarios: ['retry-429'],
      title: 'a 429 is not retried before its Retry-After (a number of seconds)',
      judge: waitsOut('seconds', 'in seconds', 'Retry-After of the 429'),
    }),
    check('RETRY-009', {
      level: 'should',
      ...after5xx,
      scenarios: ['retry-5xx'],
      title: `the sender keeps retrying through ${FAILURES_BEFORE_ACCEPT} consecutive 5xx`,
      judge: keepsRetrying,
    }),
    check('RETRY-010', {
      ...after429,
      // §7 says "the number in the Retry-After header": a sender that reads only seconds (and backs off otherwise)
      // keeps the letter of the spec; honouring RFC 9110's other form, an HTTP-date, is what the suite prefers.
      level: 'should',
      tags: [...after429.tags, 'retry-after', 'http-date'],
      scenarios: ['retry-429-date'],
      title: 'a 429 whose Retry-After is an HTTP-date is not retried before that date',
      judge: waitsOut('date', 'as an HTTP-date', 'HTTP-date of the Retry-After'),
    }),
  ];
}

/** §7 (§4.1 and §8 on A): a refusal (400, 401, 413) is final, so the document is not sent again. */
function refusalChecks({ spec, fixed, statusLevel, check }: Grounds): SenderCheck[] {
  const refusals: [string, 400 | 401 | 413][] = [
    ['REJECT-001', 400],
    ['REJECT-002', 401],
    ...(spec.sizeLimitStated ? [['REJECT-003', 413] as [string, 413]] : []),
  ];
  return refusals.map(([id, status]) =>
    check(id, {
      level: status === 413 ? 'must' : statusLevel,
      sections: (fixed ? ['§7'] : ['§7', '§4.1']).concat(status === 413 ? ['§8'] : []),
      // §7's table is Interface B's: on A a refusal's client action is the spec's silence (§4.1).
      clauses: fixed ? ({ 400: ['§7-2'], 401: ['§7-4'], 413: ['§7-6'] } as const)[status] : [],
      tags: ['reject', String(status)],
      scenarios: [`reject-${status}`],
      title: `a ${status} is not retried`,
      judge: stopsAfter(String(status), answered('error', status)),
    }),
  );
}

/** §6.5, §2.13: any 2xx, the duplicate answer included, ends the delivery (on A the one acknowledgment, §4.1). */
function acknowledgmentChecks({ spec, check }: Grounds): SenderCheck[] {
  const job = spec.document === 'job';
  const ends = (id: string, row: Pick<SenderCheckSpec, 'sections' | 'tags' | 'scenarios' | 'title' | 'judge'>) =>
    check(id, { level: 'should', clauses: ['§6.5-1'], ...row });
  const acknowledged = ends('ACK-001', {
    sections: job ? ['§4.1', '§2.3'] : ['§7', '§4.2'],
    tags: ['accepted', '202'],
    scenarios: ['accept'],
    title: job
      ? 'the 202 acknowledgment ends the delivery: the job is not sent again'
      : 'a 202 ends the delivery: the event is not sent again',
    judge: stopsAfter('202', answered('accepted', 202)),
  });
  if (job) return [acknowledged];
  return [
    acknowledged,
    ends('ACK-002', {
      sections: ['§2.13', '§7'],
      tags: ['accepted', 'duplicate'],
      scenarios: ['duplicate'],
      title: 'the duplicate answer 202 {"ok":true,"duplicate":true} ends the delivery',
      judge: stopsAfter('202 {"ok":true,"duplicate":true}', isDuplicate),
    }),
    ...(
      [
        ['ACK-003', 200, 'ok-200', ''],
        ['ACK-004', 201, 'ok-201', ''],
        ['ACK-005', 204, 'ok-204', ' (no body)'],
      ] as const
    ).map(([id, status, scenario, body]) =>
      ends(id, {
        sections: ['§6.5'],
        tags: ['accepted', '2xx', String(status)],
        scenarios: [scenario],
        title: `a ${status}${body} ends the delivery too (any 2xx means accepted)`,
        judge: stopsAfter(String(status), answered('accepted', status)),
      }),
    ),
  ];
}

function deliveryChecks(iface: InterfaceId): SenderCheck[] {
  const grounds = groundsOf(iface);
  return [
    ...identityChecks(grounds),
    ...retryChecks(grounds),
    ...refusalChecks(grounds),
    ...acknowledgmentChecks(grounds),
    // §8: the first attempt comes promptly after the trigger.
    grounds.check('TIME-001', {
      level: 'should',
      sections: grounds.fixed ? ['§8'] : ['§4.1', '§8'],
      clauses: ['§8-7'],
      tags: ['timing'],
      scenarios: ['accept'],
      title: `the first attempt comes within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger`,
      judge: promptFirstAttempt,
    }),
  ];
}

export const deliveryChecksB = deliveryChecks('B');
export const deliveryChecksA = deliveryChecks('A');
