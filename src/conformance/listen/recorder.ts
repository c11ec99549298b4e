/**
 * Plays the scripts: attributes each arrival to its stage (a scenario of a sender run, a job of the callback
 * listener), records it as an attempt of the delivery its document belongs to, and picks the answer: the attempt's
 * place in its own delivery decides it, so every document a sender sends gets the whole script. Each stage has its
 * own path, so stages run at once and a late retry is still attributed to its own. A person sending by hand gets
 * one shared URL, one scenario at a time; an arrival carrying an event_id seen in an earlier scenario goes to it.
 */
import { LISTENER_CAPS, SENDER_RUN_CAPS } from '../../bounds.js';
import { errorReply, jsonReply, type Reply } from '../../http/server.js';
import type { InterfaceId } from '../../spec/constants.js';
import { isObject } from '../../spec/json.js';
import { classOf, contentOf, deliveryKeyOf, type RetryAfter, type SentRetryAfter } from '../../spec/model/sender.js';
import { attemptEventId, bodyDigest, documentOf, type Arrival, type Attempt, type StageRecord } from '../evidence.js';
import type { Handled } from '../../http/listener.js';
import { ACCEPTED, type ScriptedAnswer } from './scenarios.js';

export interface RecorderOptions {
  /** The interface of the documents received: it decides what an acceptance looks like (§2.3 on A, §2.13 on B). */
  interface: InterfaceId;
  /** Stages share one URL (a person sending by hand): arrivals are routed by event_id, then to the open stage. */
  shared: boolean;
  /**
   * A body over this many bytes is answered 413 whatever the script says (recorded all the same, and judged by its
   * size): the callback listener answers as the platform it stands for (§8), a sender run by its script up to what
   * it keeps of a body.
   */
  refuseOverBytes?: number;
  /**
   * How far the sender's clock is ahead of cai's, in ms, when cai knows it (the provider's Date header on Interface
   * A): a Retry-After date is written in the sender's time, so that it names the moment cai waits for.
   */
  senderClockAheadMs?: () => number;
}

/** A stage as it opens: its record's own fields (its `id` unique within the run), and where its arrivals come. */
export interface StageOpening extends Pick<StageRecord, 'scenario' | 'id' | 'targetUrl' | 'expectedPath'> {
  /** The path prefix its arrivals come to (ignored when shared). */
  prefix: string;
}

/** A stage's answers are read from these, kept as its attempts come. */
interface StageIndex {
  /** Each delivery key's place in order of first arrival (a delivery's place decides whether it is scripted). */
  places: Map<string, number>;
  /** Each delivery's attempts, in order. */
  byKey: Map<string, Attempt[]>;
  /** The delivery keys of documents alike but for their event_id (by their content), in order of first arrival. */
  alike: Map<string, string[]>;
}

/** Characters of a stray request's path kept for the report. */
const STRAY_PATH_CHARACTERS = 200;

/** §2.3: the acknowledgment cai gives as the provider (an example E.164 number, the job id stable per delivery). */
const ASSIGNED_NUMBER = '+447700900123';

const ERROR_CODES = {
  400: 'invalid_schema',
  401: 'invalid_signature',
  413: 'body_too_large',
  429: 'rate_limited',
  500: 'internal_error',
  501: 'not_implemented',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'gateway_timeout',
} as const;

/**
 * The Retry-After of a 429 as it goes out. A date is taken on the next whole second at least `seconds` ahead (an
 * HTTP-date has no fractions), and noted on the monotonic clock too: the retry is judged against the moment the
 * date names, not against a wait the sender could not know.
 */
export function retryAfterOf(
  retryAfter: RetryAfter,
  nowMs: number,
  nowMono: number,
  senderAheadMs = 0,
): SentRetryAfter {
  if (retryAfter.form === 'seconds')
    return { header: String(retryAfter.seconds), form: 'seconds', seconds: retryAfter.seconds };
  // The whole second is the sender's: an HTTP-date it reads against its own clock.
  const at = Math.ceil((nowMs + senderAheadMs + retryAfter.seconds * 1000) / 1000) * 1000 - senderAheadMs;
  return {
    header: new Date(at + senderAheadMs).toUTCString(),
    form: 'date',
    seconds: retryAfter.seconds,
    dateMono: nowMono + (at - nowMs),
    ...(senderAheadMs !== 0 ? { clockShiftMs: senderAheadMs } : {}),
  };
}

