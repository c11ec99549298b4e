/**
 * What a sender does with each answer, delivery by delivery: retries a 5xx (500 and 503) with growing waits (§7,
 * §8), a 429 after its Retry-After, in seconds or as an HTTP-date (§7), a connection cut without an answer (§8);
 * keeps the event_id and the document on every retry (§2.2, §6.1), signs every retry afresh (§5.5); never retries
 * a 400, 401 or 413 (§7); takes any 2xx (202, the duplicate answer, 200, 201, 204) as delivered (§2.13, §6.5); gives
 * every new document a new event_id (§2.2, §6.1); sends promptly (§8). Every judgement reads the answers a delivery
 * really got, whatever the scenario: a sender that sends one document or twenty is judged the same way.
 */
import type { InterfaceId } from '../../../spec/constants.js';
import { interfaceSpec } from '../../../spec/interfaces.js';
import { defineSenderCheck, type SenderCheck } from '../../check.js';
import { FAILURES_BEFORE_ACCEPT, FIRST_ATTEMPT_TARGET_SECONDS } from '../../tolerances.js';
import {
  backoffGrows,
  is429,
  is5xx,
  isAccepted,
  isDuplicate,
  isReset,
  isStatus,
  keepsRetrying,
  newDocumentsNewIds,
  notRetriedAfter,
  promptFirstAttempt,
  retriedAfter,
  sameBytes,
  sameDocument,
  sameEventId,
  signedAfresh,
  waitsRetryAfter,
} from './delivery-rules.js';
import { everyRetry } from './judging.js';

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
      reject: fixed ? { 400: ['§7-2'], 401: ['§7-4'], 413: ['§7-6'] } : { 400: [], 401: [], 413: [] } } };
}

/** A retry is signed afresh, and a 503 is retried at all. */
function firstRetryChecks({ iface, p, retrySections, clauses }: DeliveryContext): SenderCheck[] {
  return [
    defineSenderCheck({
      id: `${p}-SIG-004`, interface: iface, level: 'should', sections: ['§5.5', '§5.2'], clauses: ['§5.5-1'], tags: ['signature', 'window', 'retry'], scenarios: ['retry-5xx', 'retry-429', 'retry-429-date'],
      title: 'every retry is signed afresh: its timestamp moves on with the time since the first attempt',
      judge: signedAfresh }),
    defineSenderCheck({
      id: `${p}-RETRY-001`, interface: iface, level: 'must', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx'], scenarios: ['retry-5xx', 'retry-500'],
      title: 'a document answered 5xx (503, 500) is sent again',
      judge: retriedAfter('5xx', is5xx) }),
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
      judge: (evidence) => everyRetry(evidence, 'the same event_id on every retry', sameEventId, 'no retry of a document with an event_id to compare') }),
    defineSenderCheck({
      id: `${p}-RETRY-003`, interface: iface, level: 'should', sections: [own], clauses: clauses.identity, tags: ['retry', 'document'], scenarios: RETRY_SCENARIOS,
      title: 'every retry carries the same document as the first attempt (event_id aside)',
      judge: (evidence) => everyRetry(evidence, 'the same document on every retry', sameDocument, 'no retry with a JSON document to compare') }),
    defineSenderCheck({
      id: `${p}-RETRY-004`, interface: iface, level: 'should', sections: ['§5.2', own], clauses: ['§5.2-2'], tags: ['retry', 'raw-body'], scenarios: RETRY_SCENARIOS,
      title: 'every retry of the same document sends the same bytes (not re-serialised)',
      judge: (evidence) => everyRetry(evidence, 'the same bytes on every retry', sameBytes, 'no retry of an unchanged document to compare') }),
  ];
}

