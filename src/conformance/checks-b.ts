/**
 * Interface B checks: the platform's events endpoint (§4.2) as a receiver must behave by §5–§9.
 * Every request is valid except for the one thing the check varies; event_ids are fresh per check.
 */
import { randomBytes } from 'node:crypto';
import { EVENT_TYPES, MAX_BODY_BYTES, MAX_EVENT_ID_LENGTH, SIGNATURE_WINDOW_SECONDS, SURELY_ALLOWED_BODY_BYTES, type EventType } from '../spec/constants.js';
import { compact, escapedField, eventDoc, looseLayout, NON_ASCII_TEXT, reversedKeys, withPath, bodyOfSize, type Doc } from './bodies.js';
import { expectStatus, type CheckDefinition, type CheckScope } from './define.js';
import { describeAnswer, fail, pass, skip } from './outcomes.js';
import { ACCEPTED, type StatusExpectation } from './expectations.js';
import { isDuplicateAck } from '../spec/acknowledgment.js';
import { isWellFormedRetryAfter } from '../spec/retry-after.js';
import { WINDOW_MARGIN_SECONDS } from './settings.js';

/** §7: 401 for an invalid signature, a timestamp outside the window, an unrecognised provider. */
const UNAUTHORISED: StatusExpectation = { statuses: [401], describe: '401 (rejected: authentication)' };
/**
 * A missing or malformed header: §7 names 401 for an invalid signature; a receiver may also call a missing
 * header a bad request. Either rejects without retry; anything else (2xx, 5xx) fails.
 */
const AUTH_HEADER_REJECTED: StatusExpectation = { statuses: [401, 400], describe: '401 (or 400): rejected' };
/** §7: 400 for an invalid schema; never 5xx. */
const BAD_REQUEST: StatusExpectation = { statuses: [400], describe: '400 (rejected: invalid schema)' };
const DUPLICATE = '202 {"ok":true,"duplicate":true}';


function freshLead(): string {
  return `lead-conf-${randomBytes(6).toString('hex')}`;
}

/** A valid event for the known lead (--lead-id) when one is given; otherwise for a fresh lead (§6.3 allows it). */
function event(scope: CheckScope, type: EventType = 'conversation.message'): Doc {
  return eventDoc(type, scope.eventId(), scope.session.config.leadId ?? freshLead(), scope.session.config.branchCode);
}

function acceptedEvent(scope: CheckScope, body: Buffer) {
  return expectStatus(scope, { body }, ACCEPTED);
}

const section = (...sections: string[]) => sections;

const acceptance: CheckDefinition[] = EVENT_TYPES.map((type, index) => ({
  id: `B-ACCEPT-00${index + 1}`,
  interface: 'B' as const,
  title: `a valid ${type} event is accepted with 202`,
  sections: section('§4.2', '§6', type === 'job.closed' ? '§2.7' : type === 'conversation.message' ? '§2.5' : '§2.6'),
  level: 'must' as const,
  tags: ['acceptance', 'events'],
  run: (scope: CheckScope) => acceptedEvent(scope, compact(event(scope, type))),
}));

const moreAcceptance: CheckDefinition[] = [
  {
    id: 'B-ACCEPT-006',
    interface: 'B',
    title: 'unknown fields are ignored (top level, new event fields)',
    sections: section('§9.2'),
    level: 'must',
    tags: ['acceptance', 'schema', 'versioning'],
    run: (scope) => {
      const doc = { ...event(scope), x_future_field: 'a field from a later minor version', sentiment: { score: 0.8, label: 'positive' } };
      return acceptedEvent(scope, compact(doc));
    },
  },
  {
    id: 'B-ACCEPT-007',
    interface: 'B',
    title: 'an event for an unknown lead_id is accepted with 202',
    sections: section('§6.3'),
    level: 'must',
    tags: ['acceptance', 'lead'],
    run: (scope) => {
      const doc = eventDoc('conversation.message', scope.eventId(), `unknown-lead-${randomBytes(8).toString('hex')}`);
      return acceptedEvent(scope, compact(doc));
    },
  },
  {
    id: 'B-ACCEPT-008',
    interface: 'B',
    title: `an event_id of exactly ${MAX_EVENT_ID_LENGTH} characters is accepted`,
    sections: section('§8', '§6.1', '§2.4'),
    level: 'must',
    tags: ['acceptance', 'limits'],
    run: (scope) => {
      const id = scope.eventId();
      const doc = event(scope);
      doc.event_id = (id + '-' + 'x'.repeat(MAX_EVENT_ID_LENGTH)).slice(0, MAX_EVENT_ID_LENGTH);
      return acceptedEvent(scope, compact(doc));
    },
  },
];

