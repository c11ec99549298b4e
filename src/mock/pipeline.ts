/**
 * The receive pipeline both reference receivers run (§4–§8), as small named steps (their code in pipeline/: the
 * profile a receiver supplies in profile.ts, the steps before the store in steps.ts, dedupe and persist in dedupe.ts):
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
 *     408; the bodies in memory over maxBufferedBytes 503 with Retry-After; the sender gone 400 aborted; its
 *     chunked framing unreadable 400 bad_request (this one even after steps 1–6 refused, when the parser gave up
 *     on the body while they were judged: the request cannot be read as HTTP/1.1)
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
import { BODY_UNREADABLE, bodyUnreadable } from '../http/admission.js';
import { InFlight } from '../http/in-flight.js';
import {
  declaredLength,
  errorReply,
  listen,
  readBody,
  sendReply,
  sleep,
  type Refusal,
  type Reply,
} from '../http/server.js';
import type { Bounds } from './bounds.js';
import { LogWriteError, RecordStore, type MockLogHead } from './log.js';
import { dedupeAndPersist, documentKey } from './pipeline/dedupe.js';
import type {
  MockRequestEntry,
  ReceiverProfile,
  Reject,
  RequestObserver,
  Received,
  RunningMock,
} from './pipeline/profile.js';
import {
  authenticate,
  bodyOrReply,
  checkDeclaredSize,
  checkRoute,
  checkSignatureHeaders,
  parseAndValidate,
} from './pipeline/steps.js';
import { SignedHeaders } from '../signing/verify.js';
import { eventIdOf } from '../spec/json.js';
import { MAX_BODY_BYTES } from '../spec/constants.js';
import { foldIdentity } from './receiver-faults.js';
import type { MockReceiverOptions } from './receiver-options.js';

export type {
  Admitted,
  Credential,
  MockRequestEntry,
  ObservedRequest,
  ReceiverProfile,
  Received,
  Reject,
  RequestObserver,
  RunningMock,
  SignaturePolicy,
} from './pipeline/profile.js';

/** A reference receiver started: its URL, its records, and what its reload skipped of its log. */
export interface StartedReceiver extends RunningMock {
  /** Lines of the log that were not records (a line torn by a crash, foreign text), skipped on reload. */
  readonly skippedLines: number;
  /** The numbers of the first of them, to name them. */
  readonly skippedLineNumbers: readonly number[];
}

/** What a reference receiver brings to its start: its reload, its profile, and what it stops around the server. */
interface ReceiverParts<Ack> {
  /** Each record's head read back from the log, in order (dedupe, §6.1, §2.2). */
  reload(head: MockLogHead): void;
  profile(store: RecordStore): ReceiverProfile<Ack>;
  /** Shown in the URL (the platform's events path; empty for the provider endpoint). */
  urlPath: string;
  /** Before the server stops (the provider's conversations), and what must end before the log is closed. */
  stopping?(): void;
  stopped?(): Promise<void>;
}

/**
 * Starts a reference receiver: its store opened (the log read back through `reload`), every request through the
 * pipeline, the requests in flight answered before its close lets the connections go. The store is closed again if
 * the port cannot be had.
 */
