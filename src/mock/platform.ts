import { parseJsonBody, receive } from './receiver.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, usageError } from '../errors.js';
import { verify } from '../signing/verify.js';
import { Headers, MAX_BODY_BYTES, SIGNATURE_WINDOW_SECONDS } from '../spec/constants.js';
import { unauthorisedReasonOf } from '../spec/statuses.js';
import { describeIssue } from '../spec/issues.js';
import type { Branch, ValidationIssue } from '../spec/validate.js';
import { loadValidator, type Validator } from './validator.js';
import { PLATFORM_FAULTS, unknownFaults, type PlatformFault } from './faults.js';
import { declaredLength, errorReply, headerValue, listen, readBody, sleep, type Reply, type TlsFiles } from '../http/server.js';
import { LogWriteError, openMockLog, type DurableLog, type MockLogRecord } from './log.js';
import { OriginAllowList, parseCidr } from './origin.js';
import { RateLimiter } from './rate-limit.js';

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

export interface RunningMockPlatform extends RunningMock {
  /** Registers a lead the platform "knows" (§6.3: others are still accepted, marked for reconciliation). */
  addKnownLead(leadId: string): void;
  /** Events already accepted in the log when the mock started (restart on the same --log). */
  readonly reloaded: number;
  /** Lines of the log that were not records (a line torn by a crash, foreign text), skipped on reload. */
  readonly skippedLines: number;
}

export interface MockPlatformOptions {
  host?: string;
  port?: number;
  /** Path of the events endpoint (§4.2); default `/events`. */
  path?: string;
  /** The provider code of the live credential (§5.6). */
  providerCode: string;
  /** Live secrets, Interface B direction; any verifies (rotation, §5.9). */
  secrets: readonly string[];
  /** §1: test credentials, whose events land in a separate space with their own dedupe. */
  testProviderCode?: string;
  testSecrets?: readonly string[];
  /** NDJSON log; an accepted event is synced to disk here before its 202. Reloaded on start for dedupe. */
  logFile?: string;
  /** Requests per second over which 429 is answered (§7). */
  rateLimit?: number;
  /** §5.7: CIDR blocks (IPv4 or IPv6) allowed to call; none = anyone. */
  allowOrigins?: readonly string[];
  tls?: TlsFiles;
  /** Fault injection for senders' retry logic: fraction of requests answered 503. */
  failRate?: number;
  /** The first N attempts of each event_id are answered 503. */
  failFirst?: number;
  /** Added before every answer. */
  latencyMs?: number;
  /** §6.3: leads the platform knows; when given, records carry `lead_known`. */
  knownLeads?: Iterable<string>;
  /** Passed to the validator (unknown branch_code values). */
  catalog?: readonly Branch[];
  /** Deliberate defects (see PLATFORM_FAULTS). */
  faults?: readonly string[];
  /** Keep records in memory for `records` (default true; the CLI turns it off). */
  keepRecords?: boolean;
  onRequest?: (entry: MockRequestEntry) => void;
  /** Clock in ms (tests). */
  now?: () => number;
  random?: () => number;
}

const ACCEPTED_BODY = Buffer.from('{"ok":true}');
// §2.13: the duplicate acknowledgment.
const DUPLICATE_BODY = Buffer.from('{"ok":true,"duplicate":true}');
// Far beyond §8, so `no-size-limit` accepts what a real careless server would, without unbounded memory.
const NO_LIMIT_BYTES = 64 * 1024 * 1024;
// racy-dedupe: the gap between its check and its insert.
const RACY_WINDOW_MS = 50;
// §2.4–§2.7: every field the spec names for an event (reject-unknown-fields treats others as errors).
const KNOWN_EVENT_FIELDS = new Set([
  'event', 'event_id', 'lead_id', 'provider_job_id', 'channel', 'from_number_e164', 'direction', 'author', 'text',
  'occurred_at', 'branch_code', 'scheduled_at', 'service', 'notes', 'outcome', 'attempts',
]);

