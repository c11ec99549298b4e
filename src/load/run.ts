/**
 * One load run, usable from the CLI and as a library: optionally start the reference receiver in-process
 * (`mock`, as the conformance suite does), open the callback listener (Interface A, `callbacks`), run the
 * open-model engine with freshly made and freshly signed documents, judge every answer (status, §2.13 duplicate,
 * rejection reason, Retry-After), wait for the first callbacks, judge the thresholds, and return the report.
 * Everything it starts, it stops.
 */
import { randomBytes } from 'node:crypto';
import { startMockPlatform } from '../mock/platform.js';
import { startMockProvider } from '../mock/provider.js';
import type { EventSender } from '../mock/sender.js';
import { sign, unixSeconds } from '../signing/sign.js';
import { Headers } from '../spec/constants.js';
import { endpointUrl, interfaceSpec } from '../spec/interfaces.js';
import { isWellFormedRetryAfter } from '../spec/retry-after.js';
import { classifyStatus, isRejection } from '../spec/statuses.js';
import { LOAD_BOUNDS } from './bounds.js';
import { CallbackListener } from './callbacks.js';
import { DocumentFactory } from './documents.js';
import { runEngine, type OutgoingRequest } from './engine.js';
import { WirePool, type WireAnswer } from './wire.js';
import { LoadMetrics } from './metrics.js';
import { buildReport, type LoadReport } from './report.js';
import { RepeatPool, type Accepted } from './repeats.js';
import { recogniseRepeat } from '../spec/acknowledgment.js';
import { mixOf, mixPicker, type Scenario } from './scenario.js';
import { Schedule } from './schedule.js';
import type { Threshold } from './thresholds.js';

export interface LoadOptions {
  scenario: Scenario;
  /** The events URL (B) or the provider endpoint (A; /contact-jobs is appended). Ignored with `mock`. */
  target?: string;
  /** Start the reference receiver in-process and load it. */
  mock?: boolean;
  /** X-CAI-Provider (B) or X-CAI-Source (A); defaults with `mock`. */
  identity?: string;
  /** The signing secret; generated with `mock` when absent. */
  secret?: string;
  maxInFlight: number;
  timeoutMs: number;
  thresholds: readonly Threshold[];
  /** Interface A: the branch_code of the jobs. */
  branchCode?: string;
  /** Interface A without callbacks: every job's callback_url (default: the sample's placeholder). */
  callbackUrl?: string;
  /** Interface A: time each job to its first callback (§8 first contact, `targetMs`). */
  callbacks?: { host: string; port: number; publicUrl?: string; secrets?: readonly string[]; targetMs: number };
  /** TLS: an extra authority to trust (PEM), or no verification at all (tests only). */
  client?: { ca?: Buffer; insecure?: boolean };
  /** The first Ctrl-C: nothing more is sent; what is in flight finishes. */
  stopSignal?: AbortSignal;
  /** The second: the requests in flight are aborted, and the wait for callbacks ends. */
  abortSignal?: AbortSignal;
  /** Called about four times a second while the run lasts (the live line). */
  onProgress?: (progress: LoadProgress) => void;
  /** The URL and what is about to happen, once the target is known (before the first request). */
  onStart?: (start: { url: string; callbackUrl?: string }) => void;
}

export type LoadProgress = ReturnType<typeof progressOf>;

/** The run stopped early: nothing listens at the target (a refused connection before any answer). */
export class UnreachableTarget extends Error {
  constructor(
    readonly url: string,
    readonly code: string,
  ) {
    super(`nothing answered at ${url}: ${code}`);
  }
}

const MOCK_IDENTITY = { B: 'cai-load', A: 'cai-load-platform' } as const;
const MOCK_PROVIDER_CODE = 'cai-load';
/** The provider mock's conversations run this much faster: its first message (3 s in) comes after 50 ms. */
const MOCK_CONVERSATION_SPEED = 60;
interface LoadRequest extends OutgoingRequest {
  /** The accepted document this request repeats (§2.2, §6.1: it must be recognised). */
  entry?: Accepted;
  token?: string;
}