const dedupe: CheckDefinition[] = [
  {
    id: 'B-DEDUP-001',
    interface: 'B',
    title: 'a sequential repeat of an event_id is answered 202 {"ok":true,"duplicate":true}',
    sections: section('§6.1', '§2.13', '§7'),
    level: 'must',
    tags: ['dedupe'],
    run: async (scope) => {
      const body = compact(event(scope));
      const first = await scope.send({ body });
      if (first.status !== 202) return fail('202 for the first delivery', describeAnswer(first), first);
      if (isDuplicateAck(first)) return fail('the first delivery not marked duplicate', describeAnswer(first), first);
      const repeat = await scope.send({ body });
      return isDuplicateAck(repeat) ? pass(DUPLICATE, describeAnswer(repeat)) : fail(DUPLICATE, describeAnswer(repeat), repeat);
    },
  },
  {
    id: 'B-DEDUP-002',
    interface: 'B',
    title: 'concurrent repeats of one event_id: exactly one is counted as new',
    sections: section('§6.1', '§2.13'),
    level: 'must',
    tags: ['dedupe', 'concurrency'],
    run: async (scope) => {
      // Three rounds of 8 simultaneous deliveries: a check-then-insert race shows up in at least one.
      for (let round = 1; round <= 3; round += 1) {
        const body = compact(event(scope));
        const answers = await scope.sendAll(Array.from({ length: 8 }, () => ({ body })));
        const notAccepted = answers.find((answer) => answer.status !== 202);
        if (notAccepted) return fail('202 for every delivery', describeAnswer(notAccepted), notAccepted);
        const fresh = answers.filter((answer) => !isDuplicateAck(answer));
        if (fresh.length !== 1) {
          return fail(
            `1 of 8 concurrent deliveries new, 7 ${DUPLICATE}`,
            `round ${round}: ${fresh.length} of 8 answered as new`,
            fresh[1] ?? answers[0],
          );
        }
      }
      return pass('1 of 8 concurrent deliveries new, 7 duplicates (3 rounds)', '1 new, 7 duplicates in each of 3 rounds');
    },
  },
  {
    id: 'B-DEDUP-003',
    interface: 'B',
    title: 'a repeat that fails authentication gets 401, never a duplicate answer',
    sections: section('§5.5', '§7', '§6.1'),
    level: 'must',
    tags: ['dedupe', 'auth'],
    run: async (scope) => {
      const body = compact(event(scope));
      const first = await scope.send({ body });
      if (first.status !== 202) return fail('202 for the first delivery', describeAnswer(first), first);
      const forged = await scope.send({ body, signature: { kind: 'wrong-secret', secret: randomBytes(24).toString('hex') } });
      return forged.status === 401 ? pass(UNAUTHORISED.describe, describeAnswer(forged)) : fail(UNAUTHORISED.describe, describeAnswer(forged), forged);
    },
  },
  {
    id: 'B-DEDUP-004',
    interface: 'B',
    title: 'an event rejected with 401 is not recorded: the same event correctly signed is then new',
    sections: section('§6.1', '§7'),
    level: 'must',
    tags: ['dedupe', 'auth'],
    run: async (scope) => {
      const body = compact(event(scope));
      const forged = await scope.send({ body, signature: { kind: 'wrong-secret', secret: randomBytes(24).toString('hex') } });
      if (forged.status !== 401) return fail('401 for the wrongly signed delivery', describeAnswer(forged), forged);
      const genuine = await scope.send({ body });
      if (genuine.status !== 202 || isDuplicateAck(genuine)) return fail('202, not marked duplicate', describeAnswer(genuine), genuine);
      return pass('202, not marked duplicate', describeAnswer(genuine));
    },
  },
  {
    id: 'B-DEDUP-005',
    interface: 'B',
    title: 'a repeat with the same event_id but a changed body is still a duplicate',
    sections: section('§6.1', '§2.13'),
    level: 'must',
    tags: ['dedupe'],
    run: async (scope) => {
      const doc = event(scope);
      const first = await scope.send({ body: compact(doc) });
      if (first.status !== 202) return fail('202 for the first delivery', describeAnswer(first), first);
      const repeat = await scope.send({ body: compact({ ...doc, text: `${String(doc.text ?? '')} (edited)` }) });
      return isDuplicateAck(repeat) ? pass(DUPLICATE, describeAnswer(repeat)) : fail(DUPLICATE, describeAnswer(repeat), repeat);
    },
  },
];

