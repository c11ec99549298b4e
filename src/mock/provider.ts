import { parseJsonBody, receive } from './receiver.js';
import { E164_PATTERN } from '../spec/formats.js';
import { setMaxListeners } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage, usageError } from '../errors.js';
import type { RetryPolicy } from '../http/retry.js';
import { verify } from '../signing/verify.js';
import { CONTACT_JOBS_PATH, HeaderNames, Headers, MAX_BODY_BYTES } from '../spec/constants.js';
import { unauthorisedReasonOf } from '../spec/statuses.js';
import { describeIssue } from '../spec/issues.js';
import { loadValidator, type Validator } from './validator.js';
import type { CatalogBranch } from '../spec/catalog.js';
import { buildConversation, offsetIso, scenarioForIntent, type JobFacts, type Scenario } from './conversation.js';
import { PROVIDER_FAULTS, unknownFaults, type ProviderFault } from './faults.js';
import { declaredLength, errorReply, headerValue, jsonReply, listen, readBody, sleep, type Reply, type TlsFiles } from '../http/server.js';
import { LogWriteError, openMockLog, type DurableLog, type MockLogRecord } from './log.js';
import type { MockRequestEntry, RunningMock } from './platform.js';
import type { EventSender } from './sender.js';

export { parseScenario, scenarioName, type Scenario } from './conversation.js';

/** One Interface B event the provider mock sent (printed like the requests it receives). */
export interface SentEventEntry {
  sent_at: string;
  direction: 'sent';
  provider_job_id: string;
  event: string;
  event_id: string;
  lead_id: string;
  url: string;
  outcome: 'accepted' | 'rejected' | 'failed';
  status?: number;
  attempts: number;
  error?: string;
}

/** §2.3: the job acknowledgment. */
export interface JobAck {
  provider_job_id: string;
  assigned_number_e164: string;
}

export interface MockProviderOptions {
  host?: string;
  port?: number;
  /** Code sent as X-CAI-Provider on every event (§4.2). */
  providerCode: string;
  /** §4.1: when given, X-CAI-Source must be this platform id. */
  sourceId?: string;
  /** Jobs direction: verify Interface A signatures; any verifies (§5.9). */
  secrets: readonly string[];
  /** Events direction: the first signs Interface B events (§5.1). */
  callbackSecrets: readonly string[];
  /** Default: chosen per job from brief.intent. */
  scenario?: Scenario;
  /** Divides every conversation delay (default 1). */
  speed?: number;
  /** Branch catalog: branch_code must be in it, and each unit's number_e164 is its origin number. */
  catalog?: readonly CatalogBranch[];
  /** NDJSON log of the jobs received (interface "A"), synced to disk before the 202; reloaded on start. */
  logFile?: string;
  tls?: TlsFiles;
  latencyMs?: number;
  faults?: readonly string[];
  keepRecords?: boolean;
  /** Retry policy of the event sender (default: the toolkit's). */
  retry?: Partial<RetryPolicy>;
  /** TLS for the callbacks (§5.8): trust this authority (PEM), or skip verification (tests only). */
  callbackTls?: { ca?: Buffer; insecure?: boolean };
  /** Replaces the sender (default: `deliver` with the retry policy). */
  sendEvent?: EventSender;
  onRequest?: (entry: MockRequestEntry) => void;
  onEvent?: (entry: SentEventEntry) => void;
  /** A callback attempt failed and will be retried (§7: 5xx, 429, network errors), so the wait is not silent. */
  onCallbackRetry?: (retry: { event: string; event_id: string; url: string; attempt: number; reason: string; waitMs: number }) => void;
  now?: () => number;
  random?: () => number;
}

export interface RunningMockProvider extends RunningMock {
  /** Resolves when every conversation started so far has ended (tests: wait for the whole lifecycle). */
  idle(): Promise<void>;
  /** The events sent so far, in order. */
  readonly sent: readonly SentEventEntry[];
}


function checkOptions(options: MockProviderOptions): Set<ProviderFault> {
  if (options.providerCode === '') throw usageError('missing_provider', 'no provider code', 'pass --provider CODE (sent as X-CAI-Provider on the events, §4.2)');
  if (options.secrets.length === 0 || options.secrets.some((s) => s.length === 0)) {
    throw usageError('missing_secret', 'no secret to verify the jobs with', 'pass --secret-env NAME or --secret-file PATH (the jobs direction)');
  }
  if (options.callbackSecrets.length === 0 || options.callbackSecrets.some((s) => s.length === 0)) {
    throw usageError('missing_secret', 'no secret to sign the events with', 'pass --callback-secret-env NAME or --callback-secret-file PATH (the events direction)');
  }
  if (options.speed !== undefined && !(options.speed > 0)) throw usageError('bad_speed', `--speed must be above 0, not ${options.speed}`, 'use e.g. --speed 60 to play a minute in a second');
  const bad = unknownFaults(options.faults ?? [], PROVIDER_FAULTS);
  if (bad.length > 0) throw usageError('unknown_fault', `unknown provider fault: ${bad.join(', ')}`, `choose from: ${Object.keys(PROVIDER_FAULTS).join(', ')}`);
  return new Set(options.faults as ProviderFault[] | undefined);
}