/** Failures that mean nothing is there to load: before any answer, the run ends at the first of them. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const { scenario } = options;
  const startedAt = new Date();
  const schedule = new Schedule(scenario.phases);
  const metrics = new LoadMetrics(schedule.durationMs, scenario.repeatShare);
  const secret = options.secret ?? (options.mock ? randomBytes(32).toString('hex') : undefined);
  if (secret === undefined) throw new Error('runLoad: no signing secret');
  const identity = options.identity ?? (options.mock ? MOCK_IDENTITY[scenario.interface] : undefined);
  if (identity === undefined) throw new Error('runLoad: no identity (X-CAI-Provider or X-CAI-Source)');
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const callbackSecrets = options.callbacks ? [...(options.callbacks.secrets ?? [])] : [];
    if (options.callbacks && callbackSecrets.length === 0 && options.mock)
      callbackSecrets.push(randomBytes(32).toString('hex'));
    let listener: CallbackListener | undefined;
    // §3 step 5: the receiver of jobs, the provider, sends events back; a platform sends none.
    if (options.callbacks && interfaceSpec(scenario.interface).receiver === 'provider') {
      listener = new CallbackListener({ ...options.callbacks, secrets: callbackSecrets });
      await listener.start();
      cleanups.push(() => (listener as CallbackListener).close());
    }
    const base = options.mock
      ? await startMock(options, { secret, identity, callbackSecrets, callbacks: listener !== undefined }, cleanups)
      : (options.target as string);
    const url = endpointUrl(scenario.interface, base);
    const { ca, insecure } = options.client ?? {};
    const pool = new WirePool({ url: new URL(url), timeoutMs: options.timeoutMs, ca, insecure });
    cleanups.push(async () => pool.close());
    // The second Ctrl-C: the requests in flight fail at once (closed), and the run ends.
    const onAbort = () => pool.close();
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    cleanups.push(async () => options.abortSignal?.removeEventListener('abort', onAbort));

    // The connections are opened before the first arrival (no request is sent): the schedule starts on ready ones.
    await pool.warm(options.maxInFlight);
    const sender = requestMaker(options, { secret, identity, listener, metrics });
    options.onStart?.({ url, ...(listener ? { callbackUrl: listener.urlFor('…') } : {}) });
    const progress = watchProgress(options, metrics, schedule);
    // Every run ends: after its last phase and one request's time-out, what is still in flight fails (`timeout`).
    const deadline = setTimeout(
      () => pool.close('timeout'),
      schedule.durationMs + options.timeoutMs + LOAD_BOUNDS.runGraceMs,
    );
    cleanups.push(async () => clearTimeout(deadline));
    let unreachable: string | undefined;
    const outcome = await runEngine<LoadRequest>({
      pool,
      schedule,
      maxInFlight: options.maxInFlight,
      metrics,
      prepare: sender.prepare,
      judge: sender.judge,
      failed: (request, code) => {
        if (request.token !== undefined) listener?.answered(request.token, false);
        if (metrics.answered === 0 && UNREACHABLE.has(code)) unreachable = code;
        return unreachable !== undefined;
      },
      ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
    }).finally(progress.stop);
    if (outcome.stopped === 'unreachable') throw new UnreachableTarget(url, unreachable ?? 'connection');
    // Ctrl-C ends the wait for callbacks too: the jobs still awaited are counted as missing, in a run marked interrupted.
    if (listener) await listener.settle(outcome.stopped === 'interrupted' ? AbortSignal.abort() : options.stopSignal);
    return buildReport({
      scenario,
      schedule,
      target: url,
      mock: options.mock === true,
      startedAt,
      maxInFlight: options.maxInFlight,
      timeoutMs: options.timeoutMs,
      metrics,
      outcome,
      thresholds: options.thresholds,
      ...(listener ? { callbacks: listener.result() } : {}),
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** The reference receiver of the interface, in-process; its URL (the events URL, or the provider endpoint). */
async function startMock(
  options: LoadOptions,
  setup: { secret: string; identity: string; callbackSecrets: string[]; callbacks: boolean },
  cleanups: (() => Promise<unknown>)[],
): Promise<string> {
  if (interfaceSpec(options.scenario.interface).receiver === 'platform') {
    const mock = await startMockPlatform({ providerCode: setup.identity, secrets: [setup.secret], keepRecords: false });
    cleanups.push(() => mock.close());
    return mock.url;
  }
  // Without --callbacks the conversations' events go nowhere: a sender that drops them, not one that retries for 24 h.
  const dropEvents: EventSender = async () => ({ outcome: 'accepted', attempts: 1, interrupted: false });
  const mock = await startMockProvider({
    providerCode: MOCK_PROVIDER_CODE,
    sourceId: setup.identity,
    secrets: [setup.secret],
    callbackSecrets: setup.callbackSecrets.length > 0 ? setup.callbackSecrets : [randomBytes(32).toString('hex')],
    keepRecords: false,
    speed: setup.callbacks ? MOCK_CONVERSATION_SPEED : 1000,
    ...(setup.callbacks ? {} : { sendEvent: dropEvents }),
  });
  cleanups.push(() => mock.close());
  return mock.url;
}

