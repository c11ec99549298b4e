/**
 * What checks judge. A receiver check's evidence is exchanges: requests cai sent and what the target answered. A
 * sender check's evidence is attempts: requests cai received, exactly as they arrived, with cai's answer; attempts
 * are grouped into deliveries by the identity of their document (its `event_id`, §2.2, §2.4, §6.1), so a sender
 * may send one document or many, one after the other or at once, and each is judged on its own.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Headers, type InterfaceId } from '../spec/constants.js';
import { eventIdOf, isObject, jsonValueOf } from '../spec/json.js';
import type { Expectation } from '../spec/model/receiver.js';
import type { Scenario, ScriptedAnswer } from './listen/scenarios.js';
import type { SentRequest } from './probe/recipe.js';
import type { BodyRecord, ExchangeRecord } from './types.js';

// --- Exchanges (cai sent) --------------------------------------------------------------------------------------

export interface Exchange {
  request: SentRequest;
  /** Undefined when no response came (network error); `error` then says why. */
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The body went over NETWORK_CAPS.responseBodyBytes (src/bounds.ts): `body` is its start, the connection was closed. */
  bodyTruncated?: boolean;
  latencyMs: number;
  /** cai's wall clock (ms) when the answer (or the error) came: the receiver read the request before this. */
  answeredAtMs: number;
  error?: { code: string; message: string };
  /** How many 429 answers were honoured (waited for and re-sent) before this answer. */
  rateLimitedRetries: number;
  /** The 429s honoured before this answer, with the Retry-After each carried (absent when it had none). */
  honoured429?: { retryAfter?: string }[];
  /** What the model of the receiver allows for this request in the state it was sent in (src/spec/model). */
  expected?: Expectation;
}

/** Bodies longer than this are cut in reports (the oversize checks send more than a mebibyte). */
export const BODY_TEXT_LIMIT = 16 * 1024;
const HEX_PREFIX_BYTES = 32;

/** A body as a report carries it: its text when it is UTF-8 (cut after `limit`), else its size, digest and first bytes. */
export function recordBody(body: Buffer, limit = BODY_TEXT_LIMIT): BodyRecord {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    const text = decoder.decode(body);
    return text.length > limit ? { bytes: body.length, text: text.slice(0, limit), truncated: true } : { bytes: body.length, text };
  } catch {
    return { bytes: body.length, sha256: createHash('sha256').update(body).digest('hex'), hexPrefix: body.subarray(0, HEX_PREFIX_BYTES).toString('hex') };
  }
}

/** An exchange as plain report data (no Buffers, no recipe). */
export function recordExchange(exchange: Exchange): ExchangeRecord {
  return {
    request: { method: 'POST', url: exchange.request.url, headers: { ...exchange.request.headers }, body: recordBody(exchange.request.body) },
    ...(exchange.status !== undefined
      ? { response: { status: exchange.status, headers: { ...exchange.headers }, body: recordBody(exchange.body), ...(exchange.bodyTruncated ? { bodyTruncated: true } : {}) } }
      : {}),
    ...(exchange.error ? { error: { ...exchange.error } } : {}),
    latencyMs: Math.round(exchange.latencyMs),
  };
}

const EXCERPT_LENGTH = 160;

