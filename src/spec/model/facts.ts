/**
 * What the spec makes of one concrete request, before any state: which of its faults a receiver must refuse it for
 * (§5 authentication, §2 the document, §8 the size) and which questions it raises that the spec leaves open
 * (./latitude.ts). Read from the request exactly as it goes on the wire — the headers, the raw bytes, the framing —
 * so any request, however it was built (a named check's, a generated one's), is judged by the same rules. Pure.
 */
import { verify, type VerifyResult } from '../../signing/verify.js';
import { signatureDigest } from '../../signing/sign.js';
import {
  Headers,
  MAX_BODY_BYTES,
  SIGNATURE_PREFIX,
  SURELY_ALLOWED_BODY_BYTES,
  type InterfaceId,
} from '../constants.js';
import { interfaceSpec } from '../interfaces.js';
import { eventIdOf, illFormedTextPath, jsonValueOf } from '../json.js';
import { jsonNestingDepth } from '../json-syntax.js';
import { documentErrors } from '../validate.js';
import { OPEN_POINTS, type OpenPointId } from './latitude.js';

/** A request as it went out. */
export interface ModelRequest {
  interface: InterfaceId;
  /** Lower-case names; a header sent on several lines has its values in order. */
  headers: Readonly<Record<string, string | readonly string[]>>;
  body: Buffer;
  /** How the body was framed on the wire (RFC 9112): by Content-Length (default), chunked, or after `Expect: 100-continue`. */
  framing?: 'length' | 'chunked' | 'expect-continue';
  /** Sent from an address the receiver has not registered as an origin (§5.7). */
  unregisteredOrigin?: boolean;
}

/** What the receiver under test holds: the identity it accepts and the secrets of its direction (§5.1, §5.9). */
export interface ReceiverCredentials {
  identity: string;
  secrets: readonly string[];
}

/**
 * The receiver's clock, in unix seconds, at the moment it read the request: somewhere from `earliest` to `latest`
 * (cai knows it to the second at best: the target's `Date` header has no fraction, and the request took time).
 */
export interface ReadingClock {
  earliest: number;
  latest: number;
}

/** Why a receiver must refuse a request, by the part of the spec it breaks. */
export type FaultKind = 'authentication' | 'header' | 'schema' | 'too-large';

export interface Fault {
  kind: FaultKind;
  /** What is wrong, in words: `the signature does not match`. */
  why: string;
  clauses: readonly string[];
}

/** A question the spec leaves open that this request raises, and why it raises it. */
export interface OpenPoint {
  id: OpenPointId;
  why: string;
}

export interface RequestFacts {
  interface: InterfaceId;
  faults: Fault[];
  open: OpenPoint[];
  /** The event_id of a body that is a JSON object with a string one (§2.2, §2.4), whatever else is wrong with it. */
  eventId?: string;
  /** The identity header's value as sent (§4.1 X-CAI-Source, §4.2 X-CAI-Provider). */
  identity?: string;
}

