import type { Dispatcher } from 'undici';
import { createDispatcher, postOnce } from '../http/client.js';
import { deliver, type AttemptRecord } from '../http/deliver.js';
import {
  decideRetry,
  resolvePolicy,
  retryLoop,
  type DecisionInput,
  type RetryDecision,
  type RetryPolicy,
} from '../http/retry.js';
import { sign } from '../signing/sign.js';
import { HeaderNames, Headers } from '../spec/constants.js';
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
  /** `callback-job-timestamp`: the job's X-CAI-Timestamp, signed on every attempt instead of the time of sending. */
  jobTimestamp?: string;
}

/** A failed attempt that will be retried: what went wrong and how long until the next one. */
export interface EventRetry {
  attempt: number;
  reason: string;
  waitMs: number;
}

/** The one call through which the provider mock sends an Interface B event. */
export type EventSender = (
  request: EventRequest,
  stop: AbortSignal,
  onRetry?: (retry: EventRetry) => void,
) => Promise<EventDelivery>;

export interface EventSenderOptions {
  retry?: Partial<RetryPolicy>;
  dispatcher?: Dispatcher;
  tls?: { ca?: Buffer; insecure?: boolean };
  timeoutMs?: number;
  /** The provider mock's faults: any of SENDER_FAULTS gives the broken sender instead. */
  faults?: ReadonlySet<string>;
}

/** The provider faults that bend the event sender (PROVIDER_FAULTS, faults.ts). */
const SENDER_FAULTS = [
  'callback-no-retry-on-5xx',
  'callback-no-retry-on-429',
  'callback-ignores-retry-after',
  'callback-retries-400',
  'callback-retry-stale-signature',
  'callback-job-timestamp',
];

/**
 * The toolkit's own sender (`deliver`): each attempt freshly signed over the same bytes (§5), retried per
 * §7/§8 (5xx and network errors with backoff, 429 after Retry-After, other 4xx not retried).
 */
export function createEventSender(options: EventSenderOptions = {}): EventSender {
  const dispatcher =
    options.dispatcher ?? (options.tls?.ca || options.tls?.insecure ? createDispatcher(options.tls) : undefined);
  if (SENDER_FAULTS.some((fault) => options.faults?.has(fault)))
    return brokenSender(options.faults ?? new Set(), { ...options, dispatcher });
  return async (request, stop, onRetry) => {
    const onAttempt = (attempt: AttemptRecord) => {
      if (attempt.decision !== 'retry') return;
      const reason =
        attempt.error?.message ?? (attempt.status !== undefined ? `status ${attempt.status}` : 'no answer');
      onRetry?.({ attempt: attempt.attempt, reason, waitMs: attempt.waitMs ?? 0 });
    };
    const result = await deliver(request, {
      retry: options.retry,
      dispatcher,
      timeoutMs: options.timeoutMs,
      stopSignal: stop,
      onAttempt,
    });
    const last = result.attempts.at(-1);
    return {
      outcome: result.outcome,
      status: result.response?.status,
      attempts: result.attempts.length,
      error:
        result.error?.message ??
        (result.outcome === 'rejected' && last?.status !== undefined ? `rejected with ${last.status}` : undefined),
      interrupted: result.interrupted,
    };
  };
}

/** `callback-retries-400` gives up after this many attempts (a broken sender, not an endless one). */
const MAX_400_ATTEMPTS = 3;

/**
 * A sender with the sender faults: the same attempt loop as `deliver` (retryLoop: a fresh signature per attempt,
 * the same policy, floor and budget), with one decision of §7's client action bent per fault, or a retry's signing
 * (`callback-retry-stale-signature`: the event re-serialised, the first attempt's headers kept).
 */
function brokenSender(faults: ReadonlySet<string>, options: EventSenderOptions): EventSender {
  const policy = resolvePolicy(options.retry);
  return async (request, stop, onRetry) => {
    let firstHeaders: Record<string, string> | undefined;
    const end = await retryLoop<{ status?: number; retryAfter?: string }>({
      policy,
      timeoutMs: options.timeoutMs,
      stopSignals: [stop],
      attempt: async (attempt, timeoutMs) => {
        const stale = attempt > 1 && faults.has('callback-retry-stale-signature') && firstHeaders !== undefined;
        const headers =
          stale && firstHeaders
            ? firstHeaders
            : signedHeaders(request, faults.has('callback-job-timestamp') ? request.jobTimestamp : undefined);
        firstHeaders ??= headers;
        const body = stale
          ? Buffer.from(JSON.stringify(JSON.parse(Buffer.from(request.body).toString('utf8')), null, 2))
          : request.body;
        try {
          const response = await postOnce({
            url: request.url,
            headers,
            body,
            dispatcher: options.dispatcher,
            timeoutMs,
          });
          return { status: response.status, retryAfter: response.headers[Headers.retryAfter] };
        } catch {
          return {};
        }
      },
      outcomeOf: (answer) =>
        answer.status === undefined
          ? { kind: 'error', code: 'connection' }
          : { kind: 'response', status: answer.status, retryAfter: answer.retryAfter },
      decide: (input) => bentDecision(input, faults),
      onDecision: (answer, decision, attempt) => {
        if (decision.retry)
          onRetry?.({
            attempt,
            reason: answer.status === undefined ? 'no answer' : `status ${answer.status}`,
            waitMs: decision.delayMs,
          });
      },
    });
    const status = end.last?.status;
    if (end.stopped) return { outcome: 'failed', attempts: end.attempts, error: 'interrupted', interrupted: true };
    if (status !== undefined && classifyStatus(status) === 'accepted')
      return { outcome: 'accepted', status, attempts: end.attempts, interrupted: false };
    const rejected = status !== undefined && classifyStatus(status) === 'rejected';
    return {
      outcome: rejected ? 'rejected' : 'failed',
      status,
      attempts: end.attempts,
      error: `gave up after status ${status ?? 'none'}`,
      interrupted: false,
    };
  };
}

/** §7's client action, as the faults bend it: the standard decision, or one made as if the answer were another. */
function bentDecision(input: DecisionInput, faults: ReadonlySet<string>): RetryDecision {
  const { outcome } = input;
  if (outcome.kind !== 'response') return decideRetry(input);
  const kind = classifyStatus(outcome.status);
  const giveUp = (reason: string): RetryDecision => ({ retry: false, giveUp: 'not-retryable', reason });
  // A 5xx without Retry-After: the plain backoff.
  const asBackoff = () => decideRetry({ ...input, outcome: { kind: 'response', status: 503 } });
  if (kind === 'rate-limited' && faults.has('callback-no-retry-on-429'))
    return giveUp('429 not retried (callback-no-retry-on-429)');
  if (kind === 'rate-limited' && faults.has('callback-ignores-retry-after')) return asBackoff();
  if (kind === 'retryable' && faults.has('callback-no-retry-on-5xx'))
    return giveUp('5xx not retried (callback-no-retry-on-5xx)');
  if (outcome.status === 400 && faults.has('callback-retries-400') && input.attempts < MAX_400_ATTEMPTS)
    return asBackoff();
  return decideRetry(input);
}

/** §5.2–§5.4: a fresh timestamp (or, broken, the one given), signed with the body bytes exactly as sent. */
function signedHeaders(request: EventRequest, fixedTimestamp?: string): Record<string, string> {
  const timestamp = fixedTimestamp ?? String(Math.floor(Date.now() / 1000));
  return {
    ...request.headers,
    [HeaderNames.timestamp]: timestamp,
    [HeaderNames.signature]: sign(request.secret, timestamp, request.body),
  };
}
