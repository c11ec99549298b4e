/**
 * The two interfaces of §1, side by side: one row each, so that code asks the table ("which header carries the
 * sender's identity?") instead of testing the interface's letter. Plain data, no zod: `cai sign` imports it.
 */
import { optionName } from '../errors.js';
import { CONTACT_JOBS_PATH, HeaderNames, Headers, type InterfaceId } from './constants.js';

export interface InterfaceSpec {
  id: InterfaceId;
  /** §4.1 or §4.2: the section of the endpoint. */
  section: '§4.1' | '§4.2';
  /** The section of the document the request carries (§2.2 the contact job, §2.4 the event envelope). */
  documentSection: '§2.2' | '§2.4';
  /** What a request carries, as the validators name it (src/spec/validate.ts) and as a sentence names it. */
  document: 'job' | 'event';
  documentName: 'contact job' | 'event';
  /** Who sends and who receives (§1's table). */
  sender: 'platform' | 'provider';
  receiver: 'provider' | 'platform';
  /** The endpoint as a sentence names it: `the platform's events endpoint`, and with an article, `an events endpoint`. */
  endpointName: string;
  endpointKind: 'an events endpoint' | 'a contact-jobs endpoint';
  /** One document, as a sentence names it briefly: `event`, `job`; and a request carrying one: `a request`, `a job`. */
  noun: 'event' | 'job';
  aRequest: 'a request' | 'a job';
  /** The fields of a valid document the checks vary: a free-text one, a date-time (§2.1) and an E.164 one, dotted. */
  fields: { text: string; dateTime: string; phone: string };
  /** The rule that a repeated event_id is recognised: §6.1 and §2.13 on B, §2.2 on A; its clauses. */
  repeatSections: readonly string[];
  repeatClauses: readonly string[];
  /** Where a refusal's status is stated: §7's table on B; §4.1, which shows the provider none, on A. */
  refusalSection: '§7' | '§4.1';
  /** The clauses a refusal enforces: of a request's credentials (§7's 401; §4.1's verification), of a document (§7's 400; none on A). */
  refusalClauses: { authentication: readonly string[]; schema: readonly string[] };
  /** An accepted document starts a conversation of callbacks (A, §3 step 4): checks that send many run alone. */
  acceptanceStartsConversation: boolean;
  /** The address the user gives: the events URL itself (B), or the provider endpoint that §4.1's path is appended to (A). */
  targetName: 'the events URL' | 'the provider endpoint';
  /** Appended to the address given to reach the endpoint (§4.1: `{provider_endpoint}/contact-jobs`). */
  path: '' | typeof CONTACT_JOBS_PATH;
  /** The header that names the sender (§4.1 X-CAI-Source, §4.2 X-CAI-Provider and §5.6), lower-case and as the spec writes it. */
  identityHeader: typeof Headers.source | typeof Headers.provider;
  identityHeaderName: typeof HeaderNames.source | typeof HeaderNames.provider;
  /** What the identity is. */
  identityName: 'platform id' | 'provider code';
  /** The option that gives it, the value's name in a hint, and the section that states the header. */
  identityOption: 'source' | 'provider';
  identityValue: 'ID' | 'CODE';
  identitySection: '§4.1' | '§5.6';
  /** The secret of the direction (§5.1), as a sentence names it. */
  secretName: 'jobs secret' | 'events secret';
  /**
   * §7's table of statuses is Interface B's; §4.1 shows no error statuses for A ("not shown"), where any 4xx
   * refuses. `fixed`: 400 for a bad schema, 401 for authentication, 413 for size; `any-4xx` otherwise.
   */
  refusals: 'fixed' | 'any-4xx';
  /** §8 states the 256 KB body limit for Interface B only. */
  sizeLimitStated: boolean;
  /** What a 2xx answer carries: §2.3's job acknowledgment as §4.1 shows it, §2.13's event answer. */
  acknowledgmentSections: readonly string[];
  /** The parties a clause of §1's roles binds (src/spec/clauses.ts): who receives, who sends. */
  receiverRole: 'provider-receiver' | 'platform-receiver';
  senderRole: 'job-sender' | 'event-sender';
  /** Id prefix of the sender's checks (`BS`; the receiver's are the interface's letter). */
  senderCheckPrefix: 'AS' | 'BS';
  /**
   * Whether the receiver answers later through callbacks: a provider sends the job's events to its callback_url
   * (§3, §4.2), so load and trigger runs can time and follow them. An event is answered by its 202 alone.
   */
  callbacks: boolean;
  /**
   * How an answer says that the document was a repeat of one received before: an event's 202 says so in its body
   * (§2.13, `"duplicate": true`); a job's repeat gets the acknowledgment of the first, the same provider_job_id (§2.3).
   */
  repeatAnswer: 'duplicate-ack' | 'same-provider-job-id';
  /** §5.7: the receiver accepts only origins it registered (the platform registers the provider's egress addresses). */
  authorisedOrigins: boolean;
  /** An address of the kind the user gives, for examples and hints. */
  exampleAddress: string;
}