const rawBody: CheckDefinition[] = [
  {
    id: 'B-SIG-001',
    interface: 'B',
    title: 'the signature covers the raw bytes: odd whitespace, tabs and CRLF are accepted',
    sections: section('§5.2', '§5.3'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => acceptedEvent(scope, Buffer.from(looseLayout(event(scope)), 'utf8')),
  },
  {
    id: 'B-SIG-002',
    interface: 'B',
    title: 'the signature covers the raw bytes: keys in an unusual order are accepted',
    sections: section('§5.2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => acceptedEvent(scope, compact(reversedKeys(event(scope)))),
  },
  {
    id: 'B-SIG-003',
    interface: 'B',
    title: 'the signature covers the raw bytes: \\u escapes and \\/ in strings are accepted',
    sections: section('§5.2', '§2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => {
      const doc = { ...event(scope), text: NON_ASCII_TEXT };
      return acceptedEvent(scope, Buffer.from(escapedField(doc, 'text'), 'utf8'));
    },
  },
  {
    id: 'B-SIG-004',
    interface: 'B',
    title: 'the signature covers the raw bytes: non-ASCII UTF-8 text is accepted',
    sections: section('§5.2', '§2', '§2.1'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => acceptedEvent(scope, compact({ ...event(scope), text: NON_ASCII_TEXT })),
  },
  {
    id: 'B-SIG-005',
    interface: 'B',
    title: 'the signature covers the raw bytes: a trailing newline after the JSON is accepted',
    sections: section('§5.2'),
    level: 'must',
    tags: ['signature', 'raw-body'],
    run: (scope) => acceptedEvent(scope, Buffer.concat([compact(event(scope)), Buffer.from('\n')])),
  },
];

const auth: CheckDefinition[] = [
  {
    id: 'B-AUTH-001',
    interface: 'B',
    title: 'a signature made with another secret is rejected with 401',
    sections: section('§5.3', '§7'),
    level: 'must',
    tags: ['auth', 'signature'],
    run: (scope) =>
      expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'wrong-secret', secret: randomBytes(24).toString('hex') } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-002',
    interface: 'B',
    title: 'the valid signature of another body is rejected with 401',
    sections: section('§5.2', '§5.3', '§7'),
    level: 'must',
    tags: ['auth', 'signature'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'other-body', body: compact(event(scope)) } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-003',
    interface: 'B',
    title: 'a signature over another timestamp than the one sent is rejected with 401',
    sections: section('§5.2', '§5.4', '§7'),
    level: 'must',
    tags: ['auth', 'signature'],
    run: (scope) =>
      expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'other-timestamp', timestamp: scope.session.targetNowSeconds() - 7 } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-004',
    interface: 'B',
    title: 'a request without X-CAI-Signature is rejected',
    sections: section('§4.2', '§5.3', '§7'),
    level: 'must',
    tags: ['auth', 'headers'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'none' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-005',
    interface: 'B',
    title: 'a request without X-CAI-Timestamp is rejected',
    sections: section('§4.2', '§5.4', '§7'),
    level: 'must',
    tags: ['auth', 'headers'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'none' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-006',
    interface: 'B',
    title: 'a truncated signature (63 hex digits) is rejected',
    sections: section('§5.3', '§5.5', '§7'),
    level: 'must',
    tags: ['auth', 'headers', 'signature'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'truncated' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-007',
    interface: 'B',
    title: 'a signature header that is not sha256=<hex> is rejected',
    sections: section('§4.2', '§5.3', '§7'),
    level: 'must',
    tags: ['auth', 'headers', 'signature'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), signature: { kind: 'literal', value: 'sha256=not-a-hex-digest' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-008',
    interface: 'B',
    title: 'a timestamp that is not an integer of seconds is rejected',
    sections: section('§4.2', '§5.4', '§7'),
    level: 'must',
    tags: ['auth', 'headers', 'window'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'literal', value: new Date().toISOString() } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-009',
    interface: 'B',
    title: 'a timestamp in milliseconds (correctly signed) is rejected',
    sections: section('§4.2', '§5.5', '§7'),
    level: 'must',
    tags: ['auth', 'window'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'milliseconds' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-010',
    interface: 'B',
    title: `a timestamp ${SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS} s in the past (correctly signed) is rejected with 401`,
    sections: section('§5.5', '§7'),
    level: 'must',
    tags: ['auth', 'window', 'clock'],
    run: (scope) =>
      expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'now', shiftSeconds: -(SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS) } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-011',
    interface: 'B',
    title: `a timestamp ${SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS} s in the future (correctly signed) is rejected with 401`,
    sections: section('§5.5', '§7'),
    level: 'must',
    tags: ['auth', 'window', 'clock'],
    run: (scope) =>
      expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'now', shiftSeconds: SIGNATURE_WINDOW_SECONDS + WINDOW_MARGIN_SECONDS } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-012',
    interface: 'B',
    title: `a timestamp ${SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS} s in the past is accepted`,
    sections: section('§5.5'),
    level: 'should',
    tags: ['auth', 'window', 'clock'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'now', shiftSeconds: -(SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS) } }, ACCEPTED),
  },
  {
    id: 'B-AUTH-013',
    interface: 'B',
    title: `a timestamp ${SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS} s in the future is accepted`,
    sections: section('§5.5'),
    level: 'should',
    tags: ['auth', 'window', 'clock'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), timestamp: { kind: 'now', shiftSeconds: SIGNATURE_WINDOW_SECONDS - WINDOW_MARGIN_SECONDS } }, ACCEPTED),
  },
  {
    id: 'B-AUTH-014',
    interface: 'B',
    title: 'an unrecognised X-CAI-Provider (correctly signed) is rejected with 401',
    sections: section('§5.6', '§7'),
    level: 'must',
    tags: ['auth', 'provider'],
    run: (scope) =>
      expectStatus(scope, { body: compact(event(scope)), identity: { kind: 'value', value: `not-${scope.session.config.identity}-${randomBytes(3).toString('hex')}` } }, UNAUTHORISED),
  },
  {
    id: 'B-AUTH-015',
    interface: 'B',
    title: 'a request without X-CAI-Provider is rejected',
    sections: section('§4.2', '§5.6', '§7'),
    level: 'must',
    tags: ['auth', 'provider', 'headers'],
    run: (scope) => expectStatus(scope, { body: compact(event(scope)), identity: { kind: 'none' } }, AUTH_HEADER_REJECTED),
  },
  {
    id: 'B-AUTH-016',
    interface: 'B',
    title: 'a request from an unregistered origin (--source-address) is rejected with 401',
    sections: section('§5.7', '§7'),
    level: 'must',
    tags: ['origin', 'auth'],
    optional: true,
    needs: 'source-address',
    run: (scope) => {
      const address = scope.session.config.sourceAddress;
      if (!address) return Promise.resolve(skip('needs --source-address ADDRESS: a local address the platform has not registered'));
      return expectStatus(scope, { body: compact(event(scope)), sourceAddress: address }, UNAUTHORISED);
    },
  },
];

