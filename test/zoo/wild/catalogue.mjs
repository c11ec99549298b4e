// The wild zoo's catalogue: every program of test/zoo/wild/ as one entry a test can start the same way.
//
// An entry: { id, interface: 'A'|'B', role: 'receiver', kind: 'broken'|'correct', relation, clause, description,
// command: [interpreter, ...args] (paths relative to the repository root), env }. A started program prints its
// URL as the first stdout line (B: the events URL; A: the provider endpoint), then one line per new document,
// and runs until SIGTERM. B takes its secret from CAI_SECRET and the provider code from --provider; A takes the
// jobs secret from CAI_SECRET, the events secret from CAI_CALLBACK_SECRET, the platform id from --source and the
// code it puts on its events from --provider. The secrets below are test values of this zoo only.
//
// Broken entries commit one mistake each (relation and clause: what they break); correct entries use a latitude
// of the spec (relation and clause: where the latitude lies) and must pass a conformance run with no failure.
import { FAULTS as A_FAULT_TABLE } from './receiver-a.mjs';

export const B_PROVIDER = 'zoo-wild';
export const B_SECRET = 'wild-b-events-secret-0c5e';
export const A_SOURCE = 'zoo-platform';
export const A_PROVIDER = 'zoo-wild';
export const A_JOBS_SECRET = 'wild-a-jobs-secret-7d21';
export const A_EVENTS_SECRET = 'wild-a-events-secret-93fa';

const B_PROGRAM = ['python3', 'test/zoo/wild/receiver_b.py', '--provider', B_PROVIDER];
const A_PROGRAM = ['node', 'test/zoo/wild/receiver-a.mjs', '--source', A_SOURCE, '--provider', A_PROVIDER];
const B_ENV = { CAI_SECRET: B_SECRET };
const A_ENV = { CAI_SECRET: A_JOBS_SECRET, CAI_CALLBACK_SECRET: A_EVENTS_SECRET };