/** `401 {"error":"…"}`, `202 (empty body)`, or `no response (timeout: …)`. */
export function describeAnswer(exchange: Pick<Exchange, 'status' | 'body' | 'error'>): string {
  if (exchange.status === undefined) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? 'unknown'})`;
  const text = exchange.body.toString('utf8').replace(/\s+/g, ' ').trim();
  const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  return excerpt === '' ? `${exchange.status} (empty body)` : `${exchange.status} ${excerpt}`;
}

// --- Attempts (cai received) -----------------------------------------------------------------------------------

/** A request as the listener read it. */
export interface Arrival {
  /** Wall clock (ms since the epoch) when its headers arrived: the §5.5 window is judged at this moment. */
  arrivedAt: number;
  /** Monotonic clock (ms) when its headers arrived. */
  arrivedMono: number;
  method: string;
  /** As received: path and query. */
  path: string;
  httpVersion: string;
  /** Names lowercased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** As received, in order (for the saved request). */
  rawHeaders: [string, string][];
  /** The raw body, exactly as received (§5.2); cut short when `cut`. */
  body: Buffer;
  /** Bytes received in all. */
  bodyBytes: number;
  /** Longer than cai keeps (MAX_KEPT_BODY_BYTES): only its size is judged. */
  cut: boolean;
}

/** The Retry-After cai sent with a 429: the header as sent, and for an HTTP-date the moment it names (monotonic ms). */
export interface SentRetryAfter {
  header: string;
  form: 'seconds' | 'date';
  /** The seconds asked for (a date: at least this many ahead, on a whole second). */
  seconds: number;
  dateMono?: number;
}

export interface Attempt extends Arrival {
  /** The stage (a scenario of a sender run, a job of the callback listener) it came to. */
  stage: string;
  /** 1-based, in order of arrival within the stage. */
  number: number;
  /** The identity of its document: what groups it with the other attempts of one delivery. */
  key: string;
  /** When cai's answer went out, or the connection was cut (monotonic ms). */
  answeredMono?: number;
  answer: ScriptedAnswer;
  /** The Retry-After sent with the answer, when it was a 429. */
  retryAfter?: SentRetryAfter;
  /** After the stage was over (a retry or repeat that came later than cai waited). */
  late: boolean;
}

/**
 * The identity of an attempt's document: its `event_id` when the body is a JSON object with a string one; else
 * its bytes (a retry of the same unreadable body is still the same delivery); a body too long to keep is its own.
 */
export function deliveryKeyOf(arrival: Pick<Arrival, 'body' | 'cut'>, number: number): string {
  if (arrival.cut) return `cut:${number}`;
  const id = eventIdOf(arrival.body);
  return id !== undefined ? `id:${id}` : `bytes:${createHash('sha256').update(arrival.body).digest('hex')}`;
}

/**
 * One delivery: a document and its retries, in order of arrival. `renamed` when its attempts carry more than one
 * event_id: a document abandoned after a retryable answer and sent again under a new event_id (deliveriesOf).
 */
export interface Delivery {
  key: string;
  attempts: Attempt[];
  renamed: boolean;
}

export interface TriggerOutcome {
  exitCode?: number;
  signal?: string;
  /** cai stopped it at the end of the scenario (it was still running). */
  stoppedByCai: boolean;
  /** It could not be started at all. */
  error?: string;
  /** The end of what it printed (stdout and stderr together), secrets removed. */
  output: string;
}

/** What one stage recorded: a scenario of a sender run, or a job whose events the callback listener received. */
export interface StageRecord {
  scenario: Scenario;
  /** Distinguishes two stages of one scenario (two jobs of the callback listener). */
  id: string;
  /** CAI_TARGET_URL (a scenario), or the job's callback_url. */
  targetUrl: string;
  /** The path the attempts must be posted to. */
  expectedPath: string;
  startedAt: number;
  startedMono: number;
  endedMono?: number;
  attempts: Attempt[];
  trigger?: TriggerOutcome;
  /** Cut short by Ctrl-C: what it got is no verdict on the sender. */
  interrupted?: boolean;
  /**
   * The longest cai's own event loop was held up while the stage ran (ms): an arrival is timed when the loop gets
   * to it, so a held-up loop draws the measured waits out. The timing checks do not judge beyond a limit.
   */
  maxLagMs?: number;
}

/** Everything the sender checks judge. */
export interface SenderEvidence {
  /** The interface of the documents sent (B: events, also an Interface A provider's callbacks; A: jobs). */
  interface: InterfaceId;
  /** B: the provider code expected in X-CAI-Provider. A: the platform id expected in X-CAI-Source. */
  identity: string;
  /** The secrets the signatures must verify with (any of them: a rotation overlap, §5.9). */
  secrets: readonly string[];
  waitMs: number;
  observeMs: number;
  records: StageRecord[];
}

/** Every attempt of every stage, late ones included. */
export function allAttempts(evidence: Pick<SenderEvidence, 'records'>): Attempt[] {
  return evidence.records.flatMap((record) => record.attempts);
}

/** The stages that ran to their end (not interrupted): only they are judged on what did not come. */
export function completeRecords(evidence: Pick<SenderEvidence, 'records'>): StageRecord[] {
  return evidence.records.filter((record) => !record.interrupted);
}

/** `retry-5xx #3`, `retry-5xx #3 (late)`. */
export function label(attempt: Attempt): string {
  return `${attempt.stage} #${attempt.number}${attempt.late ? ' (late)' : ''}`;
}

