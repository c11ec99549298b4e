import type { Dispatcher } from 'undici';
import { createDispatcher, postOnce } from '../http/client.js';
import { deliver, type AttemptRecord } from '../http/deliver.js';
import { backoffMs, resolvePolicy, type RetryPolicy } from '../http/retry.js';
import { sleep } from '../http/server.js';
import { sign } from '../signing/sign.js';
import { HeaderNames, Headers } from '../spec/constants.js';
import { parseRetryAfter } from '../spec/retry-after.js';
import { classifyStatus } from '../spec/statuses.js';

/** What the conversation simulator needs to know about one delivered event. */
export interface EventDelivery {
  outcome: 'accepted' | 'rejected' | 'failed';
  status?: number;
  attempts: number;
  error?: string;
  interrupted: boolean;
}

export interface EventRequest {
  url: string;
  body: Uint8Array;
  secret: string;
  headers: Record<string, string>;
}

/** A failed attempt that will be retried: what went wrong and how long until the next one. */
export interface EventRetry {
  attempt: number;
  reason: string;
  waitMs: number;
}

/** The one call through which the provider mock sends an Interface B event. */
export type EventSender = (request: EventRequest, stop: AbortSignal, onRetry?: (retry: EventRetry) => void) => Promise<EventDelivery>;

export interface EventSenderOptions {
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
  tls?: { ca?: Buffer; insecure?: boolean };
  timeoutMs?: number;
  /** The provider mock's faults: any of SENDER_FAULTS gives the broken sender instead. */
  faults?: ReadonlySet<string>;
}

/** The provider faults that bend the event sender (PROVIDER_FAULTS, faults.ts). */
const SENDER_FAULTS = ['callback-no-retry-on-5xx', 'callback-no-retry-on-429', 'callback-ignores-retry-after', 'callback-retries-400', 'callback-retry-stale-signature'];

/**
 * The toolkit's own sender (`deliver`): each attempt freshly signed over the same bytes (§5), retried per
 * §7/§8 (5xx and network errors with backoff, 429 after Retry-After, other 4xx not retried).
 */
export function createEventSender(options: EventSenderOptions = {}): EventSender {
  const dispatcher = options.dispatcher ?? (options.tls?.ca || options.tls?.insecure ? createDispatcher(options.tls) : undefined);
  if (SENDER_FAULTS.some((fault) => options.faults?.has(fault))) return brokenSender(options.faults ?? new Set(), { ...options, dispatcher });
  return async (request, stop, onRetry) => {
    const onAttempt = (attempt: AttemptRecord) => {
      if (attempt.decision !== 'retry') return;
      const reason = attempt.error?.message ?? (attempt.status !== undefined ? `status ${attempt.status}` : 'no answer');
      onRetry?.({ attempt: attempt.attempt, reason, waitMs: attempt.waitMs ?? 0 });
    };
    const result = await deliver(request, { retry: options.retry, dispatcher, timeoutMs: options.timeoutMs, stopSignal: stop, onAttempt });
    const last = result.attempts.at(-1);
    return {
      outcome: result.outcome,
      status: result.response?.status,
      attempts: result.attempts.length,
      error: result.error?.message ?? (result.outcome === 'rejected' && last?.status !== undefined ? `rejected with ${last.status}` : undefined),
      interrupted: result.interrupted,
    };
  };
}

/** `callback-retries-400` gives up after this many attempts (a broken sender, not an endless one). */
const MAX_400_ATTEMPTS = 3;

/**
 * A sender with the sender faults: the same attempt loop as `deliver` (a fresh signature per attempt, backoff from
 * the same policy), with one decision of §7's client action bent per fault, or a retry's signing
 * (`callback-retry-stale-signature`: the event re-serialised, the first attempt's headers kept).
 */
function brokenSender(faults: ReadonlySet<string>, options: EventSenderOptions): EventSender {
  const policy = resolvePolicy(options.retry);
  return async (request, stop, onRetry) => {
    const started = Date.now();
    let firstHeaders: Record<string, string> | undefined;
    for (let attempt = 1; ; attempt += 1) {
      if (stop.aborted) return { outcome: 'failed', attempts: attempt - 1, error: 'interrupted', interrupted: true };
      const stale = attempt > 1 && faults.has('callback-retry-stale-signature') && firstHeaders !== undefined;
      const headers = stale && firstHeaders ? firstHeaders : signedHeaders(request);
      firstHeaders ??= headers;
      const body = stale ? Buffer.from(JSON.stringify(JSON.parse(Buffer.from(request.body).toString('utf8')), null, 2)) : request.body;
      let status: number | undefined;
      let retryAfter: string | undefined;
      try {
        const response = await postOnce({ url: request.url, headers, body, dispatcher: options.dispatcher, timeoutMs: options.timeoutMs });
        status = response.status;
        retryAfter = response.headers[Headers.retryAfter];
      } catch {
        status = undefined;
      }
      const kind = status === undefined ? 'retryable' : classifyStatus(status);
      if (kind === 'accepted') return { outcome: 'accepted', status, attempts: attempt, interrupted: false };
      const waitMs = waitBefore(kind, { status, retryAfter, attempt, faults, backoff: backoffMs(attempt, policy) });
      if (waitMs === undefined || Date.now() - started + waitMs > policy.retryForMs) {
        return { outcome: kind === 'rejected' ? 'rejected' : 'failed', status, attempts: attempt, error: `gave up after status ${status ?? 'none'}`, interrupted: false };
      }
      onRetry?.({ attempt, reason: status === undefined ? 'no answer' : `status ${status}`, waitMs });
      await sleep(waitMs, stop);
    }
  };
}

/** The wait before the next attempt, or undefined to give up: §7's client action, as the faults bend it. */
function waitBefore(kind: string, facts: { status?: number; retryAfter?: string; attempt: number; faults: ReadonlySet<string>; backoff: number }): number | undefined {
  const { faults, backoff } = facts;
  if (kind === 'rate-limited') {
    if (faults.has('callback-no-retry-on-429')) return undefined;
    return faults.has('callback-ignores-retry-after') ? backoff : (parseRetryAfter(facts.retryAfter, Date.now()) ?? backoff);
  }
  if (kind === 'retryable') return facts.status !== undefined && faults.has('callback-no-retry-on-5xx') ? undefined : backoff;
  if (facts.status === 400 && faults.has('callback-retries-400') && facts.attempt < MAX_400_ATTEMPTS) return backoff;
  return undefined;
}

/** §5.2–§5.4: a fresh timestamp, signed with the body bytes exactly as sent. */
function signedHeaders(request: EventRequest): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return { ...request.headers, [HeaderNames.timestamp]: timestamp, [HeaderNames.signature]: sign(request.secret, timestamp, request.body) };
}