interface Credential {
  code: string;
  secrets: readonly string[];
  space: 'live' | 'test';
}

/** Checks options that a caller can get wrong, as usage errors (the CLI's flags are checked by commander first). */
function checkOptions(options: MockPlatformOptions): { faults: Set<PlatformFault>; origins?: OriginAllowList } {
  if (options.providerCode === '') throw usageError('missing_provider', 'no provider code', 'pass --provider CODE (the X-CAI-Provider value, §5.6)');
  if (options.secrets.length === 0 || options.secrets.some((s) => s.length === 0)) {
    throw usageError('missing_secret', 'no secret for the live provider', 'pass --secret-env NAME or --secret-file PATH');
  }
  if (options.testProviderCode !== undefined) {
    if (!options.testSecrets?.length) throw usageError('missing_secret', `no secret for the test provider ${options.testProviderCode}`, 'pass --test-secret-env NAME or --test-secret-file PATH');
    if (options.testProviderCode === options.providerCode) throw usageError('bad_test_provider', 'the test provider code is the live provider code', 'give the test credential its own code (§1: test data lands in an isolated space)');
  }
  const bad = unknownFaults(options.faults ?? [], PLATFORM_FAULTS);
  if (bad.length > 0) throw usageError('unknown_fault', `unknown platform fault: ${bad.join(', ')}`, `choose from: ${Object.keys(PLATFORM_FAULTS).join(', ')}`);
  let origins: OriginAllowList | undefined;
  if (options.allowOrigins?.length) {
    const cidrs = options.allowOrigins.map((text) => {
      const cidr = parseCidr(text);
      if (!cidr) throw usageError('bad_cidr', `not an address or CIDR block: ${text}`, 'use e.g. 203.0.113.0/24, 2001:db8::/32 or 127.0.0.1');
      return cidr;
    });
    origins = new OriginAllowList(cidrs);
  }
  return { faults: new Set(options.faults as PlatformFault[] | undefined), origins };
}

/**
 * Starts the Interface B reference receiver (§4.2, §5–§8). The order of checks is the README's:
 * method and path, origin (401), declared size (413), rate (429), body size while reading (413),
 * provider (401), signature and window (401), JSON and schema (400), injected failures (503), dedupe (202).
 */