/**
 * Starts the Interface A reference receiver (§4.1) and conversation simulator (§3). Order of checks:
 * method and path, declared size (413), size while reading (413), X-CAI-Source when --source is given (401),
 * signature and window (401), JSON and schema (400), dedupe (the same 202 again), then 202 and the conversation.
 */
export async function startMockProvider(options: MockProviderOptions): Promise<RunningMockProvider> {
  const faults = checkOptions(options);
  const has = (fault: ProviderFault) => faults.has(fault);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const speed = options.speed ?? 1;
  const keepRecords = options.keepRecords !== false;
  const records: MockLogRecord[] = [];
  const sent: SentEventEntry[] = [];
  // The sender (undici) loads with the first event, the schemas (zod) while the server starts listening.
  let senderLoading: Promise<EventSender> | undefined;
  const sendEvent: EventSender =
    options.sendEvent ??
    ((request, signal, onRetry) => {
      senderLoading ??= import('./sender.js').then(({ createEventSender }) => createEventSender({ retry: options.retry, tls: options.callbackTls }));
      return senderLoading.then((send) => send(request, signal, onRetry));
    });
  let validator: Validator | undefined;
  const validatorLoading = loadValidator().then((loaded) => (validator = loaded));
  validatorLoading.catch(() => {});
  const stop = new AbortController();
  // One stop signal is shared by every conversation in flight, each waiting on it between steps: no leak.
  setMaxListeners(0, stop.signal);
  const conversations = new Set<Promise<void>>();
  const inFlight = new Set<Promise<void>>();

  // event_id → the acknowledgment of its first delivery; set before any await (a repeat gets the same ack, §2.2).
  const acks = new Map<string, Promise<JobAck | undefined>>();
  let log: DurableLog | undefined;
  if (options.logFile !== undefined) {
    const opened = await openMockLog(options.logFile);
    log = opened.log;
    for (const record of opened.loaded.records) {
      if (record.interface !== 'A' || record.verdict !== 'accepted' || !record.provider_job_id || !record.assigned_number_e164) continue;
      acks.set(record.event_id, Promise.resolve({ provider_job_id: record.provider_job_id, assigned_number_e164: record.assigned_number_e164 }));
    }
  }

  const step = { interface: 'A' as const, what: 'job', name: 'cai mock provider', latencyMs: options.latencyMs, now, onRequest: options.onRequest };
  const handle = (request: IncomingMessage, response: ServerResponse): Promise<void> => receive(step, request, response, decide);

  async function decide(request: IncomingMessage, entry: MockRequestEntry): Promise<Reply> {
    const reject = (status: number, reason: string, message: string, extra?: Record<string, unknown>): Reply => {
      entry.reason = reason;
      entry.message = message;
      return errorReply(status, reason, message, extra);
    };
    if (request.method !== 'POST') return { ...reject(405, 'method_not_allowed', `${request.method} is not allowed; jobs are POSTed to ${CONTACT_JOBS_PATH} (§4.1)`), headers: { allow: 'POST' } };
    if (request.url?.split('?', 1)[0] !== CONTACT_JOBS_PATH) return reject(404, 'not_found', `no endpoint at ${request.url}; jobs go to ${CONTACT_JOBS_PATH} (§4.1)`);
    const declared = declaredLength(request);
    if (declared !== undefined && declared > MAX_BODY_BYTES) {
      return { ...reject(413, 'payload_too_large', `the body is ${declared} bytes, over the ${MAX_BODY_BYTES}-byte limit`), close: true };
    }
    const read = await readBody(request, MAX_BODY_BYTES);
    if (!read.ok) {
      if (read.reason === 'aborted') return reject(400, 'aborted', 'the request body was not received in full');
      return { ...reject(413, 'payload_too_large', `the body is over the ${MAX_BODY_BYTES}-byte limit`), close: true };
    }
    const body = read.body;
    const source = headerValue(request, Headers.source);
    if (options.sourceId !== undefined && source !== options.sourceId) {
      return reject(401, 'unknown_source', source ? `X-CAI-Source "${source}" is not the expected platform (§4.1)` : 'the X-CAI-Source header is missing (§4.1)');
    }
    if (!has('no-signature-check')) {
      const result = verify({ secrets: options.secrets, signature: headerValue(request, Headers.signature), timestamp: headerValue(request, Headers.timestamp), rawBody: body, now: Math.floor(now() / 1000) });
      if (!result.valid) {
        return reject(401, unauthorisedReasonOf(result.reason), result.message);
      }
      entry.secret = (result.matchedSecretIndex ?? 0) + 1;
    }
    const validate = validator ?? (await validatorLoading);
    const parsed = parseJsonBody(body);
    if (!parsed.ok) {
      if (has('5xx-on-bad-json')) return reject(500, 'internal_error', 'internal server error');
      return reject(400, 'invalid_json', 'the body is not valid JSON', { errors: validate.validateBody(body, { kind: 'job' }).errors });
    }
    const document = parsed.value;
    const fields = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as Record<string, unknown>) : {};
    if (typeof fields.event_id === 'string') entry.event_id = fields.event_id;
    if (typeof fields.lead_id === 'string') entry.lead_id = fields.lead_id;
    if (typeof fields.branch_code === 'string') entry.branch_code = fields.branch_code;
    const verdict = validate.validateDocument(document, { kind: 'job', catalog: options.catalog });
    if (!verdict.valid) {
      entry.errors = verdict.errors;
      return reject(400, 'invalid_document', `the job does not match the schema: ${verdict.errors.map(describeIssue).join('; ')}`, { errors: verdict.errors });
    }
    const job = fields as unknown as JobDocument;
    return admit(job, request, entry);
  }

  async function admit(job: JobDocument, request: IncomingMessage, entry: MockRequestEntry): Promise<Reply> {
    const record = (verdict: 'accepted' | 'duplicate', ack: JobAck): MockLogRecord => ({
      v: 1,
      received_at: entry.received_at,
      space: 'live',
      interface: 'A',
      kind: 'job',
      status: 202,
      verdict,
      provider_code: options.providerCode,
      event_id: job.event_id,
      lead_id: job.lead_id,
      branch_code: job.branch_code,
      provider_job_id: ack.provider_job_id,
      assigned_number_e164: ack.assigned_number_e164,
      headers: receivedHeaders(request),
      document: job,
    });
    const persist = async (value: MockLogRecord) => {
      if (keepRecords) records.push(value);
      if (!log) return;
      try {
        await log.append(value);
      } catch (error) {
        throw new LogWriteError(`the log ${log.path} could not be written: ${errorMessage(error)}`);
      }
    };
    const answer = (ack: JobAck, verdict: 'accepted' | 'duplicate'): Reply => {
      entry.verdict = verdict;
      entry.provider_job_id = ack.provider_job_id;
      entry.assigned_number_e164 = ack.assigned_number_e164;
      return jsonReply(202, ack);
    };
    if (!has('no-dedupe')) {
      for (;;) {
        const prior = acks.get(job.event_id);
        if (prior === undefined) break;
        const ack = await prior;
        if (ack) {
          // §2.2: a repeated event_id is ignored: the same acknowledgment, nothing started.
          await persist(record('duplicate', ack));
          return answer(ack, 'duplicate');
        }
        // The first copy could not be stored: this one takes its place.
        if (acks.get(job.event_id) === prior) acks.delete(job.event_id);
      }
    }
    const ack: JobAck = { provider_job_id: `pj_${randomBytes(8).toString('hex')}`, assigned_number_e164: numberFor(job.branch_code) };
    let failure: unknown;
    const stored = persist(record('accepted', ack)).then(
      () => ack,
      (error: unknown) => {
        failure = error;
        return undefined;
      },
    );
    if (!has('no-dedupe')) acks.set(job.event_id, stored);
    if (!(await stored)) {
      acks.delete(job.event_id);
      throw failure;
    }
    startConversation(job, ack);
    return answer(has('bad-ack') ? { ...ack, assigned_number_e164: nationalFormat(ack.assigned_number_e164) } : ack, 'accepted');
  }

  function numberFor(branchCode: string): string {
    const listed = options.catalog?.find((branch) => branch.branch_code === branchCode)?.number_e164;
    if (listed) return listed;
    // Stable per branch: the UK's range reserved for drama (+44 7700 900000–900999), never a real line.
    const n = createHash('sha256').update(branchCode).digest().readUInt32BE(0) % 1000;
    return `+447700900${String(n).padStart(3, '0')}`;
  }

  function startConversation(job: JobDocument, ack: JobAck): void {
    const chosen = options.scenario ?? scenarioForIntent(job.brief?.intent);
    const scenario = chosen.kind === 'random' ? pickRandom(random) : chosen;
    const facts: JobFacts = {
      leadId: has('callback-lead-changed') ? `${job.lead_id}-x` : job.lead_id,
      providerJobId: ack.provider_job_id,
      branchCode: job.branch_code,
      branchName: options.catalog?.find((branch) => branch.branch_code === job.branch_code)?.name ?? job.city ?? job.branch_code,
      contactName: job.contact.name,
      contactPhone: job.contact.phone_e164,
      assignedNumber: ack.assigned_number_e164,
      originChannel: job.origin?.channel,
      notes: job.brief?.notes,
    };
    const steps = buildConversation(facts, scenario, now);
    const run = (async () => {
      for (const step of steps) {
        await sleep(step.delayMs / speed, stop.signal);
        if (stop.signal.aborted) return;
        const document: Record<string, unknown> = { ...step.document, occurred_at: offsetIso(now()) };
        if (has('callback-invalid-event')) breakEnum(document);
        const delivered = await deliverEvent(job.callback_url, document);
        const entry: SentEventEntry = {
          sent_at: new Date(now()).toISOString(),
          direction: 'sent',
          provider_job_id: ack.provider_job_id,
          event: String(document.event),
          event_id: String(document.event_id),
          lead_id: String(document.lead_id),
          url: job.callback_url,
          outcome: delivered.outcome,
          ...(delivered.status !== undefined ? { status: delivered.status } : {}),
          attempts: delivered.attempts,
          ...(delivered.error ? { error: delivered.error } : {}),
        };
        sent.push(entry);
        options.onEvent?.(entry);
        // A rejected or undeliverable event ends the conversation: the later ones would make no sense alone.
        if (delivered.outcome !== 'accepted') return;
      }
    })();
    conversations.add(run);
    void run.finally(() => conversations.delete(run));
  }

  function deliverEvent(url: string, document: Record<string, unknown>) {
    const secret = has('callback-wrong-secret') ? (options.secrets[0] as string) : (options.callbackSecrets[0] as string);
    const provider = has('callback-wrong-provider') ? `${options.providerCode}-other` : options.providerCode;
    return sendEvent(
      { url, body: Buffer.from(JSON.stringify(document)), secret, headers: { 'Content-Type': 'application/json', [HeaderNames.provider]: provider } },
      stop.signal,
      (retry) => options.onCallbackRetry?.({ event: String(document.event), event_id: String(document.event_id), url, ...retry }),
    ).catch((error: unknown) => ({ outcome: 'failed' as const, attempts: 1, error: errorMessage(error), interrupted: false, status: undefined }));
  }

  const listening = await listen(
    (request, response) => {
      // A failing onRequest callback (e.g. a closed stdout) must not take the server down.
      const task = handle(request, response).catch(() => {});
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    { host: options.host ?? '127.0.0.1', port: options.port ?? 0, path: '', tls: options.tls },
  ).catch(async (error: unknown) => {
    await log?.close();
    throw error;
  });

  const idle = async () => {
    while (conversations.size > 0) await Promise.allSettled([...conversations]);
  };
  let closing: Promise<void> | undefined;
  return {
    url: listening.url,
    port: listening.port,
    records,
    sent,
    idle,
    close() {
      closing ??= (async () => {
        stop.abort();
        await listening.close(async () => {
          while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        });
        await idle();
        await log?.close();
      })();
      return closing;
    },
  };
}

