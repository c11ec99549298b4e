/**
 * What checks judge. A receiver check's evidence is exchanges: requests cai sent and what the target answered. A
 * sender check's evidence is attempts: requests cai received, exactly as they arrived, with cai's answer; attempts
 * are grouped into deliveries by the identity of their document (its `event_id`, §2.2, §2.4, §6.1), so a sender
 * may send one document or many, one after the other or at once, and each is judged on its own.
 */
import { createHash } from 'node:crypto';
import type { InterfaceId } from '../spec/constants.js';
import type { ModelAnswer } from '../spec/model/answers.js';
import type { Expectation } from '../spec/model/receiver.js';
import { documentOf, eventIdOfAttempt, ms, type SeenAttempt } from '../spec/model/sender.js';
import type { SenderRelationId } from '../spec/model/sender-relations.js';
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
    return text.length > limit
      ? { bytes: body.length, text: text.slice(0, limit), truncated: true }
      : { bytes: body.length, text };
  } catch {
    return {
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      hexPrefix: body.subarray(0, HEX_PREFIX_BYTES).toString('hex'),
    };
  }
}

/** An exchange as plain report data (no Buffers, no recipe). */
export function recordExchange(exchange: Exchange): ExchangeRecord {
  return {
    request: {
      method: 'POST',
      url: exchange.request.url,
      headers: { ...exchange.request.headers },
      body: recordBody(exchange.request.body),
    },
    ...(exchange.status !== undefined
      ? {
          response: {
            status: exchange.status,
            headers: { ...exchange.headers },
            body: recordBody(exchange.body),
            ...(exchange.bodyTruncated ? { bodyTruncated: true } : {}),
          },
        }
      : {}),
    ...(exchange.error ? { error: { ...exchange.error } } : {}),
    latencyMs: Math.round(exchange.latencyMs),
  };
}

const EXCERPT_LENGTH = 160;

/** `401 {"error":"…"}`, `202 (empty body)`, or `no response (timeout: …)`. */
export function describeAnswer(exchange: Pick<Exchange, 'status' | 'body' | 'error'>): string {
  if (exchange.status === undefined)
    return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? 'unknown'})`;
  const text = exchange.body.toString('utf8').replace(/\s+/g, ' ').trim();
  const excerpt = text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  return excerpt === '' ? `${exchange.status} (empty body)` : `${exchange.status} ${excerpt}`;
}

// --- Attempts (cai received) -----------------------------------------------------------------------------------

export type { Arrival } from '../http/listener.js';

export interface Attempt extends SeenAttempt {
  headers: Record<string, string>;
  httpVersion: string;
  rawHeaders: [string, string][];
  /** The stage (a scenario of a sender run, a job of the callback listener) it came to. */
  stage: string;
  /** 1-based, in order of arrival within the stage. */
  number: number;
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
  /** The longest cai's own event loop was held up while the stage ran (ms), for the report. */
  maxLagMs?: number;
  /** All the time cai's own event loop was held up while the stage ran (ms; loop-clock.ts). */
  heldMs?: number;
  /** How many times the stage was played again: cai's own lag left a timing verdict open, or a breach to confirm. */
  replays?: number;
  /** The breaches of the first play that the play kept (a later one) did not repeat (checks/sender/judging.ts). */
  unrepeated?: readonly UnrepeatedBreach[];
  /**
   * The terms a held-up sender or a jittered backoff's draw fakes that this play broke and an earlier play of the
   * scenario did not: not consistent, so left open (checks/sender/judging.ts), not the verdict.
   */
  unconfirmed?: readonly string[];
}

/** A breach of a first play that a second play did not repeat: reported as a note, not as the verdict. */
export interface UnrepeatedBreach {
  term: string;
  actual: string;
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
  /** The stateful phase's conversations, when it ran: its checks judge them, the others the scenarios' records. */
  exploration?: SenderExploration;
  /** How many documents the sender sends in one run, as its stages showed (default: the fewest of these records'). */
  documentsPerRun?: number;
  /** The sender runs in cai's own process (the built-in reference provider): its timers share cai's loop. */
  senderInProcess?: boolean;
}

/** Every attempt of every stage, late ones included. */
export function allAttempts(evidence: Pick<SenderEvidence, 'records'>): Attempt[] {
  return evidence.records.flatMap((record) => record.attempts);
}

/** The stage, a number sign and the attempt's number, and `(late)` for an attempt after the stage's end. */
export function label(attempt: Attempt): string {
  return `${attempt.stage} #${attempt.number}${attempt.late ? ' (late)' : ''}`;
}

/** The document's event_id (a job's or an event's), when it has a string one. */
export const attemptEventId = eventIdOfAttempt;

export { timestampOf } from '../spec/model/sender-attempts.js';

/** The digest a body without an event_id is told apart by (deliveryKeyOf). */
export function bodyDigest(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

export { documentOf, ms };

/** How a relation's failure was found, for either role. */
export interface Shrinking {
  /** fast-check's path of the conversation: `--seed SEED:PATH` replays it. */
  path?: string;
  /** The conversation broke the relation again when played once more. */
  confirmed: boolean;
  /** Shorter conversations that still broke it, on the way. */
  shrinks: number;
  /** Not played again: the time to shrink it ran out first (a busy machine), so it is the conversation as first seen. */
  outOfTime?: true;
}

/** A relation's failure: the shortest conversation found that breaks it, played once more. */
export interface SenderShrunk extends Shrinking {
  /** One answer script per document of the conversation. */
  scripts: ScriptedAnswer[][];
  /** The model's breach, as it was seen in the last play. */
  actual: string;
  /** The breach is of a `should` term of the relation: a warning. */
  should: boolean;
  /** The last play: its attempts are the evidence. */
  record: StageRecord;
}

/** What a stateful phase did, for either role: its seed and size, the evidence per relation, the failures shrunk. */
export interface PhaseExploration<Relation extends string, Failure> {
  seed: number;
  /** Conversations played (against a sender, each a run of the trigger). */
  conversations: number;
  durationMs: number;
  /** Requests or findings that bore on each relation: the evidence a relation's verdict rests on. */
  evidence: Partial<Record<Relation, number>>;
  failures: Partial<Record<Relation, Failure>>;
  /** Its time budget ended the exploring before its budget of requests or conversations. */
  timedOut: boolean;
  /** Set when the run replayed one conversation (`--seed S:PATH`). */
  replayed?: string;
}

export interface SenderExploration extends PhaseExploration<SenderRelationId, SenderShrunk> {
  /** Attempts the conversations brought. */
  attempts: number;
  /** The stages it played (the shrinking's candidates aside): the report's scenarios, the failures' timelines. */
  records: StageRecord[];
}

export function answerOf(exchange: Exchange): ModelAnswer {
  return {
    ...(exchange.status !== undefined ? { status: exchange.status } : {}),
    headers: exchange.headers,
    body: exchange.body,
    ...(exchange.bodyTruncated ? { bodyTruncated: true } : {}),
    ...(exchange.error ? { error: `${exchange.error.code}: ${exchange.error.message}` } : {}),
  };
}

/** The answer is an acceptance (any 2xx, §6.5): a plain fact of the answer, not an expectation. */
export function isAccepted(exchange: Pick<Exchange, 'status'>): boolean {
  return exchange.status !== undefined && exchange.status >= 200 && exchange.status < 300;
}
