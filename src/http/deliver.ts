/**
 * Delivery of one signed request with the retry policy of §7/§8. Every attempt is signed again with a fresh
 * X-CAI-Timestamp over the very same body bytes (§5.2, §5.5), so a retry after minutes is never stale and
 * the body (and with it the `event_id`) never changes between attempts.
 */
import type { Dispatcher } from 'undici';
import { CaiError, errorMessage, hintOf } from '../errors.js';
import { HeaderNames, Headers } from '../spec/constants.js';
import { interfaceOfHeaders } from '../spec/interfaces.js';
import { sign, unixSeconds } from '../signing/sign.js';
import { postOnce, type HttpResponse } from './client.js';
import { originOf } from './address.js';
import { isLoopbackUrl } from './loopback.js';
import { notAnEndpoint, notTheEndpoint } from './not-an-endpoint.js';
import {
  decideRetry,
  resolvePolicy,
  retryLoop,
  type AttemptOutcome,
  type RetryDecision,
  type RetryLoopOptions,
  type RetryPolicy,
} from './retry.js';

export interface DeliveryRequest {
  url: string;
  body: Uint8Array;
  /** The signing secret of this direction (§5.1). Never printed. */
  secret: string;
  /** Extra headers (X-CAI-Provider or X-CAI-Source, Content-Type); timestamp and signature are added per attempt. */
  headers: Record<string, string>;
}

export interface DeliveryError {
  code: string;
  message: string;
  hint?: string;
}

type AttemptDecision = 'accepted' | 'rejected' | 'retry' | 'give-up';

export interface AttemptRecord {
  /** 1-based. */
  attempt: number;
  startedAt: string;
  /** The X-CAI-Timestamp and X-CAI-Signature this attempt carried. */
  timestamp: string;
  signature: string;
  /** Exactly the headers sent (the signature is shown; the secret never is). */
  requestHeaders: Record<string, string>;
  status?: number;
  retryAfter?: string;
  contentType?: string;
  location?: string;
  latencyMs: number;
  error?: DeliveryError;
  decision: AttemptDecision;
  /** For `retry`: the wait before the next attempt, and why that long. */
  waitMs?: number;
  reason?: string;
}

export interface DeliveryResult {
  /** accepted: 2xx. rejected: a 4xx other than 429 (§7: do not retry). failed: nothing usable arrived. */
  outcome: 'accepted' | 'rejected' | 'failed';
  attempts: AttemptRecord[];
  /** The last HTTP response, when any arrived. */
  response?: HttpResponse;
  /** Why the delivery failed (outcome `failed`). */
  error?: DeliveryError;
  /** From the first attempt's start to the end. */
  elapsedMs: number;
  /** True when a stop or abort signal ended it before the policy did. */
  interrupted: boolean;
}

export interface DeliverOptions extends Pick<RetryLoopOptions<unknown>, 'clock' | 'sleep' | 'random'> {
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  /** Aborts everything, the request in flight included. */
  signal?: AbortSignal;
  /** Stops before the next attempt and lets the one in flight finish (a clean Ctrl-C). */
  stopSignal?: AbortSignal;
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Send the X-CAI-Timestamp / X-CAI-Signature found in `headers` unchanged instead of signing (replay of a capture). */
  keepSignature?: boolean;
  /**
   * Judge the first answer (default true): a 404, 405, 501 or an HTML page says the URL is not an endpoint of the
   * interface (src/http/not-an-endpoint.ts), and the delivery fails at once (`not_an_endpoint`) instead of being
   * retried for --retry-for, or taken for a refusal of the document.
   */
  endpointCheck?: boolean;
}

/** The signing headers, lowercased, and their canonical spelling. */
const SIGNING_HEADERS = new Map<string, string>([
  [Headers.timestamp, HeaderNames.timestamp],
  [Headers.signature, HeaderNames.signature],
]);