export async function startMockPlatform(options: MockPlatformOptions): Promise<RunningMockPlatform> {
  const { faults, origins } = checkOptions(options);
  const has = (fault: PlatformFault) => faults.has(fault);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const path = options.path ?? '/events';
  const limit = has('no-size-limit') ? NO_LIMIT_BYTES : MAX_BODY_BYTES;
  const keepRecords = options.keepRecords !== false;
  const records: MockLogRecord[] = [];
  const knownLeads = options.knownLeads ? new Set(options.knownLeads) : undefined;
  const limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
  const attemptsByEvent = new Map<string, number>();
  const credentials = new Map<string, Credential>([[options.providerCode, { code: options.providerCode, secrets: options.secrets, space: 'live' }]]);
  if (options.testProviderCode !== undefined && options.testSecrets) {
    credentials.set(options.testProviderCode, { code: options.testProviderCode, secrets: options.testSecrets, space: 'test' });
  }

  // Dedupe: space + event_id → the promise of the first record being durable (true) or lost (false).
  // Set synchronously before any await, so concurrent repeats can never both be "new" (§6.1).
  const seen = new Map<string, Promise<boolean>>();
  let reloaded = 0;
  let skippedLines = 0;
  let log: DurableLog | undefined;
  if (options.logFile !== undefined) {
    const opened = await openMockLog(options.logFile);
    log = opened.log;
    skippedLines = opened.loaded.skippedLines;
    for (const record of opened.loaded.records) {
      if (record.interface !== 'B' || record.verdict !== 'accepted') continue;
      seen.set(dedupeKey(record.space, record.event_id), Promise.resolve(true));
      reloaded += 1;
    }
  }

  /** Keeps the record and appends it to the log; `raw` is the body as received, spliced in as `document`. */
  const persist = async (record: MockLogRecord, raw: Buffer): Promise<void> => {
    if (keepRecords) records.push(record);
    if (!log) return;
    try {
      const { document: _document, ...rest } = record;
      await log.appendWithRawDocument(rest, raw);
    } catch (error) {
      throw new LogWriteError(`the log ${log.path} could not be written: ${errorMessage(error)}`);
    }
  };

  const inFlight = new Set<Promise<void>>();
  // The schemas (zod) load while the server starts listening: the URL is out before they are ready.
  let validator: Validator | undefined;
  const validatorLoading = loadValidator().then((loaded) => (validator = loaded));
  validatorLoading.catch(() => {});

  const step = { interface: 'B' as const, what: 'event', name: 'cai mock platform', latencyMs: options.latencyMs, now, onRequest: options.onRequest };
  const handle = (request: IncomingMessage, response: ServerResponse): Promise<void> => receive(step, request, response, decide);

  async function decide(request: IncomingMessage, entry: MockRequestEntry): Promise<Reply> {
    const reject = (status: number, reason: string, message: string, extra?: Record<string, unknown>, headers?: Record<string, string>): Reply => {
      entry.reason = reason;
      entry.message = message;
      return errorReply(status, reason, message, extra, headers);
    };
    if (request.method !== 'POST') return { ...reject(405, 'method_not_allowed', `${request.method} is not allowed; events are POSTed (§4.2)`), headers: { allow: 'POST' } };
    const requestPath = request.url?.split('?', 1)[0];
    if (requestPath !== path) return reject(404, 'not_found', `no endpoint at ${request.url}; events go to ${path} (§4.2)`);
    if (origins && !origins.allows(request.socket.remoteAddress)) {
      return reject(401, 'origin_not_allowed', `origin ${request.socket.remoteAddress} is not an authorised address (§5.7)`);
    }
    const declared = declaredLength(request);
    if (declared !== undefined && declared > limit) {
      // §8: over 256 KB, 413 without reading the rest.
      return { ...reject(413, 'payload_too_large', `the body is ${declared} bytes, over the ${MAX_BODY_BYTES}-byte limit (§8)`), close: true };
    }
    if (limiter) {
      const retryAfter = limiter.take();
      if (retryAfter !== undefined) {
        const headers = has('no-retry-after') ? undefined : { 'retry-after': String(retryAfter) };
        return reject(429, 'rate_limited', `over the cap of ${options.rateLimit} requests per second (§7)`, { retry_after: retryAfter }, headers);
      }
    }
    const read = await readBody(request, limit);
    if (!read.ok) {
      if (read.reason === 'aborted') return reject(400, 'aborted', 'the request body was not received in full');
      return { ...reject(413, 'payload_too_large', `the body is over the ${MAX_BODY_BYTES}-byte limit (§8)`), close: true };
    }
    const body = read.body;

    const providerCode = headerValue(request, Headers.provider);
    const credential = findCredential(providerCode);
    if (!credential) {
      return reject(401, 'unknown_provider', providerCode ? `X-CAI-Provider "${providerCode}" is not a known provider (§5.6)` : 'the X-CAI-Provider header is missing (§4.2)');
    }
    entry.space = credential.space;
    entry.provider_code = credential.code;
    const signature = headerValue(request, Headers.signature);
    const timestamp = headerValue(request, Headers.timestamp);

    if (has('dedupe-before-auth')) {
      const eventId = peekEventId(body);
      if (eventId !== undefined && seen.has(dedupeKey(credential.space, eventId))) {
        entry.event_id = eventId;
        entry.verdict = 'duplicate';
        return has('duplicate-without-body') ? { status: 202 } : { status: 202, body: DUPLICATE_BODY };
      }
    }

    const authFailure = authenticate(credential, signature, timestamp, body, entry);
    if (authFailure) return reject(401, authFailure.reason, authFailure.message);

    const validate = validator ?? (await validatorLoading);
    const parsed = parseJsonBody(body);
    if (!parsed.ok) {
      // validateBody gives the line-and-column message; it runs only on this slow path.
      const verdict = validate.validateBody(body, { kind: 'event' });
      if (has('5xx-on-bad-json')) return reject(500, 'internal_error', 'internal server error');
      return reject(400, 'invalid_json', 'the body is not valid JSON', { errors: verdict.errors });
    }
    const document = parsed.value;
    const fields = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as Record<string, unknown>) : undefined;
    if (fields) {
      if (typeof fields.event === 'string') entry.event = fields.event;
      if (typeof fields.event_id === 'string') entry.event_id = fields.event_id;
      if (typeof fields.lead_id === 'string') entry.lead_id = fields.lead_id;
    }
    const schemaErrors = checkSchema(validate, fields, document);
    if (schemaErrors.length > 0) {
      entry.errors = schemaErrors;
      return reject(400, 'invalid_document', `the event does not match the schema: ${schemaErrors.map(describeIssue).join('; ')}`, { errors: schemaErrors });
    }
    const doc = fields as Record<string, unknown> & { event: string; event_id: string };
    if (knownLeads && typeof doc.lead_id === 'string') {
      entry.lead_known = knownLeads.has(doc.lead_id);
      if (!entry.lead_known && has('reject-unknown-lead')) return reject(400, 'unknown_lead', `lead_id "${doc.lead_id}" is not known`);
    } else if (has('reject-unknown-lead') && typeof doc.lead_id === 'string') {
      return reject(400, 'unknown_lead', `lead_id "${doc.lead_id}" is not known`);
    }

    const key = dedupeKey(credential.space, doc.event_id);
    if (options.failFirst) {
      const attempts = (attemptsByEvent.get(key) ?? 0) + 1;
      attemptsByEvent.set(key, attempts);
      if (attempts <= options.failFirst) {
        entry.verdict = 'injected';
        return reject(503, 'injected_failure', `attempt ${attempts} of this event_id fails by --fail-first ${options.failFirst}`);
      }
    }
    if (options.failRate && random() < options.failRate) {
      entry.verdict = 'injected';
      return reject(503, 'injected_failure', `failed at random by --fail-rate ${options.failRate}`);
    }
    return await admit(key, credential, doc, body, request, entry);
  }

  function findCredential(providerCode: string | undefined): Credential | undefined {
    if (providerCode === undefined || providerCode === '') return undefined;
    const found = credentials.get(providerCode);
    if (found) return found;
    return has('any-provider') ? { code: providerCode, secrets: options.secrets, space: 'live' } : undefined;
  }

  function authenticate(credential: Credential, signature: string | undefined, timestamp: string | undefined, body: Buffer, entry: MockRequestEntry) {
    const nowSeconds = Math.floor(now() / 1000);
    const window = has('no-window') || has('past-only-window') ? Number.MAX_SAFE_INTEGER : SIGNATURE_WINDOW_SECONDS;
    const signed = has('reserialising-verifier') ? reserialise(body) : body;
    const result = verify({ secrets: credential.secrets, signature, timestamp, rawBody: signed, now: nowSeconds, windowSeconds: window });
    if (!result.valid) return { reason: unauthorisedReasonOf(result.reason), message: result.message };
    if (has('past-only-window') && (result.ageSeconds ?? 0) > SIGNATURE_WINDOW_SECONDS) {
      return { reason: 'timestamp_outside_window', message: `the timestamp is ${result.ageSeconds} s old, outside the ${SIGNATURE_WINDOW_SECONDS} s window` };
    }
    entry.secret = (result.matchedSecretIndex ?? 0) + 1;
    return undefined;
  }

  function checkSchema(validate: Validator, fields: Record<string, unknown> | undefined, document: unknown): ValidationIssue[] {
    if (has('lax-schema')) {
      if (fields && typeof fields.event === 'string' && typeof fields.event_id === 'string') return [];
      return [{ path: '', code: 'invalid_type', message: 'expected an object with event and event_id' }];
    }
    const verdict = validate.validateDocument(document, { kind: 'event', catalog: options.catalog });
    const errors = [...verdict.errors];
    if (has('reject-unknown-fields') && fields) {
      for (const name of Object.keys(fields)) {
        if (!KNOWN_EVENT_FIELDS.has(name)) errors.push({ path: name, code: 'unknown_field', message: `unknown field ${name}` });
      }
    }
    return errors;
  }

  async function admit(key: string, credential: Credential, doc: Record<string, unknown> & { event_id: string }, body: Buffer, request: IncomingMessage, entry: MockRequestEntry): Promise<Reply> {
    const record = (verdict: 'accepted' | 'duplicate'): MockLogRecord => ({
      v: 1,
      received_at: entry.received_at,
      space: credential.space,
      interface: 'B',
      kind: 'event',
      status: 202,
      verdict,
      provider_code: credential.code,
      event_id: doc.event_id,
      event: typeof doc.event === 'string' ? doc.event : undefined,
      lead_id: typeof doc.lead_id === 'string' ? doc.lead_id : undefined,
      lead_known: entry.lead_known,
      headers: receivedHeaders(request),
      document: doc,
    });
    if (has('no-dedupe')) {
      entry.verdict = 'accepted';
      await persist(record('accepted'), body);
      return { status: 202, body: ACCEPTED_BODY };
    }
    if (has('racy-dedupe')) {
      // The defect: check, then await, then insert; concurrent repeats all pass the check. The wait stands
      // for the round trip to a database that a real racy receiver makes between its check and its insert.
      if (seen.has(key)) return duplicate();
      await sleep(RACY_WINDOW_MS);
      await persist(record('accepted'), body);
      seen.set(key, Promise.resolve(true));
      entry.verdict = 'accepted';
      return { status: 202, body: ACCEPTED_BODY };
    }
    for (;;) {
      const prior = seen.get(key);
      if (prior === undefined) break;
      // A repeat of an event still being written waits for it, so "duplicate" always means "stored".
      if (await prior) return duplicate();
      // The first copy could not be stored: this one takes its place.
      if (seen.get(key) === prior) seen.delete(key);
    }
    let failure: unknown;
    const stored = persist(record('accepted'), body).then(
      () => true,
      (error: unknown) => {
        failure = error;
        return false;
      },
    );
    seen.set(key, stored);
    if (!(await stored)) {
      seen.delete(key);
      throw failure;
    }
    entry.verdict = 'accepted';
    return { status: 202, body: ACCEPTED_BODY };

    async function duplicate(): Promise<Reply> {
      entry.verdict = 'duplicate';
      await persist(record('duplicate'), body);
      return has('duplicate-without-body') ? { status: 202 } : { status: 202, body: DUPLICATE_BODY };
    }
  }

  const listening = await listen(
    (request, response) => {
      // A failing onRequest callback (e.g. a closed stdout) must not take the server down.
      const task = handle(request, response).catch(() => {});
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    { host: options.host ?? '127.0.0.1', port: options.port ?? 0, path, tls: options.tls },
  ).catch(async (error: unknown) => {
    await log?.close();
    throw error;
  });

  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    port: listening.port,
    records,
    reloaded,
    skippedLines,
    addKnownLead(leadId: string) {
      knownLeads?.add(leadId);
    },
    close() {
      closing ??= listening
        .close(async () => {
          while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        })
        .then(() => log?.close());
      return closing;
    },
  };
}

function dedupeKey(space: string, eventId: string): string {
  return `${space}\u0000${eventId}`;
}

/** The `reserialising-verifier` defect: what a framework's parsed-and-restringified body looks like. */
function reserialise(body: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8'))));
  } catch {
    return body;
  }
}

function peekEventId(body: Buffer): string | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null && typeof (value as { event_id?: unknown }).event_id === 'string') {
      return (value as { event_id: string }).event_id;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The headers worth keeping in the log (no secret travels in a header; the signature is not a secret). */
function receivedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of [Headers.provider, Headers.source, Headers.timestamp, Headers.signature, Headers.contentType]) {
    const value = headerValue(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}