export class Recorder {
  readonly options: RecorderOptions;
  readonly records: StageRecord[] = [];
  /** Requests that matched no stage (answered 404), for the report's notes: the first LISTENER_CAPS.keptStrays, and how many. */
  readonly strays: string[] = [];
  strayCount = 0;
  private active?: StageRecord;
  private readonly prefixes = new Map<StageRecord, string>();
  /**
   * What each stage's answers are read from, kept as the attempts come: a callback listener's background stage takes
   * thousands (every other job's events), and a look through all of them for each arrival cost an A run a second.
   */
  private readonly indexes = new Map<StageRecord, StageIndex>();
  /** The stage that first recorded each event_id (shared URL: a late retry goes to its own stage). */
  private readonly stageOfEvent = new Map<string, StageRecord>();
  private readonly waiters = new Set<() => void>();

  constructor(options: RecorderOptions) {
    this.options = options;
  }

  /** Opens a stage: from now on its arrivals are recorded. */
  open(opening: StageOpening, startedMono: number): StageRecord {
    const record: StageRecord = {
      scenario: opening.scenario,
      id: opening.id,
      targetUrl: opening.targetUrl,
      expectedPath: opening.expectedPath,
      startedAt: Date.now(),
      startedMono,
      attempts: [],
    };
    this.records.push(record);
    this.prefixes.set(record, this.options.shared ? '' : opening.prefix.replace(/\/+$/, ''));
    this.indexes.set(record, { places: new Map(), byKey: new Map(), alike: new Map() });
    this.active = record;
    return record;
  }

  /** Closes a stage: later arrivals for it are still recorded, as late. */
  close(record: StageRecord, endedMono: number): void {
    record.endedMono = endedMono;
    if (this.active === record) this.active = undefined;
  }

  handle(arrival: Arrival): Handled {
    const record = this.route(arrival);
    if (!record) {
      this.strayCount += 1;
      if (this.strays.length < LISTENER_CAPS.keptStrays)
        this.strays.push(`${arrival.method.slice(0, 16)} ${arrival.path.slice(0, STRAY_PATH_CHARACTERS)}`);
      const reply = errorReply(
        404,
        'not_a_scenario',
        'cai conformance: nothing listens on this path; send to the URL you were given',
      );
      return { response: { kind: 'reply', reply }, answered: () => undefined };
    }
    const number = record.attempts.length + 1;
    const key = deliveryKeyOf(arrival, number, bodyDigest);
    const index = this.indexes.get(record) as StageIndex;
    if (!index.places.has(key)) index.places.set(key, index.places.size);
    const place = index.places.get(key) as number;
    const answer = this.answerFor(record, index, arrival, key, place);
    const retryAfter =
      answer.kind === 'error' && answer.retryAfter
        ? retryAfterOf(
            answer.retryAfter,
            Date.now() + (answer.delayMs ?? 0),
            performance.now() + (answer.delayMs ?? 0),
            this.options.senderClockAheadMs?.() ?? 0,
          )
        : undefined;
    const attempt: Attempt = {
      ...arrival,
      stage: record.id,
      number,
      key,
      answer,
      ...(retryAfter ? { retryAfter } : {}),
      late: record.endedMono !== undefined,
    };
    record.attempts.push(attempt);
    const attempts = index.byKey.get(key);
    if (attempts) attempts.push(attempt);
    else index.byKey.set(key, [attempt]);
    const eventId = this.options.shared ? attemptEventId(attempt) : undefined;
    if (eventId !== undefined && !this.stageOfEvent.has(eventId)) this.stageOfEvent.set(eventId, record);
    this.notify();
    return {
      response:
        answer.kind === 'reset'
          ? { kind: 'reset' }
          : { kind: 'reply', reply: this.replyFor(answer, record, place, retryAfter) },
      delayMs: answer.delayMs ?? 0,
      answered: (mono, unheard) => {
        attempt.answeredMono = mono;
        if (unheard) attempt.unheard = true;
        this.notify();
      },
    };
  }