export async function deliver(request: DeliveryRequest, options: DeliverOptions = {}): Promise<DeliveryResult> {
  const policy = resolvePolicy(options.retry);
  const clock = options.clock ?? Date.now;
  const started = clock();
  const attempts: AttemptRecord[] = [];
  let response: HttpResponse | undefined;
  const finish = (outcome: DeliveryResult['outcome'], error?: DeliveryError, interrupted = false): DeliveryResult => {
    const result: DeliveryResult = { outcome, attempts, elapsedMs: clock() - started, interrupted };
    if (response) result.response = response;
    if (error) result.error = error;
    return result;
  };
  const base = baseHeaders(request.headers, options.keepSignature === true);
  // The first answer, whichever attempt brings it, says whether the URL is an endpoint at all.
  let answered = options.endpointCheck === false;
  let wrongEndpoint: string | undefined;

  const end = await retryLoop<{ record: AttemptRecord; outcome?: AttemptOutcome }>({
    policy,
    timeoutMs: options.timeoutMs,
    stopSignals: [options.signal, options.stopSignal],
    clock,
    random: options.random,
    sleep: options.sleep,
    attempt: async (number, timeoutMs) => {
      const attemptStart = clock();
      const headers = attemptHeaders(base, request, options.keepSignature === true, attemptStart);
      const record = newAttemptRecord(number, attemptStart, headers);
      try {
        response = await postOnce({
          url: request.url,
          headers,
          body: request.body,
          timeoutMs,
          dispatcher: options.dispatcher,
          signal: options.signal,
        });
        addResponseFacts(record, response);
        if (!answered) {
          answered = true;
          wrongEndpoint = notTheEndpoint(response);
        }
        return {
          record,
          outcome: { kind: 'response', status: response.status, retryAfter: response.headers[Headers.retryAfter] },
        };
      } catch (error) {
        const failure = asDeliveryError(error);
        record.error = failure;
        record.latencyMs = clock() - attemptStart;
        if (failure.code === 'aborted') {
          record.reason = 'interrupted';
          attempts.push(record);
          options.onAttempt?.(record);
          return { record };
        }
        return {
          record,
          outcome: {
            kind: 'error',
            code: failure.code,
            ...(isRefused(error) && isLoopbackUrl(request.url) ? { nothingListens: true } : {}),
          },
        };
      }
    },
    outcomeOf: (attempt) => attempt.outcome,
    // Not the endpoint: every other attempt would get the same answer.
    decide: (input) =>
      wrongEndpoint === undefined
        ? decideRetry(input)
        : { retry: false, giveUp: 'not-retryable', reason: `not an endpoint: ${wrongEndpoint}` },
    onDecision: ({ record, outcome }, decision) => {
      record.reason = decision.reason;
      record.decision = attemptDecisionOf(outcome, decision);
      if (decision.retry) record.waitMs = decision.delayMs;
      attempts.push(record);
      options.onAttempt?.(record);
    },
  });

  const { last, decision } = end;
  if (end.stopped || !last || !decision)
    return finish('failed', interruptedError(end.attempts, last !== undefined && last.outcome === undefined), true);
  if (wrongEndpoint !== undefined)
    return finish('failed', { code: 'not_an_endpoint', ...notAnEndpointFor(request, wrongEndpoint) });
  if (last.record.decision === 'accepted') return finish('accepted');
  if (last.record.decision === 'rejected') return finish('rejected');
  if (!decision.retry && decision.giveUp === 'nothing-listens') return finish('failed', nothingListens(request.url));
  return finish('failed', failureOf(last.record, decision.retry ? undefined : decision.giveUp, decision.reason));
}

/** An attempt's record before its answer: what it sent, and 'give-up' until the policy decides otherwise. */
function newAttemptRecord(attempt: number, startMs: number, headers: Record<string, string>): AttemptRecord {
  return {
    attempt,
    startedAt: isoTime(startMs),
    timestamp: headers[HeaderNames.timestamp] ?? '',
    signature: headers[HeaderNames.signature] ?? '',
    requestHeaders: headers,
    latencyMs: 0,
    decision: 'give-up',
  };
}

/** The attempt's label: retry; accepted (2xx); rejected (a status of 400 or more, not retried: §7); else give-up. */
function attemptDecisionOf(outcome: AttemptOutcome | undefined, decision: RetryDecision): AttemptDecision {
  if (decision.retry) return 'retry';
  if (outcome?.kind !== 'response') return 'give-up';
  if (decision.reason === 'accepted') return 'accepted';
  if (decision.giveUp === 'not-retryable' && outcome.status >= 400) return 'rejected';
  return 'give-up';
}

/**
 * The headers every attempt of a request carries before signing, in their order: the caller's (without a timestamp
 * or signature of theirs unless kept, those renamed to their canonical spelling when kept) and a Content-Type when
 * they gave none. Worked out once per delivery, not cached per headers object: `deliver` is public, and a caller may
 * change an object between two deliveries.
 */
function baseHeaders(given: Record<string, string>, keepSignature: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  let hasContentType = false;
  for (const name in given) {
    const value = given[name] as string;
    const lower = name.toLowerCase();
    const signing = SIGNING_HEADERS.get(lower);
    if (signing !== undefined && !keepSignature) continue;
    if (lower === Headers.contentType) hasContentType = true;
    headers[signing ?? name] = value;
  }
  if (!hasContentType) headers['Content-Type'] = 'application/json';
  return headers;
}