// receiver_b.py --list-faults prints the same table (witness.mjs --all checks that they agree).
export const B_FAULTS = [
  {
    name: 'content-type-exact',
    relation: 'RB1',
    clause: '§2, §4.2',
    description:
      "refuses (415) any Content-Type but the exact string application/json: 'application/json; charset=utf-8' is refused",
  },
  {
    name: 'chunked-411',
    relation: 'RB1',
    clause: '§4.2',
    description: 'reads the body by Content-Length only: a chunked request body is answered 411',
  },
  {
    name: 'envelope-fields-per-type',
    relation: 'RB1',
    clause: '§2.4, §9.2',
    description:
      'takes the lists of §2.6/§2.7 as closed: an envelope field (provider_job_id, channel...) on an appointment or job.closed event is refused 400',
  },
  {
    name: 'no-drain-on-401',
    relation: 'RB1',
    clause: '§4.2, §7',
    description:
      'answers a 401 decided from the headers before reading the body and keeps the connection: the next request on it is read from the unread body and refused',
  },
  {
    name: 'date-time-whole-hour-offsets',
    relation: 'RB1',
    clause: '§2.1',
    description: 'accepts only offsets of whole hours (±HH:00, Z): +05:45 or -09:30 is refused 400',
  },
  {
    name: 'size-at-limit-refused',
    relation: 'RB1',
    clause: '§8',
    description: 'refuses (413) a body of exactly 256 KB: the limit is compared with >=',
  },
  {
    name: 'dedupe-by-type',
    relation: 'RB2',
    clause: '§6.1',
    description: 'keys its dedupe memory on (event type, event_id): the repeat with another type is new',
  },
  {
    name: 'dedupe-per-connection',
    relation: 'RB2',
    clause: '§6.1',
    description: 'keeps its dedupe memory per connection: a repeat on a new connection is new',
  },
  {
    name: 'dedupe-forgets-after-100',
    relation: 'RB2',
    clause: '§6.1',
    description: 'remembers the last 100 event_ids only: a repeat after 100 others is new',
  },
  {
    name: 'dedupe-forgets-after-7s',
    relation: 'RB2',
    clause: '§6.1, §7',
    description: 'keeps an event_id for 7 s after it was first recorded (a cache time-to-live): a later repeat is new',
  },
  {
    name: 'dedupe-race',
    relation: 'RB2',
    clause: '§6.1',
    description:
      'checks the memory, stores the record, then marks the id: of concurrent repeats of a new event_id several are recorded as new',
  },
  {
    name: 'dedupe-raw-id',
    relation: 'RB2',
    clause: '§6.1',
    description: 'keys its memory on the event_id as spelt in the raw body: the same id sent with a \\u escape is new',
  },
  {
    name: 'dedupe-first-64',
    relation: 'RB3',
    clause: '§6.1',
    description:
      'keys its memory on the first 64 characters of the event_id (a column of 64): two ids that differ after them are one',
  },
  {
    name: 'dedupe-url-decoded',
    relation: 'RB3',
    clause: '§6.1',
    description: "keys its memory on the percent-decoded event_id: 'a%2Fb' after 'a/b' is a repeat",
  },
  {
    name: 'dedupe-uuid-column',
    relation: 'RB3',
    clause: '§6.1',
    description:
      "keys its memory on a UUID column: an event_id that is a UUID is one value in either case and without hyphens, so 'A0EE...' after 'a0ee...' is a repeat",
  },
  {
    name: 'duplicate-before-auth',
    relation: 'RB4',
    clause: '§5, §7',
    description: 'looks the event_id up before verifying: a repeat with a wrong signature is answered 202 duplicate',
  },
  {
    name: 'provider-optional',
    relation: 'RB4',
    clause: '§5.6',
    description: 'takes a missing X-CAI-Provider for its one provider: the request is accepted',
  },
  {
    name: 'timestamp-int-parse',
    relation: 'RB4',
    clause: '§4.2, §5.4',
    description:
      "parses X-CAI-Timestamp with int(): '1_700_000_000', ' 1700000000' or '+1700000000' are accepted when signed",
  },
  {
    name: 'origin-x-forwarded-for',
    relation: 'RB4',
    clause: '§5.7',
    description:
      'takes the origin from X-Forwarded-For when present: an unregistered address that claims a registered one is accepted',
  },
  {
    name: 'empty-previous-secret',
    relation: 'RB4',
    clause: '§5.1, §5.3, §5.9',
    description:
      "verifies with the previous secret of a rotation too, a setting that defaults to '': a request signed with the empty secret is accepted",
  },
  {
    name: 'window-reads-last-timestamp',
    relation: 'RB4',
    clause: '§5.4, §5.5',
    description:
      'signs over the first X-CAI-Timestamp line and judges the window on the last: a stale signed request replayed with a second, fresh timestamp line is accepted',
  },
  {
    name: 'non-object-500',
    relation: 'RB5',
    clause: '§2.4, §7',
    description: 'reads fields of the parsed body without checking it is an object: [] or 1 is answered 500',
  },
  {
    name: 'bad-utf8-500',
    relation: 'RB5',
    clause: '§2, §7',
    description: 'catches JSONDecodeError only: a body that is not UTF-8 is answered 500',
  },
  {
    name: 'utf8-replaced',
    relation: 'RB5',
    clause: '§2',
    description:
      "decodes the body with errors='replace': bytes that are not UTF-8 inside a string are read as U+FFFD and the event taken (its event_id changed)",
  },
  {
    name: 'deep-nesting-500',
    relation: 'RB5',
    clause: '§7, §9.2',
    description:
      "catches ValueError only: an unknown field nested deeper than Python's recursion limit is answered 500",
  },
  {
    name: 'unpaired-surrogate-500',
    relation: 'RB5',
    clause: '§7, §9.2',
    description:
      'stores the document as UTF-8 text without a handler: a string with an unpaired surrogate escape (\\ud800) is answered 500',
  },
  {
    name: 'date-time-offset-optional',
    relation: 'RB5',
    clause: '§2.1',
    description: 'takes the offset of a date-time as optional: 2024-05-01T10:00:00 is accepted',
  },
  {
    name: 'date-calendar-unchecked',
    relation: 'RB5',
    clause: '§2.1',
    description: "checks a date-time's digits, not the calendar: 2026-02-30T10:00:00+01:00 is accepted",
  },
  {
    name: 'duplicate-before-schema',
    relation: 'RB5',
    clause: '§6.1, §7',
    description:
      'looks the event_id up before validating: an invalid document with an accepted id is answered 202 duplicate',
  },
  {
    name: 'e164-strips-formatting',
    relation: 'RB5',
    clause: '§2.1',
    description: "strips spaces, dashes, dots and parentheses before checking E.164: '+1 415-555-2671' is accepted",
  },
  {
    name: 'raw-decode',
    relation: 'RB5',
    clause: '§2',
    description:
      'parses the body with json.JSONDecoder().raw_decode: text after the JSON document is ignored and the event taken',
  },
  {
    name: 'date-time-unanchored',
    relation: 'RB5',
    clause: '§2.1',
    description: "matches a date-time with re.match, no end anchor: '2026-11-22T13:00:00+01:00 CET' is accepted",
  },
  {
    name: 'lead-id-strip-crash',
    relation: 'RB5',
    clause: '§2.4, §7',
    description:
      'calls .strip() on lead_id without checking it is a string, outside its error handling: a numeric lead_id raises in the handler and the connection is closed with no answer',
  },
  {
    name: 'size-truncates',
    relation: 'RB6',
    clause: '§8',
    description: 'reads at most 256 KB and judges what it read: an oversize body fails the signature (401), never 413',
  },
  {
    name: 'size-of-compact-json',
    relation: 'RB6',
    clause: '§8',
    description:
      'measures the re-serialised compact document, not the body: a pretty-printed body over 256 KB is accepted',
  },
  {
    name: 'negative-cache',
    relation: 'RB7',
    clause: '§7',
    description: 'remembers the event_ids it refused as invalid: the same id sent next, valid, is refused 400',
  },
  {
    name: 'records-before-window',
    relation: 'RB7',
    clause: '§5.5',
    description:
      'records the event once the signature verifies, then judges the window: a stale request is refused 401 but its id is answered duplicate next',
  },
  {
    name: 'duplicate-200',
    relation: 'RB8',
    clause: '§2.13',
    description: 'answers the duplicate with status 200 (the body is right)',
  },
  {
    name: 'duplicate-text-plain',
    relation: 'RB8',
    clause: '§2, §2.13',
    description: 'labels the duplicate body text/plain',
  },
  {
    name: 'same-body-for-both',
    relation: 'RB8',
    clause: '§2.13, §4.2',
    description: 'answers every acceptance with {"ok":true,"duplicate":true}, the first one included',
  },
  {
    name: 'duplicate-ok-false',
    relation: 'RB8',
    clause: '§2.13',
    description: 'answers the duplicate {"ok":false,"duplicate":true}',
  },
  {
    name: '429-no-retry-after',
    relation: 'RB8',
    clause: '§7',
    description: 'a request cap (every 5th request) answered 429 without Retry-After',
  },
  {
    name: 'attempts-overflow-500',
    relation: 'RB5',
    clause: '§2.7, §7',
    description: 'stores attempts in a signed 64-bit column: a value past 2**63 - 1 overflows and is answered 500',
  },
  {
    name: 'content-length-chars',
    relation: 'RB8',
    clause: '§2, §4.2',
    description:
      'echoes the event_id in its acceptance with ensure_ascii=False and counts Content-Length in characters: ' +
      'the answer to a non-ASCII event_id is cut short and leaves bytes on the connection',
  },
  {
    name: 'dedupe-ts-window',
    relation: 'RB2',
    clause: '§6.1, §5.4',
    description:
      'keys its dedupe memory on (event_id, the 10-minute bucket of X-CAI-Timestamp): a retry re-signed ' +
      'with a timestamp in the next bucket, still inside the window, is recorded twice',
  },
  {
    name: 'empty-lead-400',
    relation: 'RB1',
    clause: '§2.4, §6.3',
    description: 'refuses an empty lead_id ("") with 400: a string it does not recognise as a lead',
  },
  {
    name: 'e164-unicode-digits',
    relation: 'RB5',
    clause: '§2.1',
    description:
      "checks E.164 with Python's \\d, which matches any Unicode digit: '+١٢٣٤٥٦٧٨٩٠' (Arabic-Indic digits) is accepted",
  },
  {
    name: 'empty-text-400',
    relation: 'RB1',
    clause: '§2.4, §2.5',
    description: 'refuses an empty text ("") with 400',
  },
  {
    name: 'scheduled-past-400',
    relation: 'RB1',
    clause: '§2.6',
    description: 'refuses a scheduled_at in the past with 400 (a cancelled or rescheduled appointment may lie there)',
  },
  {
    name: 'attempts-zero-400',
    relation: 'RB1',
    clause: '§2.7',
    description: 'refuses attempts 0 with 400 (counts from 1)',
  },
  {
    name: 'offset-range-unchecked',
    relation: 'RB5',
    clause: '§2.1',
    description: "checks a date-time's offset for two digits only: +25:00 or -24:30 is accepted",
  },
  {
    name: 'job-id-number',
    relation: 'RB5',
    clause: '§2.4',
    description: 'does not type provider_job_id: a number is accepted',
  },
  {
    name: 'appointment-fields-number',
    relation: 'RB5',
    clause: '§2.6',
    description: 'does not type branch_code, service and notes: numbers are accepted',
  },
];