  /** Resolves at the next arrival or answer, at `deadlineMono`, or when `signal` aborts, whichever comes first. */
  nextChange(deadlineMono: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(finish);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, deadlineMono - performance.now()));
      signal.addEventListener('abort', finish, { once: true });
      this.waiters.add(finish);
      if (signal.aborted) finish();
    });
  }

  /** Wakes whoever waits for a change (an arrival, an answer, a trigger that exited). */
  notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private route(arrival: Arrival): StageRecord | undefined {
    const path = arrival.path.split('?')[0] ?? '';
    if (!this.options.shared) {
      return this.records.find((record) => {
        const prefix = this.prefixes.get(record) ?? '';
        return path === prefix || path.startsWith(`${prefix}/`);
      });
    }
    // One shared URL: a document seen before belongs to its stage (a late retry); anything else to the open one.
    const eventId = attemptEventId(arrival);
    return (eventId === undefined ? undefined : this.stageOfEvent.get(eventId)) ?? this.active;
  }

  /**
   * The script's answer for the delivery's next attempt. A delivery already accepted is answered as a receiver
   * answers a repeat: the duplicate answer on B (§2.13), the same acknowledgment on A (§2.2). Past the stage's first
   * SENDER_RUN_CAPS.scriptedDeliveries documents, and past SENDER_RUN_CAPS.scriptedAlike documents alike but for
   * their event_id (one renamed on every retry, say), every new one is accepted at once: the sender comes to an end.
   */
  private answerFor(
    record: StageRecord,
    index: StageIndex,
    arrival: Arrival,
    delivery: string,
    place: number,
  ): ScriptedAnswer {
    // A body over what cai reads, or over the limit the listener enforces, is answered as a platform would (§8: 413).
    if (arrival.cut || arrival.bodyBytes > (this.options.refuseOverBytes ?? Number.POSITIVE_INFINITY))
      return { kind: 'error', status: 413 };
    const earlier = index.byKey.get(delivery) ?? [];
    if (earlier.some((attempt) => classOf(attempt.answer) === 'accepted'))
      return this.options.interface === 'B' ? { kind: 'duplicate' } : ACCEPTED;
    const { scripts, scriptedDeliveries } = record.scenario;
    // A document alike to an earlier one but for its event_id, after that one was answered a retry or the duplicate
    // answer (its rename, it seems), takes that one's place: a renamed retry is scripted too.
    const alike = this.alikeOf(index, arrival, delivery);
    const last = index.byKey.get(alike.first)?.at(-1);
    const renamed =
      last !== undefined &&
      last.key !== delivery &&
      ((classOf(last.answer) !== 'accepted' && classOf(last.answer) !== 'refused') || last.answer.kind === 'duplicate');
    const first = renamed ? Math.min(place, index.places.get(alike.first) as number) : place;
    if (
      first >= Math.min(scriptedDeliveries ?? Infinity, SENDER_RUN_CAPS.scriptedDeliveries) ||
      alike.index >= SENDER_RUN_CAPS.scriptedAlike
    )
      return ACCEPTED;
    const script = scripts?.[first % scripts.length] ?? record.scenario.script;
    return script[Math.min(earlier.length + 1, script.length) - 1] as ScriptedAnswer;
  }

  /** Of the stage's documents alike to this one but for their event_id: its place among them, and the first. */
  private alikeOf(index: StageIndex, arrival: Arrival, delivery: string): { index: number; first: string } {
    const content = contentOf(arrival);
    if (content === undefined || !isObject(documentOf(arrival))) return { index: 0, first: delivery };
    const keys = index.alike.get(content) ?? [];
    if (!keys.includes(delivery)) keys.push(delivery);
    index.alike.set(content, keys);
    return { index: keys.indexOf(delivery), first: keys[0] as string };
  }

  private replyFor(
    answer: Exclude<ScriptedAnswer, { kind: 'reset' }>,
    record: StageRecord,
    place: number,
    retryAfter: SentRetryAfter | undefined,
  ): Reply {
    switch (answer.kind) {
      case 'accepted':
        // §6.5: a 204 carries no body at all; any other 2xx the body of a 202, unless the script says none (§4.2: not shown).
        if (answer.status === 204 || answer.empty) return { status: answer.status };
        return this.options.interface === 'A'
          ? jsonReply(answer.status, {
              provider_job_id: `cai-job-${record.id}-${place + 1}`,
              assigned_number_e164: ASSIGNED_NUMBER,
            })
          : jsonReply(answer.status, { ok: true });
      case 'duplicate':
        return jsonReply(202, { ok: true, duplicate: true });
      case 'error': {
        const headers = retryAfter === undefined ? undefined : { 'retry-after': retryAfter.header };
        return errorReply(
          answer.status,
          ERROR_CODES[answer.status],
          `scripted by cai conformance (${record.scenario.id})`,
          {},
          headers,
        );
      }
    }
  }
}