/** One schema check: a valid conversation.message (or `type`) with one change, expecting 400. */
function schemaCheck(id: string, title: string, sections: string[], change: (doc: Doc) => Doc | Buffer, type: EventType = 'conversation.message'): CheckDefinition {
  return {
    id,
    interface: 'B',
    title,
    sections,
    level: 'must',
    tags: ['schema'],
    run: (scope) => {
      const changed = change(event(scope, type));
      return expectStatus(scope, { body: Buffer.isBuffer(changed) ? changed : compact(changed) }, BAD_REQUEST);
    },
  };
}

const schema: CheckDefinition[] = [
  schemaCheck('B-SCHEMA-001', 'an event without `event` is rejected with 400', section('§2.4', '§7'), (doc) => withPath(doc, 'event', undefined)),
  schemaCheck('B-SCHEMA-002', 'an event without `event_id` is rejected with 400', section('§2.4', '§7'), (doc) => withPath(doc, 'event_id', undefined)),
  schemaCheck('B-SCHEMA-003', 'an unknown event type is rejected with 400', section('§6', '§2.4', '§7'), (doc) => withPath(doc, 'event', 'conversation.deleted')),
  schemaCheck('B-SCHEMA-004', 'a `channel` outside its enumeration is rejected with 400', section('§2.10', '§7'), (doc) => withPath(doc, 'channel', 'carrier_pigeon')),
  schemaCheck('B-SCHEMA-005', 'a `direction` outside its enumeration is rejected with 400', section('§2.10', '§7'), (doc) => withPath(doc, 'direction', 'sideways')),
  schemaCheck('B-SCHEMA-006', 'an `author` outside its enumeration is rejected with 400', section('§2.11', '§7'), (doc) => withPath(doc, 'author', 'robot')),
  schemaCheck('B-SCHEMA-007', 'an `outcome` outside its enumeration is rejected with 400', section('§2.12', '§2.7', '§7'), (doc) => withPath(doc, 'outcome', 'abducted'), 'job.closed'),
  schemaCheck('B-SCHEMA-008', '`attempts` given as a string is rejected with 400', section('§2.7', '§7'), (doc) => withPath(doc, 'attempts', '3'), 'job.closed'),
  schemaCheck('B-SCHEMA-009', '`event_id` given as a number is rejected with 400', section('§2.4', '§7'), (doc) => withPath(doc, 'event_id', Number.parseInt(randomBytes(4).toString('hex'), 16))),
  schemaCheck('B-SCHEMA-010', '`text` given as an object is rejected with 400', section('§2.4', '§7'), (doc) => withPath(doc, 'text', { value: 'hello' })),
  schemaCheck('B-SCHEMA-011', 'a `from_number_e164` that is not E.164 is rejected with 400', section('§2.1', '§2.4', '§7'), (doc) => withPath(doc, 'from_number_e164', '0612 345 678')),
  schemaCheck('B-SCHEMA-012', 'an `occurred_at` without a time-zone offset is rejected with 400', section('§2.1', '§2.4', '§7'), (doc) => withPath(doc, 'occurred_at', '2026-11-22T13:00:00')),
  schemaCheck('B-SCHEMA-013', 'a `scheduled_at` that is not a date-time is rejected with 400', section('§2.1', '§2.6', '§7'), (doc) => withPath(doc, 'scheduled_at', 'tomorrow at ten'), 'appointment.booked'),
  schemaCheck('B-SCHEMA-014', `an \`event_id\` of ${MAX_EVENT_ID_LENGTH + 1} characters is rejected with 400`, section('§8', '§6.1', '§2.4', '§7'), (doc) =>
    withPath(doc, 'event_id', (String(doc.event_id) + '-' + 'x'.repeat(MAX_EVENT_ID_LENGTH)).slice(0, MAX_EVENT_ID_LENGTH + 1)),
  ),
  schemaCheck('B-SCHEMA-015', 'malformed JSON is rejected with 400, never 5xx', section('§2', '§7'), (doc) => Buffer.from(compact(doc).toString('utf8').slice(0, -1) + ',}', 'utf8')),
  schemaCheck('B-SCHEMA-016', 'a JSON array instead of an object is rejected with 400', section('§4.2', '§7'), (doc) => compact([doc])),
  schemaCheck('B-SCHEMA-017', 'a JSON string instead of an object is rejected with 400', section('§4.2', '§7'), (doc) => compact(JSON.stringify(doc))),
  schemaCheck('B-SCHEMA-018', 'an empty body is rejected with 400', section('§4.2', '§7'), () => Buffer.alloc(0)),
];

