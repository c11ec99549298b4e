/**
 * The receive pipeline both reference receivers run (§4–§8), as small named steps:
 * admission → size → authenticate (headers) → read → authenticate (HMAC) → parse → validate → faults →
 * dedupe → persist → answer. A mock supplies a ReceiverProfile: only what differs between Interface A and B
 * (who may send, the document kind, the acknowledgment, its deliberate faults, what follows a new document).
 *
 * The order of checks, the first that applies answering (the platform's; the provider has no origin and no rate
 * steps, and checks X-CAI-Source instead of X-CAI-Provider):
 *  1. method, path: 405 / 404
 *  2. origin outside the allow-list: 401 origin_not_allowed (§5.7)
 *  3. Content-Length over the limit: 413, the body never read (§8)
 *  4. over the request cap: 429 with Retry-After (§7)
 *  5. X-CAI-Provider missing or unknown: 401 unknown_provider (§5.6)
 *  6. the signature or timestamp header missing: 401 missing_signature; either malformed: 401 invalid_signature;
 *     the timestamp outside the window: 401 timestamp_outside_window (§5.5)
 *  7. reading the body: over the limit 413; no byte for bodyIdleTimeoutMs or not in full within bodyTimeoutMs
 *     408; the bodies in memory over maxBufferedBytes 503 with Retry-After; the sender gone 400 aborted
 *  8. the HMAC over the raw body matches no secret: 401 invalid_signature (§5.2)
 *  9. not UTF-8 or not JSON: 400 invalid_json; 10. the schema: 400 invalid_document
 * 11. injected failures: 503; 12. a repeat: 202 duplicate (§2.13); 13. 202, once the record is on disk.
 * (The `dedupe-before-auth` fault answers a repeat between 7 and 8.) A repeat is answered 202 duplicate even
 * when its own record cannot be written: the first copy's record, on disk, is the event.
 * The §5.5 window is judged once, when the headers have arrived (step 6), against the clock then; step 8 compares
 * the HMAC alone. Steps 1–6 need no body, so a sender that cannot authenticate never has its body read: a 401 for
 * an unknown provider or a stale timestamp comes before a 413 for a body that grows over the limit while being
 * read (only a declared Content-Length over the limit is answered 413 first). JSON nesting has no bound of its own
 * beyond the body size (at most 131 072 levels in 262 144 bytes): the body is parsed by V8's iterative JSON.parse
 * and stored as received, never serialised again, so any depth is accepted or refused by the schema, never a 5xx.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../errors.js';
import { markAuthenticated } from '../http/admission.js';
import { declaredLength, errorReply, headerValue, readBody, sendReply, sleep, type BodyResult, type BodyWatch, type ByteBudget, type ReceiverLimits, type Reply } from '../http/server.js';
import { SignedHeaders, verifyBody, verifyHeaders, type VerifyInput, type VerifyResult } from '../signing/verify.js';
import { Headers, MAX_BODY_BYTES, type InterfaceId } from '../spec/constants.js';
import { unauthorisedReasonOf } from '../spec/statuses.js';
import type { ValidationIssue } from '../spec/validate.js';
import type { DedupeIndex } from './dedupe.js';
import { LogWriteError, type MockLogRecord } from './log.js';
import { describeIssue } from '../spec/issues.js';
import { objectOf, parseJsonBody, targetPath } from './request.js';
import type { RecordHead, RecordStore } from './store.js';
import type { Validator } from './validator.js';

/** One request as the mocks print it (a line per request, like `stripe listen`; NDJSON with --json). */
export interface MockRequestEntry {
  received_at: string;
  interface: 'A' | 'B';
  status: number;
  verdict: 'accepted' | 'duplicate' | 'rejected' | 'injected';
  /** Why it was not accepted: a stable code such as `invalid_signature`. */
  reason?: string;
  message?: string;
  space?: 'live' | 'test';
  provider_code?: string;
  event?: string;
  event_id?: string;
  lead_id?: string;
  lead_known?: boolean;
  /** 1-based position of the secret that verified the request (rotation overlap, §5.9). */
  secret?: number;
  branch_code?: string;
  provider_job_id?: string;
  assigned_number_e164?: string;
  errors?: ValidationIssue[];
}

export interface RunningMock {
  /** The URL to send to (the events URL for the platform mock, the provider endpoint for the provider mock). */
  url: string;
  port: number;
  /** Stops accepting, finishes requests in flight, flushes and closes the log. Idempotent. */
  close(): Promise<void>;
  /** Accepted and duplicate records, in order (unless `keepRecords: false`). */
  readonly records: readonly MockLogRecord[];
}