/** The fields of a valid contact job (§2.2) this mock reads. */
interface JobDocument {
  lead_id: string;
  event_id: string;
  branch_code: string;
  city?: string;
  contact: { name: string; phone_e164: string };
  origin?: { channel?: string };
  brief?: { intent?: string; notes?: string };
  callback_url: string;
}

function pickRandom(random: () => number): Exclude<Scenario, { kind: 'random' }> {
  const choices: Exclude<Scenario, { kind: 'random' }>[] = [
    { kind: 'booked' },
    { kind: 'rescheduled' },
    { kind: 'cancelled' },
    { kind: 'closed', outcome: 'no_answer' },
    { kind: 'closed', outcome: 'not_interested' },
    { kind: 'closed', outcome: 'wrong_number' },
    { kind: 'closed', outcome: 'callback_later' },
    { kind: 'closed', outcome: 'opted_out' },
  ];
  return choices[Math.floor(random() * choices.length) % choices.length] as Exclude<Scenario, { kind: 'random' }>;
}

/** The `callback-invalid-event` defect: a value outside its §2.10 / §2.12 enumeration. */
function breakEnum(document: Record<string, unknown>): void {
  if (document.event === 'conversation.message') document.channel = 'carrier_pigeon';
  else if (document.event === 'job.closed') document.outcome = 'ghosted';
  else document.event = 'appointment.maybe';
}

/** The `bad-ack` defect: the number in national format, as a careless provider would send it. */
function nationalFormat(number: string): string {
  return E164_PATTERN.test(number) && number.startsWith('+44') ? `0${number.slice(3, 7)} ${number.slice(7)}` : number.replace(/^\+/, '00');
}

function receivedHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of [Headers.source, Headers.timestamp, Headers.signature, Headers.contentType]) {
    const value = headerValue(request, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