export async function startReceiver<Ack>(
  options: MockReceiverOptions,
  bounds: Bounds,
  parts: ReceiverParts<Ack>,
): Promise<StartedReceiver> {
  const store = await RecordStore.open(options, parts.reload);
  const profile = parts.profile(store);
  // A failing onRequest callback (e.g. a closed stdout) must not take the server down: a rejection settles too.
  const inFlight = new InFlight();
  const listening = await listen((request, response) => inFlight.track(respond(profile, request, response)), {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    path: parts.urlPath,
    tls: options.tls,
    limits: profile.limits,
    onRefused: (refusal) => reportRefusal(profile, refusal),
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    port: listening.port,
    records: store.records,
    skippedLines: store.skippedLines,
    skippedLineNumbers: store.skippedLineNumbers,
    close() {
      closing ??= (async () => {
        parts.stopping?.();
        await listening.close(() => inFlight.drained());
        bounds.watch.stop();
        await parts.stopped?.();
        await store.close();
      })();
      return closing;
    },
  };
}

/**
 * One request: decide the reply, answer, report the entry. A log that cannot be written is 503 (not
 * acknowledged, so the sender retries, §7); any other exception is a bug in the mock and answers 500, never
 * passing for a storage outage that senders would retry for 24 h.
 */
async function respond<Ack>(
  profile: ReceiverProfile<Ack>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const entry: MockRequestEntry = {
    received_at: isoTime(profile.now()),
    interface: profile.interface,
    status: 0,
    verdict: 'rejected',
  };
  const held: Held = { bytes: 0, body: undefined };
  let reply: Reply;
  try {
    reply = await decide(profile, request, entry, held);
  } catch (error) {
    reply = failureReply(profile, entry, error);
  } finally {
    profile.budget.give(held.bytes);
  }
  // Node's parser gave up on the body (a chunk size that is no hex number) while the headers were judged: the body
  // can never be read, so it is not drained, and a malformed one is answered as step 7 answers it (400, closed).
  const unreadable = request.complete ? undefined : bodyUnreadable(request);
  if (unreadable === 'malformed' && !reply.close) {
    const refusal = bodyOrReply(profile, { ok: false, reason: unreadable }, rejecter(entry));
    if (!Buffer.isBuffer(refusal)) reply = refusal;
  }
  if (profile.latencyMs) await sleep(profile.latencyMs);
  entry.status = reply.status;
  // An answer given before the body was read (a 401 or 429 on the headers): the rest of a body within §8's limit is
  // read and dropped first, briefly, so that the answer reaches a client still sending (closing with bytes unread
  // resets the connection, and the answer with it). A body that does not come in that time goes with the connection.
  const drained =
    request.complete || reply.close || unreadable !== undefined
      ? request.complete
      : await dropRest(request, EARLY_ANSWER_DRAIN_MS);
  sendReply(request, response, drained ? reply : { ...reply, close: true });
  profile.onRequest?.(entry);
  if (profile.observe) observe(profile.observe, request, entry, held.body, reply);
}

/**
 * A request the server answered itself, before the pipeline (one its parser could not read, no Host, a bad Expect, a
 * CONNECT): reported as every other, a line and the observer, with what is known of it. Each closes its connection,
 * so a flood of them costs a connection each; their lines and inspector rows are bounded as any refusal's. Not in
 * the log, which holds accepted requests only.
 */
function reportRefusal(profile: ReceiverProfile<unknown>, refusal: Refusal): void {
  const { status, reason, message } = refusal;
  const entry: MockRequestEntry = {
    received_at: isoTime(profile.now()),
    interface: profile.interface,
    status,
    verdict: 'rejected',
    reason,
    message,
  };
  profile.onRequest?.(entry);
  try {
    profile.observe?.({
      entry,
      method: refusal.method,
      target: refusal.target,
      httpVersion: refusal.httpVersion,
      rawHeaders: refusal.rawHeaders,
      remoteAddress: refusal.remoteAddress,
      reply: errorReply(status, reason, message, {}, refusal.headers),
    });
  } catch {
    // An observer is a bystander: whatever it does wrong, the request was answered.
  }
}

/** The ISO text of a clock reading, the last one kept: under load, many requests arrive within one millisecond. */
let lastTime = { ms: Number.NaN, text: '' };
function isoTime(ms: number): string {
  if (ms !== lastTime.ms) lastTime = { ms, text: new Date(ms).toISOString() };
  return lastTime.text;
}

/** The body bytes a request holds against the budget, and the body itself once read (for an observer). */
interface Held {
  bytes: number;
  body: Buffer | undefined;
}

function observe(
  observer: RequestObserver,
  request: IncomingMessage,
  entry: MockRequestEntry,
  body: Buffer | undefined,
  reply: Reply,
): void {
  try {
    observer({
      entry,
      method: request.method ?? '',
      target: request.url ?? '',
      httpVersion: request.httpVersion,
      rawHeaders: request.rawHeaders,
      remoteAddress: request.socket.remoteAddress,
      body,
      reply,
    });
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
async function decide<Ack>(
  profile: ReceiverProfile<Ack>,
  request: IncomingMessage,
  entry: MockRequestEntry,
  held: Held,
): Promise<Reply> {
  const reject = rejecter(entry);
  const early =
    checkRoute(profile, request, reject) ??
    profile.admit?.(request, reject) ??
    checkDeclaredSize(profile, request, reject) ??
    profile.throttle?.(reject);
  if (early) return early;
  if (profile.faults) foldIdentity(request, profile.faults);
  const credential = profile.identify(request, entry, reject);
  if ('status' in credential) return credential;
  const signed = checkSignatureHeaders(profile, request, credential, reject);
  if (signed !== undefined && !(signed instanceof SignedHeaders)) return signed;
  const read = await readBody(request, bodyLimitOf(profile, request), { watch: profile.watch, budget: profile.budget });
  const body = bodyOrReply(profile, read, reject);
  if (!Buffer.isBuffer(body)) return body;
  held.bytes = body.length;
  held.body = body;
  const received: Received = { request, entry, credential, body, signed };
  const unauthenticated = profile.beforeAuthenticate?.(received, reject) ?? authenticate(profile, received, reject);
  if (unauthenticated) return unauthenticated;
  const validator = profile.validator();
  const admitted = parseAndValidate(
    profile,
    received,
    validator instanceof Promise ? await validator : validator,
    reject,
  );
  if ('status' in admitted) {
    if (profile.faults?.has('records-before-validation') && entry.reason === 'invalid_document')
      await recordRefused(profile, received);
    return admitted;
  }
  return profile.inspect?.(admitted, reject) ?? (await dedupeAndPersist(profile, admitted));
}

/** `size-declared-only`: a body without Content-Length is read whatever its size (within the bytes in memory). */
function bodyLimitOf(profile: ReceiverProfile<unknown>, request: IncomingMessage): number {
  return profile.faults?.has('size-declared-only') && declaredLength(request) === undefined
    ? UNDECLARED_LIMIT_BYTES
    : profile.limitBytes;
}

const UNDECLARED_LIMIT_BYTES = 16 * 1024 * 1024;

/** `records-before-validation`: the event_id of a refused document is claimed in the dedupe index all the same. */
async function recordRefused<Ack>(profile: ReceiverProfile<Ack>, received: Received): Promise<void> {
  const eventId = eventIdOf(received.body);
  if (eventId === undefined) return;
  const admitted = Object.assign(received, { document: { event_id: eventId } });
  await profile.indexFor(admitted).claim(documentKey(profile, admitted), async () => profile.acknowledge(admitted));
}

/** How long the rest of a body is read before an early answer (the rest of one within §8's limit, on loopback or a LAN). */
const EARLY_ANSWER_DRAIN_MS = 1_000;

/** Reads and drops the rest of a request's body: true when it ended within `ms` and §8's limit (MAX_BODY_BYTES). */
function dropRest(request: IncomingMessage, ms: number): Promise<boolean> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > MAX_BODY_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (whole: boolean) => {
      clearTimeout(timer);
      request.off('data', counted);
      request.off('end', ended);
      request.off('error', failed);
      request.off(BODY_UNREADABLE, failed);
      if (!whole) request.pause();
      resolve(whole);
    };
    const counted = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_BODY_BYTES) done(false);
    };
    const ended = () => done(true);
    const failed = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    request.on('data', counted);
    request.once('end', ended);
    request.once('error', failed);
    // A body the parser gives up on never ends: the answer goes at once, with the connection.
    request.once(BODY_UNREADABLE, failed);
    request.resume();
  });
}