/**
 * A request as answered, for an observer such as the inspector (`--ui`): handed over after the answer is sent and
 * the entry reported. `body` is the pipeline's own buffer of the bytes read (absent when the answer came before
 * the body was read): an observer that keeps it copies what it keeps.
 */
export interface ObservedRequest {
  entry: MockRequestEntry;
  method: string;
  /** The request target as received (path and query). */
  target: string;
  httpVersion: string;
  /** Header names and values as received, in order (`IncomingMessage.rawHeaders`). */
  rawHeaders: readonly string[];
  remoteAddress?: string;
  body?: Buffer;
  reply: Reply;
}

/** Sees every request after it is answered; must not throw, and costs the pipeline nothing when absent. */
export type RequestObserver = (observed: ObservedRequest) => void;

/** The credential a request is checked against (§5.6: per provider and per environment). */
export interface Credential {
  code: string;
  secrets: readonly string[];
  space: 'live' | 'test';
}

/** Builds an error answer and notes its reason on the entry. */
export type Reject = (status: number, reason: string, message: string, extra?: Record<string, unknown>, headers?: Record<string, string>) => Reply;

/** A request whose body is read and whose sender is known. */
export interface Received {
  request: IncomingMessage;
  entry: MockRequestEntry;
  credential: Credential;
  body: Buffer;
  /** Its signature headers, checked before the body was read (absent when the signature is not checked). */
  signed: SignedHeaders | undefined;
}

/** A received request whose body is a valid document. */
export interface Admitted extends Received {
  document: Record<string, unknown>;
}

/** How the signature is checked (§5); the faults bend it. */
export interface SignaturePolicy {
  /** `no-signature-check`: anything goes. */
  skip?: boolean;
  /** Half-width of the §5.5 window (default 300 s). */
  windowSeconds?: number;
  /** The bytes the HMAC is checked over (default the body as received, §5.2). */
  signedBytes?: (body: Buffer) => Buffer;
  /** The timestamp text the HMAC and the window read (default the header as received, §5.4). */
  signedTimestamp?: (sent: string) => string;
  /** A further verdict on a valid signature (a 401 reason and message), e.g. a one-sided window. */
  afterVerify?: (result: VerifyResult) => { reason: string; message: string } | undefined;
}

/** What a reference receiver supplies to the pipeline. */
export interface ReceiverProfile<Ack> {
  interface: InterfaceId;
  kind: 'event' | 'job';
  /** `cai mock platform`, in the 500 message. */
  name: string;
  /** The one endpoint path (§4.1, §4.2). */
  path: string;
  /** The end of the 405 and 404 messages: how and where requests go. */
  methodHint: string;
  pathHint: string;
  /** After the limit in the 413 message: ` (§8)` where §8 states it (Interface B), else empty. */
  sizeRule: string;
  /** Bytes over which the answer is 413. */
  limitBytes: number;
  latencyMs?: number;
  now(): number;
  onRequest?: (entry: MockRequestEntry) => void;
  /** After onRequest: the whole exchange (the inspector); absent, nothing is collected. */
  observe?: RequestObserver;
  /** Document fields copied onto the entry when they are strings. */
  entryFields: readonly ('event' | 'event_id' | 'lead_id' | 'branch_code')[];
  /** The validators, once loaded (they load while the server starts). */
  validator(): Validator | Promise<Validator>;
  /** Connections, body bytes in memory, time-outs. */
  limits: ReceiverLimits;
  /** The body bytes all requests hold at once (limits.maxBufferedBytes). */
  budget: ByteBudget;
  /** The body time-outs (limits.bodyIdleTimeoutMs, limits.bodyTimeoutMs). */
  watch: BodyWatch;
  store: RecordStore;
  /** The dedupe index of the document's space (the platform keeps live and test apart, §1). */
  indexFor(admitted: Admitted): DedupeIndex<Ack>;
  /** `none` and `racy` are the no-dedupe and racy-dedupe faults. */
  dedupe: 'atomic' | 'none' | 'racy';
  signature: SignaturePolicy;
  /** Admission beyond method and path (the platform's origin allow-list, §5.7). */
  admit?(request: IncomingMessage, reject: Reject): Reply | undefined;
  /** The request cap (429, §7). */
  throttle?(reject: Reject): Reply | undefined;
  /** The credential for the sender's identity header, or the 401 answer. */
  identify(request: IncomingMessage, entry: MockRequestEntry, reject: Reject): Credential | Reply;
  /** A fault step between reading and checking the HMAC (`dedupe-before-auth`, `size-in-characters`). */
  beforeAuthenticate?(received: Received, reject: Reject): Reply | undefined;
  /** `5xx-on-bad-json`: the answer to a body that is not JSON, instead of 400. */
  badJson?(reject: Reject): Reply | undefined;
  /** The schema problems of the document (empty: valid). */
  checkDocument(validator: Validator, document: unknown): ValidationIssue[];
  /** Checks and injected failures after validation (unknown leads, --fail-first, --fail-rate). */
  inspect?(admitted: Admitted, reject: Reject): Reply | undefined;
  /** The key of a document in its index: its `event_id` (§6.1, §2.2). */
  dedupeKey(admitted: Admitted): string;
  /** A new acknowledgment value for a first copy (the platform: true; the provider: a job ack, §2.3). */
  acknowledge(admitted: Admitted): Ack;
  recordHead(admitted: Admitted, verdict: 'accepted' | 'duplicate', ack: Ack): RecordHead;
  /** The 202 for a new document or a repeat (and what the entry says of it). */
  answer(admitted: Admitted, verdict: 'accepted' | 'duplicate', ack: Ack): Reply;
  /** What follows a new document (the provider's conversation). */
  afterAccept?(admitted: Admitted, ack: Ack): void;
  /** What follows a repeat (nothing, §2.2, §6.1: the `repeat-restarts-conversation` fault starts it again). */
  afterDuplicate?(admitted: Admitted, ack: Ack): void;
}

