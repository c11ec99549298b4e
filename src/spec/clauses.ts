/**
 * Every normative statement of the spec, one row each, with a stable id (`§5.5-1`: the section, then the statement's
 * place in it), its level, and the roles it binds. A sentence that holds two rules is two rows. Each conformance
 * check names the clauses it covers (src/conformance); a clause no check covers says why (`untestable`), so that
 * `cai conformance coverage` shows every statement and which checks enforce it, and a test fails when a `must`
 * clause has neither. Plain data.
 */

/** Who a clause binds: the platform's events endpoint, the provider's contact-jobs endpoint, and their senders. */
export type ClauseRole = 'platform-receiver' | 'provider-receiver' | 'event-sender' | 'job-sender';

/** `must`: the spec states it as a rule; `should`: a reference value or a rule it leaves room around; `open`: not fixed. */
export type ClauseLevel = 'must' | 'should' | 'open';

export interface Clause {
  id: string;
  /** The section it is in (`§5.5`), as checks cite sections. */
  section: string;
  level: ClauseLevel;
  roles: readonly ClauseRole[];
  /** The statement, in the spec's words as far as a line allows. */
  text: string;
  /** Why no check can cover it, when none can. */
  untestable?: string;
}

const RECEIVERS: readonly ClauseRole[] = ['platform-receiver', 'provider-receiver'];
const SENDERS: readonly ClauseRole[] = ['event-sender', 'job-sender'];
const ALL: readonly ClauseRole[] = [...RECEIVERS, ...SENDERS];
const EVENTS: readonly ClauseRole[] = ['platform-receiver', 'event-sender'];
const JOBS: readonly ClauseRole[] = ['provider-receiver', 'job-sender'];
const PLATFORM: readonly ClauseRole[] = ['platform-receiver'];
const PROVIDER: readonly ClauseRole[] = ['provider-receiver'];
const EVENT_SENDER: readonly ClauseRole[] = ['event-sender'];
const JOB_SENDER: readonly ClauseRole[] = ['job-sender'];

const NOT_OBSERVABLE = 'not testable from outside: it happens inside the implementation';
const ANNEX = 'annex: the values are issued per deployment, not in the spec';
const NOT_FIXED = 'not fixed by the spec';
const OPERATIONS = 'an operational commitment, measured over a month of production, not by a conformance run';

/** The clauses of one level: `must('§5.5-1', ALL, text, why no check can cover it?)`; the section is the id's. */
function clauseOf(level: ClauseLevel) {
  return (id: string, roles: readonly ClauseRole[], text: string, untestable?: string): Clause => {
    const section = id.replace(/-\d+$/, '');
    return { id, section, level, roles, text, ...(untestable ? { untestable } : {}) };
  };
}
const must = clauseOf('must');
const should = clauseOf('should');
const open = clauseOf('open');