function headerOf(request: ModelRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

export function requestFacts(
  request: ModelRequest,
  credentials: ReceiverCredentials,
  clock: ReadingClock,
): RequestFacts {
  const faults: Fault[] = [];
  const open: OpenPoint[] = [];
  const spec = interfaceSpec(request.interface);
  const identity = headerOf(request, spec.identityHeader);
  sizeFacts(request, faults, open);
  identityFacts(request, identity, credentials, faults, open);
  signatureFacts(request, credentials, clock, faults, open);
  if (request.unregisteredOrigin)
    faults.push({ kind: 'authentication', why: 'sent from an unregistered origin', clauses: ['§5.7-1'] });
  framingFacts(request, open);
  documentFacts(request, faults, open);
  // A parser may ignore a byte order mark (RFC 8259 §8.1): the event_id is read past one, as such a receiver reads it.
  const id = eventIdOf(hasByteOrderMark(request.body) ? request.body.subarray(3) : request.body);
  return {
    interface: request.interface,
    faults,
    open,
    ...(id !== undefined ? { eventId: id } : {}),
    ...(identity !== undefined ? { identity } : {}),
  };
}

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

function hasByteOrderMark(body: Buffer): boolean {
  return body.subarray(0, 3).equals(BYTE_ORDER_MARK);
}

/** §8: 256 KB, over it 413 (Interface B). Whether KB is 1000 or 1024 bytes is open; Interface A states no limit. */
function sizeFacts(request: ModelRequest, faults: Fault[], open: OpenPoint[]): void {
  const bytes = request.body.length;
  if (!interfaceSpec(request.interface).sizeLimitStated) {
    if (bytes > MAX_BODY_BYTES) open.push({ id: 'job-size', why: `a job of ${bytes} bytes` });
    return;
  }
  if (bytes > MAX_BODY_BYTES)
    faults.push({ kind: 'too-large', why: `a body of ${bytes} bytes, over 256 KB`, clauses: ['§8-1', '§7-5'] });
  else if (bytes > SURELY_ALLOWED_BODY_BYTES)
    open.push({ id: 'kilobyte', why: `a body of ${bytes} bytes, over 256 000` });
}

/** §5.6 (B: the provider code names the credential) and §4.1 (A: the platform id, which nothing says to check). */
function identityFacts(
  request: ModelRequest,
  identity: string | undefined,
  credentials: ReceiverCredentials,
  faults: Fault[],
  open: OpenPoint[],
): void {
  const spec = interfaceSpec(request.interface);
  if (identity === credentials.identity) return;
  const why =
    identity === undefined
      ? `no ${spec.identityHeaderName}`
      : `${spec.identityHeaderName} is not ${JSON.stringify(credentials.identity)}`;
  if (spec.identityHeader === Headers.provider)
    faults.push({
      kind: identity === undefined ? 'header' : 'authentication',
      why,
      clauses: identity === undefined ? ['§4.2-2', '§5.6-1'] : ['§5.6-1'],
    });
  else open.push({ id: 'source-header', why });
}

/** The verdict of §5 on the signature and timestamp at `now`. */
function verdictAt(request: ModelRequest, secrets: readonly string[], now: number): VerifyResult {
  return verify({
    secrets,
    signature: headerOf(request, Headers.signature),
    timestamp: headerOf(request, Headers.timestamp),
    rawBody: request.body,
    now,
  });
}

const HEADER_REASONS = new Set([
  'missing_signature',
  'missing_timestamp',
  'malformed_timestamp',
  'malformed_signature',
]);
const WINDOW_REASONS = new Set(['timestamp_too_old', 'timestamp_in_future']);

/**
 * §5.2–§5.5: the signature over the timestamp as sent, one dot and the raw body, compared in full, with a timestamp
 * of integer seconds within 300 s of the receiver's clock. A receiver whose clock cai knows only to a span of seconds
 * may read a timestamp near the edge either way: then it may accept or refuse.
 */
function signatureFacts(
  request: ModelRequest,
  credentials: ReceiverCredentials,
  clock: ReadingClock,
  faults: Fault[],
  open: OpenPoint[],
): void {
  const first = verdictAt(request, credentials.secrets, clock.earliest);
  const last = clock.latest === clock.earliest ? first : verdictAt(request, credentials.secrets, clock.latest);
  const timestamp = headerOf(request, Headers.timestamp) ?? '';
  if (HEADER_REASONS.has(first.reason)) {
    if (first.reason === 'malformed_signature' && respelledMac(request, credentials.secrets, timestamp)) {
      open.push({ id: 'signature-spelling', why: 'the right MAC, spelled otherwise than sha256=<lowercase hex>' });
      return;
    }
    faults.push({
      kind: 'header',
      why: first.message,
      clauses: first.reason.endsWith('timestamp') ? ['§5.4-1'] : ['§5.3-1'],
    });
    return;
  }
  // A leading zero: whether `0<digits>` is an integer as §4 writes it is open; refusing it as malformed is a refusal.
  const leadingZero = /^0[0-9]/.test(timestamp);
  if (first.reason === 'signature_mismatch' || (WINDOW_REASONS.has(first.reason) && first.signatureMatches === false)) {
    faults.push({
      kind: leadingZero ? 'header' : 'authentication',
      why: 'the signature does not match the timestamp and raw body with the secret',
      clauses: ['§5.2-1', '§5.3-1'],
    });
    return;
  }
  const outsideFirst = WINDOW_REASONS.has(first.reason);
  const outsideLast = WINDOW_REASONS.has(last.reason);
  if (outsideFirst && outsideLast)
    faults.push({ kind: 'authentication', why: first.message, clauses: ['§5.5-1', '§8-3'] });
  else if (outsideFirst !== outsideLast)
    open.push({
      id: 'window-edge',
      why: 'a timestamp on the edge of the window, read by a clock cai knows only to the second',
    });
  else if (
    Math.max(Math.abs(first.ageSeconds ?? 0), Math.abs(last.ageSeconds ?? 0)) >
    OPEN_POINTS['window-interior'].beyondSeconds
  ) {
    open.push({
      id: 'window-interior',
      why: `a timestamp ${Math.abs(first.ageSeconds ?? 0)} s from the receiver's clock`,
    });
  }
  if (leadingZero)
    open.push({ id: 'timestamp-leading-zero', why: `X-CAI-Timestamp ${JSON.stringify(timestamp)} has a leading zero` });
}

/**
 * The right MAC in a spelling §5.3 does not write: the hex in upper case, the prefix otherwise or left out, base64, a
 * digit more, or among several values. A verifier that folds, decodes or splits the header accepts it; no forged
 * request gets in that way, so accepting it is latitude at the level of a `must`.
 */
function respelledMac(request: ModelRequest, secrets: readonly string[], timestamp: string): boolean {
  const header = headerOf(request, Headers.signature) ?? '';
  const candidates = header.split(',').map((part) => part.trim());
  const wanted = secrets.map((secret) => signatureDigest(secret, timestamp, request.body).toString('hex'));
  return candidates.some((candidate) => {
    const value =
      candidate.includes('=') && !candidate.endsWith('=') ? candidate.slice(candidate.indexOf('=') + 1) : candidate;
    const hex = /^[0-9a-fA-F]{64,65}$/.test(value)
      ? value.slice(0, 64).toLowerCase()
      : Buffer.from(value, 'base64').toString('hex');
    return candidate !== `${SIGNATURE_PREFIX}${hex}` && wanted.includes(hex);
  });
}

/** RFC 9110/9112: a body sent chunked may be refused with 411, an `Expect` with 417; the spec rules out neither framing. */
function framingFacts(request: ModelRequest, open: OpenPoint[]): void {
  if (request.framing === 'chunked') open.push({ id: 'chunked', why: 'a body sent chunked, without Content-Length' });
  if (request.framing === 'expect-continue')
    open.push({ id: 'expect-continue', why: 'a body sent after Expect: 100-continue' });
  const type = headerOf(request, Headers.contentType);
  const media = type?.split(';')[0]?.trim().toLowerCase();
  if (media !== 'application/json')
    open.push({ id: 'content-type', why: type === undefined ? 'no Content-Type' : `Content-Type: ${type}` });
  else if (type !== undefined && type.includes(';'))
    open.push({ id: 'media-parameters', why: `Content-Type: ${type}` });
}

/**
 * What the validator refuses on a reading the spec does not force: `null` for an optional field (the spec is silent
 * on null), a negative `attempts` or one past 2^53 − 1 (§2.7 types it "integer" and bounds it nowhere; RFC 8259 §6
 * lets a parser limit the range), an empty identifier (§2.2, §2.4: "string"). cai refuses them to keep every
 * receiver safe; a receiver that accepts them is not wrong.
 */
const ARGUABLE_ISSUES = new Set(['null', 'minimum', 'maximum', 'empty']);

/** Nesting deeper than this is beyond what common parsers take by default (Python's json stops near 1,000). */
const NESTING_SURELY_READ = 64;
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * A valid document that reaches where parsers differ (RFC 8259 §9: a limit on nesting; §8.2: an unpaired surrogate
 * escape): a refusal is latitude, a 5xx is not. Read from the bytes, so the common document costs two scans.
 */
function parserLimitFacts(body: Buffer, open: OpenPoint[]): void {
  const text = body.toString('utf8');
  const depth = jsonNestingDepth(text);
  if (depth > NESTING_SURELY_READ) open.push({ id: 'deep-nesting', why: `JSON nested ${depth} deep` });
  if (SURROGATE_ESCAPE.test(text) && illFormedTextPath(jsonValueOf(body)) !== undefined)
    open.push({ id: 'unpaired-surrogate', why: 'a string with an unpaired surrogate' });
}

/** §2: UTF-8 JSON, the document of the interface (§2.2 a job, §2.4–§2.7 an event), the event_id within §8's 120 characters. */
function documentFacts(request: ModelRequest, faults: Fault[], open: OpenPoint[]): void {
  const spec = interfaceSpec(request.interface);
  // RFC 8259 §8.1: a sender must not add a byte order mark, and a parser may ignore one: a valid document after it
  // may be accepted or refused.
  if (hasByteOrderMark(request.body) && documentErrors(request.body.subarray(3), spec.document).errors.length === 0) {
    open.push({ id: 'byte-order-mark', why: 'a valid document after a byte order mark' });
    return;
  }
  const { errors, why } = documentErrors(request.body, spec.document);
  if (errors.length === 0) return parserLimitFacts(request.body, open);
  if (errors.every((issue) => ARGUABLE_ISSUES.has(issue.code))) {
    open.push({ id: 'arguable-document', why });
    return;
  }
  // §7 makes the platform refuse an invalid event with 400; §4.1 shows the provider no error status at all.
  if (spec.refusals === 'fixed') faults.push({ kind: 'schema', why, clauses: ['§7-1'] });
  else open.push({ id: 'job-schema', why });
}