/** The request handler of a reference receiver: every request goes through the pipeline and is answered. */
export function createReceiver<Ack>(profile: ReceiverProfile<Ack>): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return (request, response) => respond(profile, request, response);
}

/**
 * One request: decide the reply, answer, report the entry. A log that cannot be written is 503 (not
 * acknowledged, so the sender retries, §7); any other exception is a bug in the mock and answers 500, never
 * passing for a storage outage that senders would retry for 24 h.
 */
async function respond<Ack>(profile: ReceiverProfile<Ack>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const entry: MockRequestEntry = { received_at: new Date(profile.now()).toISOString(), interface: profile.interface, status: 0, verdict: 'rejected' };
  const held: Held = { bytes: 0, body: undefined };
  let reply: Reply;
  try {
    reply = await decide(profile, request, entry, held);
  } catch (error) {
    reply = failureReply(profile, entry, error);
  } finally {
    profile.budget.give(held.bytes);
  }
  if (profile.latencyMs) await sleep(profile.latencyMs);
  entry.status = reply.status;
  // A body not read in full is not read at all: the connection goes with the answer.
  sendReply(request, response, request.complete ? reply : { ...reply, close: true });
  profile.onRequest?.(entry);
  if (profile.observe) observe(profile.observe, request, entry, held.body, reply);
}

/** The body bytes a request holds against the budget, and the body itself once read (for an observer). */
interface Held {
  bytes: number;
  body: Buffer | undefined;
}

function observe(observer: RequestObserver, request: IncomingMessage, entry: MockRequestEntry, body: Buffer | undefined, reply: Reply): void {
  try {
    observer({ entry, method: request.method ?? '', target: request.url ?? '', httpVersion: request.httpVersion, rawHeaders: request.rawHeaders, remoteAddress: request.socket.remoteAddress, body, reply });
  } catch {
    // An observer is a bystander: whatever it does wrong, the request was answered.
  }
}

function failureReply(profile: ReceiverProfile<unknown>, entry: MockRequestEntry, error: unknown): Reply {
  if (error instanceof LogWriteError) {
    entry.reason = 'log_unavailable';
    entry.message = error.message;
    return errorReply(503, 'log_unavailable', `the ${profile.kind} could not be stored; retry later`);
  }
  entry.reason = 'internal_error';
  entry.message = `a bug in the mock: ${errorMessage(error)}`;
  return errorReply(500, 'internal_error', `internal error in ${profile.name}; please report it`);
}

function rejecter(entry: MockRequestEntry): Reject {
  return (status, reason, message, extra, headers) => {
    entry.reason = reason;
    entry.message = message;
    return errorReply(status, reason, message, extra, headers);
  };
}