const size: CheckDefinition[] = [
  {
    id: 'B-SIZE-001',
    interface: 'B',
    title: `a correctly signed body of ${MAX_BODY_BYTES + 1} bytes (256 KiB + 1) is rejected with 413`,
    sections: section('§8', '§7'),
    level: 'must',
    tags: ['size', 'limits'],
    run: (scope) => expectStatus(scope, { body: bodyOfSize(event(scope), 'text', MAX_BODY_BYTES + 1) }, { statuses: [413], describe: '413 (body too large)' }),
  },
  {
    id: 'B-SIZE-002',
    interface: 'B',
    title: `a valid body of ${SURELY_ALLOWED_BODY_BYTES} bytes (256 kB) is accepted`,
    sections: section('§8', '§4.2'),
    level: 'must',
    tags: ['size', 'limits', 'acceptance'],
    run: (scope) => acceptedEvent(scope, bodyOfSize(event(scope), 'text', SURELY_ALLOWED_BODY_BYTES)),
  },
  {
    // §8 says 256 KB without saying 1000 or 1024: a receiver that reads KiB accepts this too. Only a `should`,
    // since refusing it is a defensible reading of the limit.
    id: 'B-SIZE-003',
    interface: 'B',
    title: `a valid body of exactly ${MAX_BODY_BYTES} bytes (256 KiB) is accepted`,
    sections: section('§8', '§4.2'),
    level: 'should',
    tags: ['size', 'limits', 'acceptance'],
    run: (scope) => acceptedEvent(scope, bodyOfSize(event(scope), 'text', MAX_BODY_BYTES)),
  },
];