/**
 * Faults caught by a fixed probe of a check that other runs already exercise: each is witnessed (witness.mjs) and
 * judged by a run on demand (`node test/zoo/measure.mjs`, `WILD_ON_DEMAND=1` in wild-receivers.test.ts, or cai
 * against `receiver_b.py --fault NAME`), but not run in CI, whose conformance step has no time left for a run each
 * (their entries carry `ci: false`).
 */
export const ON_DEMAND = new Set([
  'empty-text-400',
  'scheduled-past-400',
  'attempts-zero-400',
  'offset-range-unchecked',
  'job-id-number',
  'appointment-fields-number',
]);

export const A_FAULTS = Object.entries(A_FAULT_TABLE).map(([name, f]) => ({ name, ...f }));

// Unusual but correct: each uses the latitude of one relation differently from the first zoo.
const B_CORRECT = [
  {
    id: 'wild-b-plain',
    relation: 'RB1',
    clause: '§4.2, §6.5',
    description: 'the reference: 202 {"ok":true}, JSON errors, keep-alive, size before signature',
    args: [],
  },
  {
    id: 'wild-b-201-duplicate-false',
    relation: 'RB1',
    clause: '§6.5, §4.2',
    description: 'a first acceptance is 201 {"ok":true,"duplicate":false} labelled application/json; charset=utf-8',
    args: ['--success', '201', '--ack', 'duplicate-false', '--charset'],
  },
  {
    id: 'wild-b-file-memory',
    relation: 'RB2',
    clause: '§6.1',
    description:
      'the dedupe memory is a file (JSON lines, fsynced before the answer; with --store PATH read back at start)',
    args: ['--store', 'auto'],
  },
  {
    id: 'wild-b-204',
    relation: 'RB3',
    clause: '§6.5',
    description: 'a first acceptance is 204 with no body; a repeat is 202 with the duplicate body',
    args: ['--success', '204'],
  },
  {
    id: 'wild-b-close-empty-errors',
    relation: 'RB4',
    clause: '§7',
    description: 'Connection: close after every answer; errors with an empty body',
    args: ['--close', '--errors', 'empty'],
  },
  {
    id: 'wild-b-html-http10',
    relation: 'RB5',
    clause: '§7',
    description: 'answers in HTTP/1.0, one request per connection, errors as HTML pages (text/html)',
    args: ['--http10', '--errors', 'html'],
  },
  {
    id: 'wild-b-signature-before-size',
    relation: 'RB6',
    clause: '§7, §8',
    description:
      'reads the body up to 8 MiB and verifies the signature before judging the size (an unsigned oversize body is 401); ' +
      'errors as application/problem+json',
    args: ['--order', 'auth-first', '--errors', 'problem'],
  },
  {
    id: 'wild-b-200-chunked',
    relation: 'RB7',
    clause: '§6.5',
    description: 'a first acceptance is 200 with an empty body; every answer with a body is sent chunked',
    args: ['--success', '200', '--ack', 'none', '--chunked'],
  },
  {
    id: 'wild-b-429-http-date',
    relation: 'RB8',
    clause: '§7',
    description:
      'a request cap: every 5th request is answered 429 with Retry-After as an HTTP-date (1 to 2 s ahead); ' +
      'the first acceptance is 202 with extra fields',
    args: ['--rate-every', '5', '--retry-after', 'date', '--ack', 'extra'],
  },
];

