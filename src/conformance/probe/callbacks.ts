/**
 * The callback listener of an Interface A run: cai's one listener (http/listener.ts) opened as each job's
 * `callback_url`, so that the events the provider sends back (§3 step 5) can be judged. Every job gets its own path
 * (`…/cai-conformance/<name>-<token>`), and so its own stage: its events are attributed to it even when a provider
 * changes the `lead_id`. A stage scripts the answer to the job's first event (503, 429 with Retry-After, 400, or
 * 202) and accepts the rest, so that the conversation goes on; the jobs of the other checks land in one background
 * stage that accepts everything and is not judged. The events are judged by the same sender checks as a
 * `--role sender` run (checks/sender), and by the callback checks of checks/receiver/callbacks.ts.
 */
import { randomBytes } from 'node:crypto';
import { isEndingEvent } from '../../spec/model/job-events.js';
import { MAX_BODY_BYTES } from '../../spec/constants.js';
import { isObject } from '../../spec/json.js';
import type { SenderEvidence, StageRecord, Exchange } from '../evidence.js';
import { documentOf, isAccepted } from '../evidence.js';
import type { GuardCaps } from '../../http/listener-guard.js';
import { startListener, type Listener } from '../../http/listener.js';
import { Recorder } from '../listen/recorder.js';
import { isFinal as isFinalAnswer, scenario, type CallbackScenarioId } from '../listen/scenarios.js';
import { playStage } from '../listen/stage.js';

const PATH_PREFIX = '/cai-conformance';

export interface CallbackListenerOptions {
  host: string;
  port: number;
  /** The public address; default the listener's own. */
  publicUrl?: string;
  /** The events secrets (the other direction's, §5.1): the events must verify with one of them. */
  secrets: readonly string[];
  /** How far the provider's clock is ahead of cai's, in ms (its Date header; read when a Retry-After date is written). */
  senderClockAheadMs?: () => number;
  /** The provider code the events must carry (X-CAI-Provider, §4.2, §5.6). */
  providerCode: string;
  /** How long the events of one job are waited for (--callback-wait), and how long cai listens after the last one (--observe). */
  waitMs: number;
  observeMs: number;
  /** The listener's bounds (default LISTENER_CAPS, src/bounds.ts); smaller ones in tests. */
  caps?: GuardCaps;
  /** The provider is the built-in one, in cai's own process: its timers share cai's loop. */
  senderInProcess?: boolean;
}

/** One job's events: the job as sent and answered, and what came to its callback_url. */
export interface JobStage {
  name: string;
  /** The job document sent (its callback_url is the stage's). */
  doc: Record<string, unknown>;
  leadId: string;
  /** The answer to the job; undefined when it could not be sent (interrupted). */
  job?: Exchange;
  /** The answer to the same job sent again, when it was (`twice`). */
  repeat?: Exchange;
  /** The answers to the requests sent before the job (`before`). */
  refused?: Exchange[];
  record: StageRecord;
  /** When the job was sent (ms since the epoch), and how long its events were waited for after its answer. */
  startedAt: number;
  waitedMs: number;
}

export interface JobRequest {
  name: string;
  scenario: CallbackScenarioId;
  /** The job for this callback_url (its lead_id, event_id and other fields as the check wants them). */
  build(callbackUrl: string): Record<string, unknown>;
  /** Sends one job; resolves with the answer. */
  send(doc: Record<string, unknown>): Promise<Exchange>;
  /** Send the job a second time right after the first is accepted (a retry whose answer was lost). */
  twice?: boolean;
  /** Send the job this many times at once (a retry racing its first attempt); the first accepted answer is the job's. */
  together?: number;
  /** Requests sent before the job, with its event_id, that the provider must refuse (their answers kept). */
  before?(doc: Record<string, unknown>): Promise<Exchange[]>;
  signal: AbortSignal;
}