/** Makes each request (a new document or a repeat, freshly signed) and judges each answer. */
function requestMaker(
  options: LoadOptions,
  setup: { secret: string; identity: string; listener: CallbackListener | undefined; metrics: LoadMetrics },
) {
  const { scenario } = options;
  const { listener, metrics } = setup;
  const callbackUrl = listener
    ? (token: string) => listener.urlFor(token)
    : options.callbackUrl !== undefined
      ? () => options.callbackUrl as string
      : undefined;
  const factory = new DocumentFactory({
    interface: scenario.interface,
    ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
    ...(callbackUrl ? { callbackUrl } : {}),
  });
  const pick = mixPicker(mixOf(scenario));
  const fixedLines = `${Headers.contentType}: application/json\r\n${interfaceSpec(scenario.interface).identityHeader}: ${setup.identity}\r\n`;
  // The documents accepted as new, the most recent LOAD_BOUNDS.repeatPool of them, and the share that repeats one.
  const repeats = new RepeatPool(LOAD_BOUNDS.repeatPool, scenario.repeatShare);

  const prepare = (): LoadRequest => {
    let body: string;
    let token: string | undefined;
    const entry = repeats.due();
    if (entry !== undefined) body = entry.body;
    else {
      const made = factory.make(pick(Math.random()));
      body = made.body;
      if (listener) {
        token = made.token;
        listener.sent(token);
      }
    }
    // §5.2–§5.5: signed as sent, with the second it is sent in (a repeat too: only its bytes are old).
    const timestamp = unixSeconds(Date.now());
    // §5.2: HMAC over the timestamp, a dot and the body's bytes: the text's UTF-8, as the request carries it.
    // The header lines after Host; the identity is a checked header value (no CR or LF: the command refuses them).
    const lines = `${fixedLines}${Headers.timestamp}: ${timestamp}\r\n${Headers.signature}: ${sign(setup.secret, timestamp, body)}\r\n`;
    return { lines, body, repeat: entry !== undefined, entry, token };
  };

  const judge = (request: LoadRequest, answer: WireAnswer): void => {
    const { status } = answer;
    if (status >= 200 && status < 300) {
      // §2.13 (B): a repeat is answered {ok: true, duplicate: true}; §2.2 (A): a repeat gets its first acknowledgment again.
      const { duplicate, providerJobId } = recogniseRepeat(scenario.interface, answer, request.entry);
      metrics.recordRecognition(request.repeat, duplicate ? 'duplicate' : 'new');
      if (!request.repeat && !duplicate) repeats.remember({ body: request.body, providerJobId });
      if (request.token !== undefined) listener?.answered(request.token, !duplicate);
      return;
    }
    if (request.repeat) metrics.repeatsNotAccepted += 1;
    if (request.token !== undefined) listener?.answered(request.token, false);
    if (status === 429) {
      // §7: the client retries after the number in Retry-After, so a 429 without one leaves it guessing.
      if (!isWellFormedRetryAfter(answer.headers[Headers.retryAfter])) metrics.counters.retry_after_missing += 1;
    } else if (isRejection(status)) {
      metrics.recordRejection(status, reasonOf(answer.body));
    } else if (classifyStatus(status) === 'redirect') {
      // Never followed, as by every sender of cai (src/http/retry.ts): the request was not delivered.
      metrics.recordRedirect(status, answer.headers.location);
    }
  };
  return { prepare, judge };
}

/** A rejection's reason: the `error` (or `code`) string of a JSON body, as the reference receivers answer; else none. */
function reasonOf(body: Buffer): string {
  try {
    const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    const reason = typeof json.error === 'string' ? json.error : typeof json.code === 'string' ? json.code : undefined;
    if (reason !== undefined && /^[\w.:-]{1,64}$/.test(reason)) return reason;
    return reason === undefined ? '(no code)' : '(unreadable code)';
  } catch {
    return '(no code)';
  }
}

function progressOf(metrics: LoadMetrics, schedule: Schedule, elapsedMs: number) {
  return {
    elapsedMs,
    plannedMs: schedule.durationMs,
    sent: metrics.sent,
    inFlight: metrics.sent - metrics.completed,
    dropped: metrics.dropped,
    statuses: metrics.statuses as ReadonlyMap<number, number>,
    failed: metrics.failed,
    p99Ms: metrics.latencyAll.total > 0 ? (metrics.latencyAll.percentile(99) as number) / 1000 : undefined,
  };
}

function watchProgress(options: LoadOptions, metrics: LoadMetrics, schedule: Schedule): { stop: () => void } {
  if (!options.onProgress) return { stop: () => {} };
  const started = performance.now();
  const report = options.onProgress;
  const timer = setInterval(() => report(progressOf(metrics, schedule, performance.now() - started)), 250);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