const A_CORRECT = [
  {
    id: 'wild-a-plain',
    relation: 'RA1',
    clause: '§4.1, §2.3',
    description: 'the reference: two messages then appointment.booked, 100 ms apart; JSON errors, 401 and 400',
    args: [],
  },
  {
    id: 'wild-a-ack-extra',
    relation: 'RA1',
    clause: '§2.3, §9.2',
    description:
      'the acknowledgment carries extra fields (status, received_at, branch_code), labelled with charset=utf-8',
    args: ['--ack-extra', '--charset'],
  },
  {
    id: 'wild-a-slow-many',
    relation: 'RA2',
    clause: '§3, §6',
    description:
      'calls back slowly: 1.5 s before the first event, then five messages, appointment.booked and ' +
      'appointment.rescheduled 0.6 s apart',
    args: ['--messages', '5', '--pace', '600', '--first-delay', '1500', '--ending', 'booked-rescheduled'],
  },
  {
    id: 'wild-a-one-message-closed',
    relation: 'RA3',
    clause: '§3, §6',
    description: 'one message and then job.closed',
    args: ['--messages', '1', '--ending', 'closed'],
  },
  {
    id: 'wild-a-403-problem',
    relation: 'RA4',
    clause: '§4.1',
    description: 'refuses an unauthenticated job with 403 and an application/problem+json body',
    args: ['--auth-status', '403', '--errors', 'problem'],
  },
  {
    id: 'wild-a-422-text-close',
    relation: 'RA5',
    clause: '§4.1',
    description: 'refuses an invalid job with 422 and a text/plain body; Connection: close after every answer',
    args: ['--schema-status', '422', '--errors', 'text', '--close'],
  },
  {
    id: 'wild-a-400-everything-chunked',
    relation: 'RA7',
    clause: '§4.1',
    description: 'refuses unauthenticated and invalid jobs alike with 400 and an empty body; answers sent chunked',
    args: ['--auth-status', '400', '--errors', 'empty', '--chunked-answers'],
  },
  {
    id: 'wild-a-keep-alive-chunked-pretty',
    relation: 'RA8',
    clause: '§5.2, §7',
    description:
      'sends its events on kept-alive connections, chunked, pretty-printed with CRLF line ends and signed as sent; ' +
      'retries from 300 ms',
    args: ['--keep-alive-callbacks', '--chunked-callbacks', '--pretty-events', '--base-delay', '300'],
  },
];