export interface CallbackHarness {
  listenUrl: string;
  secrets: readonly string[];
  /** A callback_url for a job whose events no check reads (they are accepted and forgotten). */
  backgroundUrl(name: string): string;
  /** Sends a job with a callback_url of its own, and gathers its events until its stage is over. */
  gather(request: JobRequest): Promise<JobStage>;
  /**
   * Resolves once the job `name`'s stage has answered an event, or after --callback-wait (the stage not yet opened,
   * or no event), or when `signal` aborts: true when an event was answered.
   */
  answeredOne(name: string, signal: AbortSignal): Promise<boolean>;
  /** The sender checks' evidence, from the stages gathered so far. */
  evidence(stages: readonly JobStage[]): SenderEvidence;
  /** Requests answered but not recorded (the listener's bounds), and requests to no job's path. */
  refused(): number;
  strays(): { count: number; shown: readonly string[] };
  close(): Promise<void>;
}

/** The event type of an attempt's document, when it is a JSON object with one. */
export function eventTypeOf(attempt: { body: Buffer; cut: boolean }): unknown {
  const doc = documentOf(attempt);
  return isObject(doc) ? doc.event : undefined;
}

/**
 * How long a job's stage stays open after its last event: --observe, or half the time its conversation took to end
 * when that is longer. A provider that starts a second conversation for a repeated job (§2.2) does so about as fast
 * as the first one ran; on a busy machine both are slower.
 */
function quietAfter(record: StageRecord, observeMs: number): number {
  const ending = record.attempts.find((attempt) => isEndingEvent(eventTypeOf(attempt)));
  return ending ? Math.max(observeMs, (ending.arrivedMono - record.startedMono) / 2) : observeMs;
}

/** A stage whose first event gets a scripted answer (a 5xx, a 429, a 400) rather than 202 to every event. */
function scripted(id: CallbackScenarioId): boolean {
  return id !== 'callbacks' && id !== 'callback-returning';
}

/**
 * When a job's stage has seen what it waits for: the conversation's end; on a refused first event, its answer; on a
 * first event that must be sent again (a 5xx, a 429, a cut), its delivery and then the conversation's end, since a
 * retried event is delivered and the conversation goes on (§3 step 5, A-CB-006).
 */
function awaited(id: CallbackScenarioId, record: StageRecord): boolean {
  const attempts = record.attempts.filter((attempt) => attempt.answeredMono !== undefined);
  const ended = attempts.some((attempt) => isEndingEvent(eventTypeOf(attempt)));
  if (!scripted(id)) return ended;
  const first = attempts[0];
  if (!first) return false;
  // A refusal (400, 401, 413) is final (§7): the stage has its answer at once, and watches for a retry that must not
  // come; its conversation may stop there.
  if (id === 'callback-400' || id === 'callback-401' || id === 'callback-413') return true;
  const ofFirst = attempts.filter((attempt) => attempt.key === first.key);
  return isFinalAnswer((ofFirst.at(-1) ?? first).answer) && ended;
}

/** The same job sent `copies` times at once: the first accepted answer (else the first answer) is the job's. */
async function sendAtOnce(request: JobRequest, doc: Record<string, unknown>, copies: number): Promise<Exchange> {
  const answers = await Promise.all(Array.from({ length: copies }, () => request.send(doc)));
  return answers.find(isAccepted) ?? (answers[0] as Exchange);
}