/** Requests in the bounded burst of the rate-cap check. */
export const RATE_BURST_LIMIT = 400;

const rate: CheckDefinition[] = [
  {
    id: 'B-RATE-001',
    interface: 'B',
    title: 'over the request cap: 429 with a well-formed Retry-After',
    sections: section('§7', '§8'),
    level: 'must',
    tags: ['rate-limit'],
    optional: true,
    exclusive: true,
    run: async (scope) => {
      // A paced, bounded burst: waves of 20 concurrent valid events until the first 429.
      for (let sent = 0; sent < RATE_BURST_LIMIT; sent += 20) {
        const answers = await scope.sendAll(Array.from({ length: 20 }, () => ({ body: compact(event(scope)), raw429: true })));
        const limited = answers.find((answer) => answer.status === 429);
        if (limited) {
          const retryAfter = limited.headers['retry-after'];
          const expected = '429 with Retry-After: <seconds> or an HTTP date';
          const actual = `429 after ${sent + answers.indexOf(limited) + 1} requests, Retry-After: ${retryAfter ?? '(missing)'}`;
          return isWellFormedRetryAfter(retryAfter) ? pass(expected, actual) : fail(expected, actual, limited);
        }
        const wrong = answers.find((answer) => answer.status !== 202);
        if (wrong) return fail('202 until the cap, then 429', describeAnswer(wrong), wrong);
      }
      return skip(`no 429 within ${RATE_BURST_LIMIT} requests: the cap is higher (or absent); nothing to judge`);
    },
  },
];

const clock: CheckDefinition[] = [
  {
    id: 'B-CLOCK-001',
    interface: 'B',
    title: 'the target sends a Date header and its clock is within 30 s of ours',
    sections: section('§5.5'),
    level: 'should',
    tags: ['clock'],
    run: async (scope) => {
      const reading = scope.session.clock;
      if (reading.dateHeader === null) return fail('a Date header', 'no Date header: the clock offset cannot be measured');
      if (reading.offsetSeconds === null) return fail('a Date header in HTTP-date form', `Date: ${reading.dateHeader}`);
      const actual = `offset ${reading.offsetSeconds >= 0 ? '+' : ''}${reading.offsetSeconds} s`;
      return Math.abs(reading.offsetSeconds) <= 30 ? pass('|offset| ≤ 30 s', actual) : fail('|offset| ≤ 30 s (the window is ±300 s)', actual);
    },
  },
];

export const interfaceBChecks: readonly CheckDefinition[] = [
  ...acceptance,
  ...moreAcceptance,
  ...dedupe,
  ...rawBody,
  ...auth,
  ...schema,
  ...size,
  ...rate,
  ...clock,
];
