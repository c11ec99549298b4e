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

const NOT_OBSERVABLE = 'not testable from outside: it happens inside the implementation';
const ANNEX = 'annex: the values are issued per deployment, not in the spec';
const OPERATIONS = 'an operational commitment, measured over a month of production, not by a conformance run';

function clause(
  id: string,
  level: ClauseLevel,
  roles: readonly ClauseRole[],
  text: string,
  untestable?: string,
): Clause {
  const section = id.replace(/-\d+$/, '');
  return { id, section, level, roles, text, ...(untestable ? { untestable } : {}) };
}

export const CLAUSES: readonly Clause[] = [
  // §1: what the service does.
  clause(
    '§1-1',
    'must',
    ALL,
    'both interfaces are HTTP POST and push; neither party polls the other; no read or query endpoint exists',
    'a statement of design: a conformance run cannot show that an endpoint does not exist',
  ),
  clause(
    '§1-2',
    'open',
    ALL,
    'environment-specific values (provider code, catalog, credentials, authorised addresses) are issued in a private annex',
    ANNEX,
  ),
  clause(
    '§1-3',
    'must',
    ALL,
    'test credentials use the same URLs and signing scheme as production; their data lands in an isolated test space',
    "the test space is the deployment's; a run uses whatever credentials it is given",
  ),
  clause(
    '§1-4',
    'must',
    ['provider-receiver'],
    'the provider uses the data only for this interface, never transfers it, never trains on it, deletes it at the end of the contract',
    'a data-processing commitment, not observable over HTTP',
  ),

  // §2: records.
  clause('§2-1', 'must', ALL, 'every body is JSON'),
  clause('§2-2', 'must', ALL, 'every body is UTF-8'),
  clause('§2-3', 'must', ALL, 'every request is sent with Content-Type: application/json'),
  clause('§2.1-1', 'must', ALL, 'a telephone number is an E.164 string'),
  clause('§2.1-2', 'must', ALL, 'a date and time is ISO 8601 with a time-zone offset'),
  clause('§2.1-3', 'must', ALL, 'a language is a BCP 47 tag'),
  clause(
    '§2.2-1',
    'must',
    JOBS,
    'a contact job carries lead_id, event_id, branch_code, contact (name, phone_e164) and callback_url',
  ),
  clause(
    '§2.2-2',
    'must',
    JOBS,
    'the fields of a contact job have the types of §2.2; origin.channel and brief.intent take the values of §2.8 and §2.9',
  ),
  clause('§2.2-3', 'must', ['provider-receiver'], 'lead_id is returned unmodified on every Interface B event'),
  clause('§2.2-4', 'must', ['job-sender'], 'event_id is unique per job: a new job carries a new one, a retry the same'),
  clause('§2.2-5', 'must', ['provider-receiver'], 'a repeated event_id is ignored by the provider'),
  clause('§2.2-6', 'open', JOBS, 'the catalog values of branch_code are issued in the private annex', ANNEX),
  clause('§2.3-1', 'must', JOBS, 'the job acknowledgment carries provider_job_id, a string'),
  clause(
    '§2.3-2',
    'must',
    JOBS,
    'the job acknowledgment carries assigned_number_e164, the E.164 origin number assigned to the contact',
  ),
  clause('§2.4-1', 'must', EVENTS, 'every event carries event (its type) and event_id'),
  clause('§2.4-2', 'must', EVENTS, 'event_id is at most 120 characters'),
  clause('§2.4-3', 'must', EVENTS, 'the envelope fields have the types and values of §2.4, §2.10 and §2.11'),
  clause(
    '§2.4-4',
    'open',
    EVENTS,
    'which fields of each event type are required beyond event and event_id is not shown',
    'not fixed by the spec',
  ),
  clause(
    '§2.5-1',
    'must',
    EVENTS,
    'a conversation.message event uses the envelope fields; one event per message, in both directions',
  ),
  clause(
    '§2.6-1',
    'must',
    EVENTS,
    'an appointment event carries branch_code, scheduled_at (ISO 8601 with offset), service and notes as strings',
  ),
  clause('§2.7-1', 'must', EVENTS, 'a job.closed event carries outcome (§2.12) and attempts, an integer'),
  clause(
    '§2.8-1',
    'must',
    JOBS,
    'origin.channel is one of landing_form, contact_form, webchat, whatsapp_button, phone, referral',
  ),
  clause(
    '§2.9-1',
    'must',
    JOBS,
    'brief.intent is one of book_appointment, pricing_information, service_information, reschedule, follow_up, other',
  ),
  clause(
    '§2.10-1',
    'must',
    EVENTS,
    'channel is one of whatsapp, webchat, sms, phone, email; direction inbound or outbound',
  ),
  clause('§2.11-1', 'must', EVENTS, 'author is one of agent, contact, human'),
  clause(
    '§2.12-1',
    'must',
    EVENTS,
    'outcome is one of no_answer, not_interested, wrong_number, callback_later, opted_out',
  ),
  clause(
    '§2.13-1',
    'must',
    ['platform-receiver'],
    'an event_id already received is answered 202 {"ok": true, "duplicate": true}',
  ),

  // §3: the lifecycle.
  clause(
    '§3-1',
    'must',
    ['provider-receiver'],
    'the provider returns the conversation as it happens, then the result, over Interface B',
  ),
  clause('§3-2', 'open', ALL, 'the transitions between appointment events are not shown', 'not fixed by the spec'),

  // §4: endpoints.
  clause('§4.1-1', 'must', JOBS, 'a contact job is POSTed to {provider_endpoint}/contact-jobs'),
  clause('§4.1-2', 'must', JOBS, 'a job carries X-CAI-Source with the platform id'),
  clause('§4.1-3', 'must', JOBS, 'a job carries X-CAI-Signature and X-CAI-Timestamp'),
  clause(
    '§4.1-4',
    'must',
    ['provider-receiver'],
    'an accepted job is answered 202, Content-Type: application/json, with the acknowledgment of §2.3',
  ),
  clause(
    '§4.1-5',
    'must',
    ['job-sender'],
    'the platform sends one job for each contact the provider must handle, at capture time',
    'what the platform captures is inside the platform: a run sees the jobs it is sent',
  ),
  clause('§4.1-6', 'must', ['provider-receiver'], 'the provider verifies the signature as in §5'),
  clause(
    '§4.1-7',
    'open',
    ['provider-receiver'],
    'the error statuses of the contact-jobs endpoint are not shown',
    'not fixed by the spec',
  ),
  clause('§4.2-1', 'must', EVENTS, 'every event is POSTed to the one events URL, the callback_url of the job'),
  clause('§4.2-2', 'must', EVENTS, 'an event carries X-CAI-Provider with the provider code'),
  clause('§4.2-3', 'must', EVENTS, 'an event carries X-CAI-Signature and X-CAI-Timestamp'),
  clause('§4.2-4', 'must', EVENTS, 'one event object per request'),
  clause('§4.2-5', 'must', ['platform-receiver'], 'an accepted event is answered 202'),
  clause('§4.2-6', 'open', ['platform-receiver'], 'the body of a first-time 202 is not shown', 'not fixed by the spec'),
  clause(
    '§4.2-7',
    'must',
    ['platform-receiver'],
    'no other endpoint exists',
    'a conformance run cannot show that an endpoint does not exist',
  ),

  // §5: authentication.
  clause('§5.1-1', 'must', ALL, 'both directions are signed with HMAC-SHA256 over the request body'),
  clause(
    '§5.1-2',
    'must',
    ALL,
    'each direction has its own secret: Interface A is signed with the other secret of the pair',
  ),
  clause(
    '§5.2-1',
    'must',
    ALL,
    'the signed string is the timestamp, one literal dot, then the raw body as transmitted',
  ),
  clause('§5.2-2', 'must', ALL, 'there is no re-serialisation, no whitespace change and no key reordering'),
  clause('§5.3-1', 'must', ALL, 'X-CAI-Signature is sha256= followed by the lowercase hexadecimal HMAC'),
  clause('§5.4-1', 'must', ALL, 'the timestamp signed is the one X-CAI-Timestamp carries, an integer of unix seconds'),
  clause('§5.5-1', 'must', ALL, 'a request whose timestamp is more than 300 seconds from now is rejected'),
  clause('§5.5-2', 'must', ALL, 'a request within the window is not rejected for its timestamp'),
  clause(
    '§5.5-3',
    'must',
    RECEIVERS,
    'signatures are compared in constant time',
    'not testable from outside: timing differences of a comparison are below what a network shows',
  ),
  clause(
    '§5.6-1',
    'must',
    ['platform-receiver'],
    'on Interface B the credential is identified by X-CAI-Provider: an unrecognised provider is rejected',
  ),
  clause('§5.7-1', 'must', ['platform-receiver'], 'a request from an unregistered origin is rejected'),
  clause(
    '§5.8-1',
    'must',
    ALL,
    'transport is TLS 1.2 or above, in both directions',
    'checked by `cai doctor` and the sending commands on the addresses given, not by a conformance run on a test address',
  ),
  clause(
    '§5.9-1',
    'must',
    ALL,
    'secrets rotate with an overlap window: during it, either secret verifies',
    'the overlap is coordinated per deployment (its length is not shown); a run verifies with every secret it is given',
  ),
  clause(
    '§5.10-1',
    'must',
    ALL,
    "a conforming implementation reproduces the worked example's signature",
    "annex: the example's secret and signature are omitted from the spec (cai verifies its own vectors)",
  ),

  // §6: events.
  clause(
    '§6-1',
    'must',
    EVENTS,
    'the event types are conversation.message, appointment.booked, appointment.rescheduled, appointment.cancelled, job.closed',
  ),
  clause(
    '§6.1-1',
    'must',
    ['event-sender'],
    'each event has a unique event_id: a new event carries a new one, a retry the same',
  ),
  clause(
    '§6.1-2',
    'must',
    ['platform-receiver'],
    'the platform discards repeats and answers 202 with the duplicate body',
  ),
  clause('§6.1-3', 'must', ['platform-receiver'], 'a retry never creates a second record'),
  clause(
    '§6.2-1',
    'must',
    ['platform-receiver'],
    "the platform records an appointment event and reflects it on the unit's board",
    NOT_OBSERVABLE,
  ),
  clause(
    '§6.3-1',
    'must',
    ['platform-receiver'],
    'a lead_id the platform does not recognise is not an error: the event is accepted with 202',
  ),
  clause(
    '§6.4-1',
    'must',
    ['platform-receiver'],
    'the platform sends no event to the provider',
    'a statement of design: a run cannot show that something is never sent',
  ),
  clause('§6.5-1', 'must', SENDERS, 'any 2xx answer means accepted'),
  clause('§6.6-1', 'open', EVENTS, 'ordering guarantees of events are not shown', 'not fixed by the spec'),

  // §7: errors (Interface B's table; the sender's action beside each status).
  clause('§7-1', 'must', ['platform-receiver'], 'an invalid schema is answered 400'),
  clause('§7-2', 'must', ['event-sender'], 'a 400 is not retried'),
  clause(
    '§7-3',
    'must',
    ['platform-receiver'],
    'an invalid signature, a timestamp outside the window, an unrecognised provider or an unauthorised origin is answered 401',
  ),
  clause('§7-4', 'must', ['event-sender'], 'a 401 is not retried'),
  clause('§7-5', 'must', ['platform-receiver'], 'a body larger than 256 KB is answered 413'),
  clause('§7-6', 'must', ['event-sender'], 'a 413 is not retried'),
  clause('§7-7', 'must', ['platform-receiver'], 'over the request cap: 429 with Retry-After'),
  clause('§7-8', 'must', ['event-sender'], 'a 429 is retried after the number in Retry-After'),
  clause('§7-9', 'must', ['event-sender'], 'a 5xx is retried with exponential backoff, for up to 24 hours'),
  clause('§7-10', 'open', ['platform-receiver'], 'the shape of error bodies is not shown', 'not fixed by the spec'),

  // §8: limits and service levels.
  clause('§8-1', 'must', EVENTS, 'an event body is at most 256 KB; over it, 413'),
  clause('§8-2', 'must', EVENTS, 'event_id is at most 120 characters'),
  clause('§8-3', 'must', ALL, 'the signature validity window is 300 seconds, both interfaces'),
  clause('§8-4', 'must', SENDERS, 'either side retries with exponential backoff up to 24 hours'),
  clause('§8-5', 'open', ['platform-receiver'], 'the request cap behind 429 is not shown', ANNEX),
  clause(
    '§8-6',
    'should',
    ['provider-receiver'],
    'first contact within 5 minutes of receiving the job, during operating hours (a reference value)',
  ),
  clause('§8-7', 'should', SENDERS, 'each message delivered within 60 seconds (a reference value)'),
  clause('§8-8', 'should', ['event-sender'], 'an appointment delivered at the moment of confirmation', NOT_OBSERVABLE),
  clause(
    '§8-9',
    'should',
    ['platform-receiver'],
    'a synchronous web chat reply under 5 seconds, with a continuity response',
    "the web chat is the platform's own product, outside this interface's endpoints",
  ),
  clause('§8-10', 'should', RECEIVERS, 'endpoint availability of 99.5 % a month, both directions', OPERATIONS),

  // §9: versioning.
  clause(
    '§9.2-1',
    'must',
    RECEIVERS,
    'new fields may be added without notice: receivers ignore fields they do not recognise',
  ),
  clause(
    '§9.3-1',
    'must',
    ALL,
    'within one major version no field is removed and no field changes meaning',
    'a promise about later versions of the spec',
  ),
  clause(
    '§9.4-1',
    'must',
    ALL,
    'extensions of scope are agreed between both teams and produce a new version',
    'an agreement between the teams',
  ),
  clause('§9.5-1', 'open', ALL, 'the version is not carried in any path or header', 'not fixed by the spec'),
];

export function clauseById(id: string): Clause | undefined {
  return CLAUSES.find((entry) => entry.id === id);
}