export const CLAUSES: readonly Clause[] = [
  // §1: what the service does.
  must(
    '§1-1',
    ALL,
    'both interfaces are HTTP POST and push; neither party polls the other; no read or query endpoint exists',
    'a statement of design: a conformance run cannot show that an endpoint does not exist',
  ),
  open(
    '§1-2',
    ALL,
    'environment-specific values (provider code, catalog, credentials, authorised addresses) are issued in a private annex',
    ANNEX,
  ),
  must(
    '§1-3',
    ALL,
    'test credentials use the same URLs and signing scheme as production; their data lands in an isolated test space',
    "the test space is the deployment's; a run uses whatever credentials it is given",
  ),
  must(
    '§1-4',
    PROVIDER,
    'the provider uses the data only for this interface, never transfers it, never trains on it, deletes it at the end of the contract',
    'a data-processing commitment, not observable over HTTP',
  ),

  // §2: records.
  must('§2-1', ALL, 'every body is JSON'),
  must('§2-2', ALL, 'every body is UTF-8'),
  must('§2-3', ALL, 'every request is sent with Content-Type: application/json'),
  must('§2.1-1', ALL, 'a telephone number is an E.164 string'),
  must('§2.1-2', ALL, 'a date and time is ISO 8601 with a time-zone offset'),
  must('§2.1-3', ALL, 'a language is a BCP 47 tag'),
  must(
    '§2.2-1',
    JOBS,
    'a contact job carries lead_id, event_id, branch_code, contact (name, phone_e164) and callback_url',
  ),
  must(
    '§2.2-2',
    JOBS,
    'the fields of a contact job have the types of §2.2; origin.channel and brief.intent take the values of §2.8 and §2.9',
  ),
  must('§2.2-3', PROVIDER, 'lead_id is returned unmodified on every Interface B event'),
  must('§2.2-4', JOB_SENDER, 'event_id is unique per job: a new job carries a new one, a retry the same'),
  must('§2.2-5', PROVIDER, 'a repeated event_id is ignored by the provider'),
  open('§2.2-6', JOBS, 'the catalog values of branch_code are issued in the private annex', ANNEX),
  must('§2.3-1', JOBS, 'the job acknowledgment carries provider_job_id, a string'),
  must(
    '§2.3-2',
    JOBS,
    'the job acknowledgment carries assigned_number_e164, the E.164 origin number assigned to the contact',
  ),
  must('§2.4-1', EVENTS, 'every event carries event (its type) and event_id'),
  must('§2.4-2', EVENTS, 'event_id is at most 120 characters'),
  must('§2.4-3', EVENTS, 'the envelope fields have the types and values of §2.4, §2.10 and §2.11'),
  open(
    '§2.4-4',
    EVENTS,
    'which fields of each event type are required beyond event and event_id is not shown',
    NOT_FIXED,
  ),
  must(
    '§2.5-1',
    EVENTS,
    'a conversation.message event uses the envelope fields; one event per message, in both directions',
  ),
  must(
    '§2.6-1',
    EVENTS,
    'an appointment event carries branch_code, scheduled_at (ISO 8601 with offset), service and notes as strings',
  ),
  must('§2.7-1', EVENTS, 'a job.closed event carries outcome (§2.12) and attempts, an integer'),
  must(
    '§2.8-1',
    JOBS,
    'origin.channel is one of landing_form, contact_form, webchat, whatsapp_button, phone, referral',
  ),
  must(
    '§2.9-1',
    JOBS,
    'brief.intent is one of book_appointment, pricing_information, service_information, reschedule, follow_up, other',
  ),
  must('§2.10-1', EVENTS, 'channel is one of whatsapp, webchat, sms, phone, email; direction inbound or outbound'),
  must('§2.11-1', EVENTS, 'author is one of agent, contact, human'),
  must('§2.12-1', EVENTS, 'outcome is one of no_answer, not_interested, wrong_number, callback_later, opted_out'),
  must('§2.13-1', PLATFORM, 'an event_id already received is answered 202 {"ok": true, "duplicate": true}'),

  // §3: the lifecycle.
  must('§3-1', PROVIDER, 'the provider returns the conversation as it happens, then the result, over Interface B'),
  open('§3-2', ALL, 'the transitions between appointment events are not shown', NOT_FIXED),

  // §4: endpoints.
  must('§4.1-1', JOBS, 'a contact job is POSTed to {provider_endpoint}/contact-jobs'),
  must('§4.1-2', JOBS, 'a job carries X-CAI-Source with the platform id'),
  must('§4.1-3', JOBS, 'a job carries X-CAI-Signature and X-CAI-Timestamp'),
  must(
    '§4.1-4',
    PROVIDER,
    'an accepted job is answered 202, Content-Type: application/json, with the acknowledgment of §2.3',
  ),
  must(
    '§4.1-5',
    JOB_SENDER,
    'the platform sends one job for each contact the provider must handle, at capture time',
    'what the platform captures is inside the platform: a run sees the jobs it is sent',
  ),
  must('§4.1-6', PROVIDER, 'the provider verifies the signature as in §5'),
  open('§4.1-7', PROVIDER, 'the error statuses of the contact-jobs endpoint are not shown', NOT_FIXED),
  must('§4.2-1', EVENTS, 'every event is POSTed to the one events URL, the callback_url of the job'),
  must('§4.2-2', EVENTS, 'an event carries X-CAI-Provider with the provider code'),
  must('§4.2-3', EVENTS, 'an event carries X-CAI-Signature and X-CAI-Timestamp'),
  must('§4.2-4', EVENTS, 'one event object per request'),
  must('§4.2-5', PLATFORM, 'an accepted event is answered 202'),
  open('§4.2-6', PLATFORM, 'the body of a first-time 202 is not shown', NOT_FIXED),
  must('§4.2-7', PLATFORM, 'no other endpoint exists', 'a conformance run cannot show that an endpoint does not exist'),

  // §5: authentication.
  must('§5.1-1', ALL, 'both directions are signed with HMAC-SHA256 over the request body'),
  must('§5.1-2', ALL, 'each direction has its own secret: Interface A is signed with the other secret of the pair'),
  must('§5.2-1', ALL, 'the signed string is the timestamp, one literal dot, then the raw body as transmitted'),
  must('§5.2-2', ALL, 'there is no re-serialisation, no whitespace change and no key reordering'),
  must('§5.3-1', ALL, 'X-CAI-Signature is sha256= followed by the lowercase hexadecimal HMAC'),
  must('§5.4-1', ALL, 'the timestamp signed is the one X-CAI-Timestamp carries, an integer of unix seconds'),
  must('§5.5-1', ALL, 'a request whose timestamp is more than 300 seconds from now is rejected'),
  must('§5.5-2', ALL, 'a request within the window is not rejected for its timestamp'),
  must(
    '§5.5-3',
    RECEIVERS,
    'signatures are compared in constant time',
    'not testable from outside: timing differences of a comparison are below what a network shows',
  ),
  must(
    '§5.6-1',
    PLATFORM,
    'on Interface B the credential is identified by X-CAI-Provider: an unrecognised provider is rejected',
  ),
  must('§5.7-1', PLATFORM, 'a request from an unregistered origin is rejected'),
  must(
    '§5.8-1',
    ALL,
    'transport is TLS 1.2 or above, in both directions',
    'checked by `cai doctor` and the sending commands on the addresses given, not by a conformance run on a test address',
  ),
  must(
    '§5.9-1',
    ALL,
    'secrets rotate with an overlap window: during it, either secret verifies',
    'the overlap is coordinated per deployment (its length is not shown); a run verifies with every secret it is given',
  ),
  must(
    '§5.10-1',
    ALL,
    "a conforming implementation reproduces the worked example's signature",
    "annex: the example's secret and signature are omitted from the spec (cai verifies its own vectors)",
  ),

  // §6: events.
  must(
    '§6-1',
    EVENTS,
    'the event types are conversation.message, appointment.booked, appointment.rescheduled, appointment.cancelled, job.closed',
  ),
  should(
    '§6-2',
    PROVIDER,
    'job.closed is sent when handling ends without an appointment (the table: "Sent when"; the order of events is open, §6.6)',
  ),
  must('§6.1-1', EVENT_SENDER, 'each event has a unique event_id: a new event carries a new one, a retry the same'),
  must('§6.1-2', PLATFORM, 'the platform discards repeats and answers 202 with the duplicate body'),
  must('§6.1-3', PLATFORM, 'a retry never creates a second record'),
  must(
    '§6.2-1',
    PLATFORM,
    "the platform records an appointment event and reflects it on the unit's board",
    NOT_OBSERVABLE,
  ),
  must('§6.3-1', PLATFORM, 'a lead_id the platform does not recognise is not an error: the event is accepted with 202'),
  must(
    '§6.4-1',
    PLATFORM,
    'the platform sends no event to the provider',
    'a statement of design: a run cannot show that something is never sent',
  ),
  must('§6.5-1', SENDERS, 'any 2xx answer means accepted'),
  open('§6.6-1', EVENTS, 'ordering guarantees of events are not shown', NOT_FIXED),

  // §7: errors (Interface B's table; the sender's action beside each status).
  must('§7-1', PLATFORM, 'an invalid schema is answered 400'),
  must('§7-2', EVENT_SENDER, 'a 400 is not retried'),
  must(
    '§7-3',
    PLATFORM,
    'an invalid signature, a timestamp outside the window, an unrecognised provider or an unauthorised origin is answered 401',
  ),
  must('§7-4', EVENT_SENDER, 'a 401 is not retried'),
  must('§7-5', PLATFORM, 'a body larger than 256 KB is answered 413'),
  must('§7-6', EVENT_SENDER, 'a 413 is not retried'),
  must('§7-7', PLATFORM, 'over the request cap: 429 with Retry-After'),
  must('§7-8', EVENT_SENDER, 'a 429 is retried after the number in Retry-After'),
  must('§7-9', EVENT_SENDER, 'a 5xx is retried with exponential backoff, for up to 24 hours'),
  open('§7-10', PLATFORM, 'the shape of error bodies is not shown', NOT_FIXED),

  // §8: limits and service levels.
  must('§8-1', EVENTS, 'an event body is at most 256 KB; over it, 413'),
  must('§8-2', EVENTS, 'event_id is at most 120 characters'),
  must('§8-3', ALL, 'the signature validity window is 300 seconds, both interfaces'),
  must('§8-4', SENDERS, 'either side retries with exponential backoff up to 24 hours'),
  open('§8-5', PLATFORM, 'the request cap behind 429 is not shown', ANNEX),
  should(
    '§8-6',
    PROVIDER,
    'first contact within 5 minutes of receiving the job, during operating hours (a reference value)',
  ),
  should('§8-7', SENDERS, 'each message delivered within 60 seconds (a reference value)'),
  should('§8-8', EVENT_SENDER, 'an appointment delivered at the moment of confirmation', NOT_OBSERVABLE),
  should(
    '§8-9',
    PLATFORM,
    'a synchronous web chat reply under 5 seconds, with a continuity response',
    "the web chat is the platform's own product, outside this interface's endpoints",
  ),
  should('§8-10', RECEIVERS, 'endpoint availability of 99.5 % a month, both directions', OPERATIONS),

  // §9: versioning.
  must('§9.2-1', RECEIVERS, 'new fields may be added without notice: receivers ignore fields they do not recognise'),
  must(
    '§9.3-1',
    ALL,
    'within one major version no field is removed and no field changes meaning',
    'a promise about later versions of the spec',
  ),
  must(
    '§9.4-1',
    ALL,
    'extensions of scope are agreed between both teams and produce a new version',
    'an agreement between the teams',
  ),
  open('§9.5-1', ALL, 'the version is not carried in any path or header', NOT_FIXED),
];

export function clauseById(id: string): Clause | undefined {
  return CLAUSES.find((entry) => entry.id === id);
}