export const INTERFACE_SPECS: Readonly<Record<InterfaceId, InterfaceSpec>> = {
  A: {
    id: 'A',
    section: '§4.1',
    documentSection: '§2.2',
    document: 'job',
    documentName: 'contact job',
    sender: 'platform',
    receiver: 'provider',
    endpointName: "the provider's contact-jobs endpoint",
    endpointKind: 'a contact-jobs endpoint',
    noun: 'job',
    aRequest: 'a job',
    fields: { text: 'city', dateTime: 'origin.captured_at', phone: 'contact.phone_e164' },
    repeatSections: ['§2.2'],
    repeatClauses: ['§2.2-5'],
    refusalSection: '§4.1',
    refusalClauses: { authentication: ['§4.1-6'], schema: [] },
    acceptanceStartsConversation: true,
    targetName: 'the provider endpoint',
    path: CONTACT_JOBS_PATH,
    identityHeader: Headers.source,
    identityHeaderName: HeaderNames.source,
    identityName: 'platform id',
    identityOption: 'source',
    identityValue: 'ID',
    identitySection: '§4.1',
    secretName: 'jobs secret',
    refusals: 'any-4xx',
    sizeLimitStated: false,
    acknowledgmentSections: ['§2.3', '§4.1'],
    receiverRole: 'provider-receiver',
    senderRole: 'job-sender',
    senderCheckPrefix: 'AS',
    callbacks: true,
    repeatAnswer: 'same-provider-job-id',
    authorisedOrigins: false,
    exampleAddress: 'https://provider.example/cai',
  },
  B: {
    id: 'B',
    section: '§4.2',
    documentSection: '§2.4',
    document: 'event',
    documentName: 'event',
    sender: 'provider',
    receiver: 'platform',
    endpointName: "the platform's events endpoint",
    endpointKind: 'an events endpoint',
    noun: 'event',
    aRequest: 'a request',
    fields: { text: 'text', dateTime: 'occurred_at', phone: 'from_number_e164' },
    repeatSections: ['§6.1', '§2.13'],
    repeatClauses: ['§6.1-2', '§6.1-3'],
    refusalSection: '§7',
    refusalClauses: { authentication: ['§7-3'], schema: ['§7-1'] },
    acceptanceStartsConversation: false,
    targetName: 'the events URL',
    path: '',
    identityHeader: Headers.provider,
    identityHeaderName: HeaderNames.provider,
    identityName: 'provider code',
    identityOption: 'provider',
    identityValue: 'CODE',
    identitySection: '§5.6',
    secretName: 'events secret',
    refusals: 'fixed',
    sizeLimitStated: true,
    acknowledgmentSections: ['§2.13'],
    receiverRole: 'platform-receiver',
    senderRole: 'event-sender',
    senderCheckPrefix: 'BS',
    callbacks: false,
    repeatAnswer: 'duplicate-ack',
    authorisedOrigins: true,
    exampleAddress: 'https://platform.example/cai/events',
  },
};

export function interfaceSpec(id: InterfaceId): InterfaceSpec {
  return INTERFACE_SPECS[id];
}

/** `A` or `B`, as a log line or a page may hold it (anything else is not an interface of §1). */
export function isInterfaceId(value: unknown): value is InterfaceId {
  return typeof value === 'string' && Object.hasOwn(INTERFACE_SPECS, value);
}

/** The other interface of §1: the other direction of the exchange. */
export function otherInterface(id: InterfaceId): InterfaceSpec {
  return Object.values(INTERFACE_SPECS).find((spec) => spec.id !== id) as InterfaceSpec;
}

/** The interface a party receives (§1): the provider receives contact jobs, the platform events. */
export function interfaceReceivedBy(party: InterfaceSpec['receiver']): InterfaceSpec {
  return Object.values(INTERFACE_SPECS).find((spec) => spec.receiver === party) as InterfaceSpec;
}

/** The interface whose identity header a request carries (§4.1 X-CAI-Source, §4.2 X-CAI-Provider), if either. */
export function interfaceOfHeaders(names: readonly string[]): InterfaceSpec | undefined {
  return Object.values(INTERFACE_SPECS).find((spec) => names.includes(spec.identityHeader));
}

/** Where requests of the interface go, from the address the user gave (§4.1: the path is appended; §4.2: as is). */
export function endpointUrl(id: InterfaceId, address: string): string {
  const { path } = INTERFACE_SPECS[id];
  return path === '' ? address : address.replace(/\/+$/, '') + path;
}

/** The hint of a missing identity: `pass --provider CODE (the X-CAI-Provider value, §5.6)`, the option as worded in use. */
export function identityHint(id: InterfaceId): string {
  const spec = INTERFACE_SPECS[id];
  return `pass ${optionName(spec.identityOption)} ${spec.identityValue} (the ${spec.identityHeaderName} value, ${spec.identitySection})`;
}

/** What one request is, as a line or a page names it: its event type (§2.4 `event`), or `contact job` (a job has none). */
export function documentLabel(id: InterfaceId, eventType: string | undefined, untyped: string): string {
  const spec = INTERFACE_SPECS[id];
  return spec.document === 'event' ? (eventType ?? untyped) : spec.documentName;
}