/** The body as a JSON value, or undefined when it is not JSON (or was cut). */
export function documentOf(attempt: Pick<Attempt, 'body' | 'cut'>): unknown {
  return attempt.cut ? undefined : jsonValueOf(attempt.body);
}

/** The document's event_id (a job's or an event's), when it has a string one. */
export function attemptEventId(attempt: Pick<Attempt, 'body' | 'cut'>): string | undefined {
  return attempt.cut ? undefined : eventIdOf(attempt.body);
}

export function timestampOf(attempt: Pick<Attempt, 'headers'>): string | undefined {
  return attempt.headers[Headers.timestamp];
}

/** The document without its event_id: what a retry under another event_id still has in common with the first. */
export function withoutEventId(doc: unknown): unknown {
  if (!isObject(doc)) return doc;
  const { event_id: _ignored, ...rest } = doc;
  return rest;
}

/** The wait before each retry: from cai's answer (or the cut connection) to the next attempt's arrival, in ms. */
export function waitsOf(attempts: readonly Attempt[]): number[] {
  const waits: number[] = [];
  for (let index = 1; index < attempts.length; index += 1) {
    const previous = attempts[index - 1] as Attempt;
    const current = attempts[index] as Attempt;
    waits.push(current.arrivedMono - (previous.answeredMono ?? previous.arrivedMono));
  }
  return waits;
}

/** `850 ms`, `1.25 s`. */
export function ms(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** Whether an answer asks the sender to try again (§7: 429 and 5xx; a cut connection, §8). */
export function isRetryable(answer: ScriptedAnswer): boolean {
  return answer.kind === 'reset' || (answer.kind === 'error' && (answer.status === 429 || answer.status >= 500));
}

/**
 * The deliveries of a stage. Attempts of one document identity form one delivery. A delivery abandoned after a
 * retryable answer (no attempt of its own came after it) whose document comes back under a new event_id, and
 * nothing else changed, is the same delivery sent again with the wrong identity: the two are one delivery,
 * `renamed`, so that the retry is judged as a retry (and its new event_id as the fault it is). A sender that
 * sends two documents alike but for their event_id, and retries each under its own, abandons neither.
 */
export function deliveriesOf(record: Pick<StageRecord, 'attempts'>): Delivery[] {
  const byKey = new Map<string, Attempt[]>();
  for (const attempt of record.attempts) byKey.set(attempt.key, [...(byKey.get(attempt.key) ?? []), attempt]);
  const groups = [...byKey.entries()].map(([key, attempts]) => ({ key, attempts }));
  const chainedInto = new Map<string, string>();
  for (const [index, later] of groups.entries()) {
    const first = later.attempts[0] as Attempt;
    const laterDoc = documentOf(first);
    if (laterDoc === undefined || attemptEventId(first) === undefined) continue;
    const earlier = groups.slice(0, index).find((group) => {
      if (chainedInto.has(group.key)) return false;
      const last = group.attempts.at(-1) as Attempt;
      return (
        isRetryable(last.answer) &&
        last.answeredMono !== undefined &&
        last.answeredMono <= first.arrivedMono &&
        attemptEventId(last) !== undefined &&
        attemptEventId(last) !== attemptEventId(first) &&
        isDeepStrictEqual(withoutEventId(documentOf(last)), withoutEventId(laterDoc))
      );
    });
    if (earlier) chainedInto.set(earlier.key, later.key);
  }
  const heads = groups.filter((group) => ![...chainedInto.values()].includes(group.key));
  return heads.map((head) => {
    const attempts = [...head.attempts];
    let next = chainedInto.get(head.key);
    while (next !== undefined) {
      attempts.push(...(byKey.get(next) ?? []));
      next = chainedInto.get(next);
    }
    return { key: head.key, attempts, renamed: attempts.length > head.attempts.length };
  });
}