/** The steps in their documented order (see the top of this file); the first that answers ends the request. */
async function decide<Ack>(profile: ReceiverProfile<Ack>, request: IncomingMessage, entry: MockRequestEntry, held: Held): Promise<Reply> {
  const reject = rejecter(entry);
  const early = checkRoute(profile, request, reject) ?? profile.admit?.(request, reject) ?? checkDeclaredSize(profile, request, reject) ?? profile.throttle?.(reject);
  if (early) return early;
  const credential = profile.identify(request, entry, reject);
  if ('status' in credential) return credential;
  const signed = checkSignatureHeaders(profile, request, credential, reject);
  if (signed !== undefined && !(signed instanceof SignedHeaders)) return signed;
  const read = await readBody(request, profile.limitBytes, { watch: profile.watch, budget: profile.budget });
  const body = bodyOrReply(profile, read, reject);
  if (!Buffer.isBuffer(body)) return body;
  held.bytes = body.length;
  held.body = body;
  const received: Received = { request, entry, credential, body, signed };
  const unauthenticated = profile.beforeAuthenticate?.(received, reject) ?? authenticate(profile, received, reject);
  if (unauthenticated) return unauthenticated;
  const validator = profile.validator();
  const admitted = parseAndValidate(profile, received, validator instanceof Promise ? await validator : validator, reject);
  if ('status' in admitted) return admitted;
  return profile.inspect?.(admitted, reject) ?? (await dedupeAndPersist(profile, admitted));
}

/** Admission: one method, one path (§4.1, §4.2). */
function checkRoute(profile: ReceiverProfile<unknown>, request: IncomingMessage, reject: Reject): Reply | undefined {
  if (request.method !== 'POST') return { ...reject(405, 'method_not_allowed', `${request.method} is not allowed; ${profile.methodHint}`), headers: { allow: 'POST' } };
  if (targetPath(request.url) !== profile.path) return reject(404, 'not_found', `no endpoint at ${request.url}; ${profile.pathHint}`);
  return undefined;
}

/** Size: §8, a declared Content-Length over the limit is 413 without reading the rest. */
function checkDeclaredSize(profile: ReceiverProfile<unknown>, request: IncomingMessage, reject: Reject): Reply | undefined {
  const declared = declaredLength(request);
  if (declared === undefined || declared <= profile.limitBytes) return undefined;
  return { ...reject(413, 'payload_too_large', `the body is ${declared} bytes, over the ${MAX_BODY_BYTES}-byte limit${profile.sizeRule}`), close: true };
}

/**
 * Authenticate, what needs no body (§5.5): the signature and timestamp headers present and well-formed, the
 * timestamp inside the window: verifyHeaders, the checks verify() makes in this order before it compares the
 * HMAC, without computing one (only the comparison needs the body). Passed, the checked headers, for authenticate.
 */
function checkSignatureHeaders(profile: ReceiverProfile<unknown>, request: IncomingMessage, credential: Credential, reject: Reject): Reply | SignedHeaders | undefined {
  if (profile.signature.skip) return undefined;
  const result = verifyHeaders(signatureInput(profile, request, credential));
  return result instanceof SignedHeaders ? result : reject(401, unauthorisedReasonOf(result.reason), result.message);
}

/** Read (readBody: counted as it arrives, cut at the limit whatever Content-Length claimed, or when it stalls or drags): the body or the answer. */
function bodyOrReply(profile: ReceiverProfile<unknown>, read: BodyResult, reject: Reject): Buffer | Reply {
  const { limits } = profile;
  if (read.ok) return read.body;
  switch (read.reason) {
    case 'aborted':
      return reject(400, 'aborted', 'the request body was not received in full');
    case 'timeout':
      return { ...reject(408, 'request_timeout', `the body did not arrive in time (a gap of ${limits.bodyIdleTimeoutMs} ms, or ${limits.bodyTimeoutMs} ms in all)`), close: true };
    case 'busy':
      // §7: a temporary unavailability, retried by the sender; the bodies in memory are what is scarce.
      return { ...reject(503, 'overloaded', `over ${limits.maxBufferedBytes} bytes of request bodies in memory; retry later`, { retry_after: 1 }, { 'retry-after': '1' }), close: true };
    default:
      return { ...reject(413, 'payload_too_large', `the body is over the ${MAX_BODY_BYTES}-byte limit${profile.sizeRule}`), close: true };
  }
}

/**
 * Authenticate, the rest (§5.2): the HMAC over the raw bytes with any secret of the credential (§5.9), against the
 * headers checked before the body was read (verifyBody: verify()'s verdict, the headers not checked twice).
 */