export const catalogue = [
  ...B_FAULTS.map((f) => ({
    id: `wild-b-${f.name}`,
    interface: 'B',
    role: 'receiver',
    kind: 'broken',
    relation: f.relation,
    clause: f.clause,
    description: f.description,
    command: [...B_PROGRAM, '--fault', f.name],
    env: { ...B_ENV },
    ...(ON_DEMAND.has(f.name) ? { ci: false } : {}),
  })),
  ...B_CORRECT.map((c) => ({
    id: c.id,
    interface: 'B',
    role: 'receiver',
    kind: 'correct',
    relation: c.relation,
    clause: c.clause,
    description: c.description,
    command: [...B_PROGRAM, ...c.args],
    env: { ...B_ENV },
  })),
  ...A_FAULTS.map((f) => ({
    id: `wild-a-${f.name}`,
    interface: 'A',
    role: 'receiver',
    kind: 'broken',
    relation: f.relation,
    clause: f.clause,
    description: f.description,
    command: [...A_PROGRAM, '--fault', f.name],
    env: { ...A_ENV },
  })),
  ...A_CORRECT.map((c) => ({
    id: c.id,
    interface: 'A',
    role: 'receiver',
    kind: 'correct',
    relation: c.relation,
    clause: c.clause,
    description: c.description,
    command: [...A_PROGRAM, ...c.args],
    env: { ...A_ENV },
  })),
];

export default catalogue;