/** Sends one job with its stage's callback_url and gathers its events until the stage is over. */
async function gatherStage(
  recorder: Recorder,
  record: StageRecord,
  request: JobRequest,
  options: CallbackListenerOptions,
): Promise<JobStage> {
  const doc = request.build(record.targetUrl);
  const refused = request.before ? await request.before(doc) : undefined;
  const startedAt = Date.now();
  const job =
    (request.together ?? 1) > 1 ? await sendAtOnce(request, doc, request.together as number) : await request.send(doc);
  // The events are waited for from the job's answer: the requests before it, and the job's own round trip, take
  // none of the wait (on a busy machine they can take all of it).
  const answeredAt = Date.now();
  const startedMono = performance.now();
  record.startedMono = startedMono;
  let repeat: Exchange | undefined;
  const accepted = isAccepted(job);
  if (accepted && request.twice && !request.signal.aborted) repeat = await request.send(doc);
  // Nothing is awaited for a job the provider did not take: the check judging it says so.
  await playStage(recorder, record, {
    waitMs: options.waitMs,
    observeMs: () => quietAfter(record, options.observeMs),
    signal: request.signal,
    senderDone: () => true,
    awaiting: () => accepted && !awaited(request.scenario, record),
    // A scripted answer is judged --callback-wait after the event it answered (a retry that never comes): its
    // stage may outlive the job's own wait by that much, and ends as soon as the event's delivery settles.
    deadlineMono: accepted ? startedMono + (scripted(request.scenario) ? 2 : 1) * options.waitMs : performance.now(),
    deadlineIsWait: accepted,
  });
  return {
    name: request.name,
    doc,
    leadId: String(doc.lead_id),
    ...(job ? { job } : {}),
    ...(repeat ? { repeat } : {}),
    ...(refused ? { refused } : {}),
    record,
    startedAt,
    waitedMs: Date.now() - answeredAt,
  };
}

export async function startCallbackListener(options: CallbackListenerOptions): Promise<CallbackHarness> {
  const recorder = new Recorder({
    interface: 'B',
    shared: false,
    refuseOverBytes: MAX_BODY_BYTES,
    ...(options.senderClockAheadMs ? { senderClockAheadMs: options.senderClockAheadMs } : {}),
  });
  const listener: Listener = await startListener({
    host: options.host,
    port: options.port,
    option: 'callback-listen',
    handle: (arrival) => recorder.handle(arrival),
    ...(options.caps ? { caps: options.caps } : {}),
  });
  const publicUrl = (options.publicUrl ?? listener.url).replace(/\/+$/, '');
  const opened = new Map<string, StageRecord>();
  const open = (name: string, id: CallbackScenarioId, withQuery = true) => {
    const token = randomBytes(8).toString('hex');
    const prefix = `${PATH_PREFIX}/${name}-${token}`;
    // §2.2 gives callback_url whole and §4.2 posts to it: a platform's URL may carry a query (a tenant, a route), and
    // the query is part of the address (RFC 3986 §3.4). A job's URL carries one, so a provider that drops or rebuilds
    // it posts elsewhere (BS-HTTP-001); the events are routed by the path alone, so they are judged all the same.
    const address = withQuery ? `${prefix}?job=${token}` : prefix;
    const record = recorder.open(
      { scenario: scenario(id), id: name, prefix, targetUrl: `${publicUrl}${address}`, expectedPath: address },
      performance.now(),
    );
    opened.set(name, record);
    return record;
  };
  // Every other job's events: accepted, recorded within the listener's caps, never judged.
  const background = open('background', 'callbacks', false);

  return {
    listenUrl: listener.url,
    secrets: options.secrets,
    backgroundUrl: (name) => `${background.targetUrl}/${encodeURIComponent(name)}`,
    gather: (request) => gatherStage(recorder, open(request.name, request.scenario), request, options),
    async answeredOne(name, signal) {
      const deadline = performance.now() + options.waitMs;
      const answered = () => opened.get(name)?.attempts.some((attempt) => attempt.answeredMono !== undefined) === true;
      while (!answered() && !signal.aborted && performance.now() < deadline)
        await recorder.nextChange(deadline, signal);
      return answered();
    },
    evidence: (stages) => ({
      interface: 'B',
      identity: options.providerCode,
      secrets: options.secrets,
      waitMs: options.waitMs,
      observeMs: options.observeMs,
      records: stages.map((stage) => stage.record),
      ...(options.senderInProcess ? { senderInProcess: true } : {}),
    }),
    refused: () => listener.refused(),
    strays: () => ({ count: recorder.strayCount, shown: recorder.strays }),
    close: () => listener.close(),
  };
}