function authenticate(profile: ReceiverProfile<unknown>, received: Received, reject: Reject): Reply | undefined {
  const policy = profile.signature;
  if (policy.skip) {
    markAuthenticated(received.request);
    return undefined;
  }
  // Fails closed: a request that reached this step without checked headers is a bug (answered 500), never let through.
  if (received.signed === undefined) throw new Error('the signature headers were not checked before the body');
  const result = verifyBody(received.signed, policy.signedBytes ? policy.signedBytes(received.body) : received.body);
  if (!result.valid) return reject(401, unauthorisedReasonOf(result.reason), result.message);
  const refused = policy.afterVerify?.(result);
  if (refused) return reject(401, refused.reason, refused.message);
  received.entry.secret = (result.matchedSecretIndex ?? 0) + 1;
  // Its connection is among the last to give up its slot to a new one (admission.ts).
  markAuthenticated(received.request);
  return undefined;
}

function signatureInput(profile: ReceiverProfile<unknown>, request: IncomingMessage, credential: Credential): Omit<VerifyInput, 'rawBody'> {
  const timestamp = headerValue(request, Headers.timestamp);
  const { signedTimestamp } = profile.signature;
  return {
    secrets: credential.secrets,
    signature: headerValue(request, Headers.signature),
    timestamp: timestamp !== undefined && signedTimestamp ? signedTimestamp(timestamp) : timestamp,
    now: Math.floor(profile.now() / 1000),
    windowSeconds: profile.signature.windowSeconds,
  };
}

/** Parse (UTF-8 and JSON, §2) and validate (the schema of `cai validate`); the entry learns the ids. */
function parseAndValidate(profile: ReceiverProfile<unknown>, received: Received, validator: Validator, reject: Reject): Admitted | Reply {
  const parsed = parseJsonBody(received.body);
  if (!parsed.ok) {
    return profile.badJson?.(reject) ?? reject(400, 'invalid_json', 'the body is not valid JSON', { errors: validator.validateBody(received.body, { kind: profile.kind }).errors });
  }
  const fields = objectOf(parsed.value);
  for (const name of profile.entryFields) {
    const value = fields?.[name];
    if (typeof value === 'string') received.entry[name] = value;
  }
  const issues = profile.checkDocument(validator, parsed.value);
  if (issues.length > 0) {
    received.entry.errors = issues;
    return reject(400, 'invalid_document', `the ${profile.kind} does not match the schema: ${issues.map(describeIssue).join('; ')}`, { errors: issues });
  }
  return Object.assign(received, { document: fields ?? {} });
}

// racy-dedupe: the gap between its check and its insert.
const RACY_WINDOW_MS = 50;

/** Dedupe (§6.1, §2.2), persist (on disk before the 202), answer. */
async function dedupeAndPersist<Ack>(profile: ReceiverProfile<Ack>, admitted: Admitted): Promise<Reply> {
  const store = (verdict: 'accepted' | 'duplicate', ack: Ack) => profile.store.persist(profile.recordHead(admitted, verdict, ack), admitted.document, admitted.body);
  const storeNew = async () => {
    const ack = profile.acknowledge(admitted);
    await store('accepted', ack);
    return ack;
  };
  const key = profile.dedupeKey(admitted);
  const index = profile.indexFor(admitted);
  const claim =
    profile.dedupe === 'none'
      ? { verdict: 'accepted' as const, value: await storeNew() }
      : profile.dedupe === 'racy'
        ? await index.claimRacily(key, storeNew, RACY_WINDOW_MS)
        : await index.claim(key, storeNew);
  if (claim.verdict === 'duplicate') {
    await noteDuplicate(admitted.entry, () => store('duplicate', claim.value));
    profile.afterDuplicate?.(admitted, claim.value);
  } else profile.afterAccept?.(admitted, claim.value);
  admitted.entry.verdict = claim.verdict;
  return profile.answer(admitted, claim.verdict, claim.value);
}

/**
 * A repeat's own record is a note for `cai report`: the event is the first copy's record, already on disk. So a
 * log that cannot take the note does not make the answer a 503 (issue 14: re-sending stored events while the disk
 * is full must still get the §2.13 answer); the entry says the note is missing.
 */
async function noteDuplicate(entry: MockRequestEntry, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    entry.reason = 'log_unavailable';
    entry.message = `answered as a duplicate; its own record could not be written: ${errorMessage(error)}`;
  }
}