/** Each attempt's own copy of the base headers, with a fresh timestamp and signature unless kept. */
function attemptHeaders(
  base: Record<string, string>,
  request: DeliveryRequest,
  keepSignature: boolean,
  nowMs: number,
): Record<string, string> {
  // A key-by-key copy: an object spread followed by two more keys costs about 25 times as much in V8.
  const headers: Record<string, string> = {};
  for (const name in base) headers[name] = base[name] as string;
  if (!keepSignature) {
    // §5.2–§5.4: a fresh timestamp for every attempt, signed with the body bytes exactly as sent.
    const timestamp = unixSeconds(nowMs);
    headers[HeaderNames.timestamp] = timestamp;
    headers[HeaderNames.signature] = sign(request.secret, timestamp, request.body);
  }
  return headers;
}

/** `new Date(ms).toISOString()`, reused for attempts that start in the same millisecond. */
let lastIsoMs = Number.NaN;
let lastIso = '';
function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIsoMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function addResponseFacts(record: AttemptRecord, response: HttpResponse): void {
  record.status = response.status;
  record.latencyMs = Math.round(response.latencyMs * 10) / 10;
  const retryAfter = response.headers[Headers.retryAfter];
  if (retryAfter !== undefined) record.retryAfter = retryAfter;
  const contentType = response.headers[Headers.contentType];
  if (contentType !== undefined) record.contentType = contentType;
  const location = response.headers.location;
  if (location !== undefined) record.location = location;
}

function failureOf(record: AttemptRecord, giveUp: string | undefined, reason: string): DeliveryError {
  if (record.status !== undefined && record.status >= 300 && record.status < 400) {
    return {
      code: 'redirect',
      message: `the receiver answered ${record.status} redirecting to ${record.location ?? '(no Location header)'}; redirects are not followed`,
      hint: 'send to the final URL directly: a signed POST must not be redirected',
    };
  }
  if (giveUp === 'not-retryable' && record.error) return record.error;
  const last = record.status !== undefined ? `status ${record.status}` : (record.error?.message ?? 'no response');
  const attempts = record.attempt === 1 ? '1 attempt:' : `${record.attempt} attempts, the last:`;
  return {
    code: 'retries_exhausted',
    message: `delivery failed after ${attempts} ${last}; ${reason}`,
    hint: hintOf('retries_exhausted', { giveUp }),
  };
}

/** The words of a URL that is not the endpoint, for the interface the request's identity header names (§4.1, §4.2). */
function notAnEndpointFor(request: DeliveryRequest, wrong: string): { message: string; hint: string } {
  const spec = interfaceOfHeaders(Object.keys(request.headers).map((name) => name.toLowerCase()));
  const sent = spec === undefined ? 'a signed request' : `a signed ${spec.documentName}`;
  return notAnEndpoint(spec?.id, request.url, wrong, sent);
}

/** A refused connection on this machine: the receiver is not running, or listens on another port. */
function nothingListens(url: string): DeliveryError {
  return {
    code: 'nothing_listens',
    message: `nothing listens at ${originOf(url)}: the connection was refused (ECONNREFUSED)`,
    hint: hintOf('nothing_listens'),
  };
}

/** ECONNREFUSED anywhere in the error's chain of causes. */
function isRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth += 1) {
    if (typeof current === 'object' && (current as { code?: unknown }).code === 'ECONNREFUSED') return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isRefused(inner))) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/**
 * Ctrl-C's verdict: before an attempt (nothing more was sent), or during one (`inFlight`): its request went out, or
 * part of it, and its answer was not awaited, so the receiver may have the document. A repeat of the same document is
 * harmless (§6.1: a repeated event_id is ignored); a freshly generated one is another document.
 */
function interruptedError(attempts: number, inFlight: boolean): DeliveryError {
  if (inFlight)
    return {
      code: 'interrupted',
      message: `interrupted during attempt ${attempts}, before its answer: the receiver may have the request`,
      hint: 'send the same document again to be sure: a repeated event_id is ignored (§6.1)',
    };
  const when = attempts === 0 ? 'before the first attempt' : `after ${attempts} attempt(s), before the next one`;
  return { code: 'interrupted', message: `interrupted ${when}`, hint: 'run the command again to send it' };
}

function asDeliveryError(error: unknown): DeliveryError {
  if (error instanceof CaiError) return { code: error.code, message: error.message, hint: error.hint };
  return { code: 'connection', message: errorMessage(error) };
}
