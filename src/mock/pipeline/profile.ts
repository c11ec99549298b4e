/**
 * What a reference receiver supplies to the receive pipeline (../pipeline.ts), and what the pipeline's steps pass to
 * one another: the entry each request leaves, the request as received and as admitted, the signature policy the
 * faults bend, and the observer the inspector hooks in.
 */
import type { IncomingMessage } from 'node:http';
import type { Reply } from '../../http/server.js';
import type { SignedHeaders, VerifyResult } from '../../signing/verify.js';
import type { InterfaceId } from '../../spec/constants.js';
import type { ValidationIssue } from '../../spec/validate.js';
import type { Bounds } from '../bounds.js';
import type { DedupeIndex } from '../dedupe.js';
import type { MockLogRecord, MockLogRecordHead, RecordStore } from '../log.js';
import type { Validator } from '../validator.js';

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
export type Reject = (
  status: number,
  reason: string,
  message: string,
  extra?: Record<string, unknown>,
  headers?: Record<string, string>,
) => Reply;

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
export interface ReceiverProfile<Ack> extends Pick<Bounds, 'limits' | 'budget' | 'watch'> {
  interface: InterfaceId;
  /** Added before every answer (fault injection). */
  latencyMs?: number;
  onRequest?: (entry: MockRequestEntry) => void;
  /** Every request after its answer, with headers and body (the inspector). */
  observe?: RequestObserver;
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
  now(): number;
  /** Document fields copied onto the entry when they are strings. */
  entryFields: readonly ('event' | 'event_id' | 'lead_id' | 'branch_code')[];
  /** The validators, once loaded (they load while the server starts). */
  validator(): Validator | Promise<Validator>;
  store: RecordStore;
  /** The dedupe index of the document's space (the platform keeps live and test apart, §1). */
  indexFor(admitted: Admitted): DedupeIndex<Ack>;
  /** `none` and `racy` are the no-dedupe and racy-dedupe faults. */
  dedupe: 'atomic' | 'none' | 'racy';
  signature: SignaturePolicy;
  /** The deliberate faults given (faults.ts): the steps bend themselves for those they know (receiver-faults.ts). */
  faults: ReadonlySet<string>;
  /** Admission beyond method and path (the platform's origin allow-list, §5.7). */
  admit?(request: IncomingMessage, reject: Reject): Reply | undefined;
  /** The request cap (429, §7). */
  throttle?(reject: Reject): Reply | undefined;
  /** The credential for the sender's identity header, or the 401 answer. */
  identify(request: IncomingMessage, entry: MockRequestEntry, reject: Reject): Credential | Reply;
  /** A fault step between reading and checking the HMAC (`dedupe-before-auth`, `size-in-characters`). */
  beforeAuthenticate?(received: Received, reject: Reject): Reply | undefined;
  /** The schema problems of the document (empty: valid); the narrower formats of RECEIVER_FAULTS are the pipeline's. */
  checkDocument(validator: Validator, document: unknown): ValidationIssue[];
  /** Checks and injected failures after validation (unknown leads, --fail-first, --fail-rate). */
  inspect?(admitted: Admitted, reject: Reject): Reply | undefined;
  /** A new acknowledgment value for a first copy (the platform: true; the provider: a job ack, §2.3). */
  acknowledge(admitted: Admitted): Ack;
  recordHead(admitted: Admitted, verdict: 'accepted' | 'duplicate', ack: Ack): MockLogRecordHead;
  /** The 202 for a new document or a repeat (and what the entry says of it). */
  answer(admitted: Admitted, verdict: 'accepted' | 'duplicate', ack: Ack): Reply;
  /** What follows a new document (the provider's conversation). */
  afterAccept?(admitted: Admitted, ack: Ack): void;
  /** What follows a repeat (nothing, §2.2, §6.1: the `repeat-restarts-conversation` fault starts it again). */
  afterDuplicate?(admitted: Admitted, ack: Ack): void;
}