/** The pace of retries: backoff after 5xx, cut connections, 429 and its Retry-After, persistence. */
function retryPaceChecks({ iface, p, statusLevel, retrySections, clauses }: DeliveryContext): SenderCheck[] {
  const pace = statusLevel === 'must' ? ['§7'] : ['§7', '§8'];
  return [
    defineSenderCheck({
      id: `${p}-RETRY-005`, interface: iface, level: 'must', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx', 'backoff'], scenarios: ['retry-5xx'],
      title: 'the waits between retries of consecutive 5xx grow (backoff, not a fixed pace)',
      judge: backoffGrows }),
    defineSenderCheck({
      id: `${p}-RETRY-006`, interface: iface, level: 'should', sections: ['§8'], clauses: ['§8-4'], tags: ['retry', 'network'], scenarios: ['retry-network'],
      title: 'a connection cut without an answer is retried',
      judge: retriedAfter('connection reset', isReset) }),
    defineSenderCheck({
      id: `${p}-RETRY-007`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429'], scenarios: ['retry-429', 'retry-429-date'],
      title: 'a document answered 429 is sent again',
      judge: retriedAfter('429', is429) }),
    defineSenderCheck({
      id: `${p}-RETRY-008`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429', 'retry-after'], scenarios: ['retry-429'],
      title: 'a 429 is not retried before its Retry-After (a number of seconds)',
      judge: waitsRetryAfter('seconds') }),
    defineSenderCheck({
      id: `${p}-RETRY-009`, interface: iface, level: 'should', sections: retrySections, clauses: clauses.retry5xx, tags: ['retry', '5xx'], scenarios: ['retry-5xx'],
      title: `the sender keeps retrying through ${FAILURES_BEFORE_ACCEPT} consecutive 5xx`,
      judge: keepsRetrying }),
    defineSenderCheck({
      id: `${p}-RETRY-010`, interface: iface, level: statusLevel, sections: pace, clauses: clauses.retry429, tags: ['retry', '429', 'retry-after', 'http-date'], scenarios: ['retry-429-date'],
      title: 'a 429 whose Retry-After is an HTTP-date is not retried before that date',
      judge: waitsRetryAfter('date') }),
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
      judge: notRetriedAfter(String(status), isStatus(status), 'retried') }),
  );
}

/** A final answer (202, the duplicate answer, any 2xx on B) ends the delivery. */
function ackChecks({ iface, p, clauses }: DeliveryContext): SenderCheck[] {
  if (interfaceSpec(iface).document === 'job') {
    return [
      defineSenderCheck({
        id: `${p}-ACK-001`, interface: iface, level: 'should', sections: ['§4.1', '§2.3'], clauses: clauses.accepted, tags: ['accepted', '202'], scenarios: ['accept'],
        title: 'the 202 acknowledgment ends the delivery: the job is not sent again',
        judge: notRetriedAfter('202', isAccepted(202), 'sent again', { sameDocument: true }) }),
    ];
  }
  return [
    defineSenderCheck({
      id: `${p}-ACK-001`, interface: iface, level: 'should', sections: ['§7', '§4.2'], clauses: clauses.accepted, tags: ['accepted', '202'], scenarios: ['accept'],
      title: 'a 202 ends the delivery: the event is not sent again',
      judge: notRetriedAfter('202', isAccepted(202), 'sent again', { sameDocument: true }) }),
    defineSenderCheck({
      id: `${p}-ACK-002`, interface: iface, level: 'should', sections: ['§2.13', '§7'], clauses: ['§6.5-1'], tags: ['accepted', 'duplicate'], scenarios: ['duplicate'],
      title: 'the duplicate answer 202 {"ok":true,"duplicate":true} ends the delivery',
      judge: notRetriedAfter('202 {"ok":true,"duplicate":true}', isDuplicate, 'sent again', { sameDocument: true }) }),
    ...([['ACK-003', 200, 'ok-200', ''], ['ACK-004', 201, 'ok-201', ''], ['ACK-005', 204, 'ok-204', ' (no body)']] as const).map(([id, status, scenario, body]) =>
      defineSenderCheck({
        id: `${p}-${id}`, interface: iface, level: 'should', sections: ['§6.5'], clauses: ['§6.5-1'], tags: ['accepted', '2xx', String(status)], scenarios: [scenario],
        title: `a ${status}${body} ends the delivery too (any 2xx means accepted)`,
        judge: notRetriedAfter(String(status), isAccepted(status), 'sent again', { sameDocument: true }) }),
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
      judge: newDocumentsNewIds }),
  ];
}

/** How soon the first attempt comes. */
function timingChecks({ iface, p, statusLevel }: DeliveryContext): SenderCheck[] {
  return [
    defineSenderCheck({
      id: `${p}-TIME-001`, interface: iface, level: 'should', sections: statusLevel === 'must' ? ['§8'] : ['§4.1', '§8'], clauses: ['§8-7'], tags: ['timing'], scenarios: ['accept'],
      title: `the first attempt comes within ${FIRST_ATTEMPT_TARGET_SECONDS} s of the trigger`,
      judge: promptFirstAttempt }),
  ];
}

function deliveryChecks(iface: InterfaceId): SenderCheck[] {
  const context = contextOf(iface);
  return [identityChecks, firstRetryChecks, sameOnRetryChecks, retryPaceChecks, rejectChecks, ackChecks, timingChecks].flatMap((checks) => checks(context));
}

export const deliveryChecksB = deliveryChecks('B');
export const deliveryChecksA = deliveryChecks('A');
