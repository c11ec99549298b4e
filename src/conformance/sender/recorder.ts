/**
 * Plays the scenarios' scripts: attributes each arrival to its scenario, records it as an attempt, and picks the
 * answer. With --trigger every scenario has its own path (`/<scenario>/events` on B, `/<scenario>` as the provider
 * endpoint on A), so scenarios can run at once and a late retry is still attributed to its own. By hand they share
 * one URL and run one at a time; an arrival carrying an event_id seen in an earlier scenario goes to that one.
 */
import { CONTACT_JOBS_PATH, type InterfaceId } from '../../spec/constants.js';
import { LISTENER_CAPS } from '../../bounds.js';
import { errorReply, jsonReply, type Reply } from '../../http/server.js';
import { eventIdOf, type Attempt, type ScenarioRecord } from './evidence.js';
import type { Scenario, ScriptedAnswer } from './scenarios.js';

/** A request as the listener read it. */
export type Arrival = Omit<Attempt, 'scenario' | 'number' | 'answer' | 'late' | 'answeredMono'>;

/** What the listener does with an arrival: answer it, or cut the connection. */
export type Response = { kind: 'reply'; reply: Reply } | { kind: 'reset' };

export interface Handled {
  response: Response;
  /** Call when the answer has gone out (or the connection was cut). */
  answered(mono: number): void;
}

export interface RecorderOptions {
  interface: InterfaceId;
  /** Scenarios share one URL (a person sending by hand): no per-scenario path. */
  shared: boolean;
  /** The origin the sender reaches the listener at (the listener's own, or --public-url: paths arrive unchanged). */
  publicBase: string;
}

/** Characters of a stray request's path kept for the report. */
const STRAY_PATH_CHARACTERS = 200;

/** §2.3: the acknowledgment cai gives as the provider (an example E.164 number, the job id stable per job). */
const ASSIGNED_NUMBER = '+447700900123';

export class Recorder {
  readonly options: RecorderOptions;
  readonly records: ScenarioRecord[] = [];
  /** Requests that matched no scenario (answered 404), for the report's notes: the first LISTENER_CAPS.keptStrays, and how many. */
  readonly strays: string[] = [];
  strayCount = 0;
  private active?: ScenarioRecord;
  /** Each scenario's path prefix as it arrives at the listener. */
  private readonly prefixes = new Map<ScenarioRecord, string>();
  private readonly waiters = new Set<() => void>();

  constructor(options: RecorderOptions) {
    this.options = options;
  }

  /** The path prefix of a scenario: `/<id>`, or nothing when scenarios share the URL. */
  private prefixOf(scenario: Scenario): string {
    return this.options.shared ? '' : `/${scenario.id}`;
  }

  /** Opens a scenario: from now on its arrivals are recorded. */
  open(scenario: Scenario, startedMono: number): ScenarioRecord {
    const prefix = this.prefixOf(scenario);
    const base = this.options.publicBase.replace(/\/+$/, '');
    const record: ScenarioRecord = {
      scenario,
      targetUrl: this.options.interface === 'B' ? `${base}${prefix}/events` : `${base}${prefix}`,
      expectedPath: this.options.interface === 'B' ? `${prefix}/events` : `${prefix}${CONTACT_JOBS_PATH}`,
      startedAt: Date.now(),
      startedMono,
      attempts: [],
    };
    this.records.push(record);
    this.prefixes.set(record, prefix);
    this.active = record;
    return record;
  }

  /** Closes a scenario: later arrivals for it are still recorded, as late. */
  close(record: ScenarioRecord, endedMono: number): void {
    record.endedMono = endedMono;
    if (this.active === record) this.active = undefined;
  }

  handle(arrival: Arrival): Handled {
    const record = this.route(arrival);
    if (!record) {
      this.strayCount += 1;
      if (this.strays.length < LISTENER_CAPS.keptStrays) this.strays.push(`${arrival.method.slice(0, 16)} ${arrival.path.slice(0, STRAY_PATH_CHARACTERS)}`);
      const reply = errorReply(404, 'not_a_scenario', 'cai conformance: no scenario listens on this path; send to CAI_TARGET_URL');
      return { response: { kind: 'reply', reply }, answered: () => undefined };
    }
    const number = record.attempts.length + 1;
    const answer = this.answerFor(record, arrival, number);
    const attempt: Attempt = { ...arrival, scenario: record.scenario.id, number, answer, late: record.endedMono !== undefined };
    record.attempts.push(attempt);
    return {
      response: answer.kind === 'reset' ? { kind: 'reset' } : { kind: 'reply', reply: this.replyFor(answer, record) },
      answered: (mono) => {
        attempt.answeredMono = mono;
        this.notify();
      },
    };
  }

  /**
   * Resolves when `done` holds, at `deadlineMono`, or when `signal` aborts, whichever comes first; `done` is
   * looked at again after every answer.
   */
  waitUntil(done: () => boolean, deadlineMono: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const check = () => {
        if (done()) finish();
      };
      const timer = setTimeout(finish, Math.max(0, deadlineMono - performance.now()));
      signal.addEventListener('abort', finish, { once: true });
      this.waiters.add(check);
      if (signal.aborted) finish();
      else check();
    });
  }

  /** Looks at every waiter's condition again (after an answer, or when a trigger exits). */
  notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private route(arrival: Arrival): ScenarioRecord | undefined {
    const path = arrival.path.split('?')[0] ?? '';
    if (!this.options.shared) {
      return this.records.find((record) => {
        const prefix = this.prefixes.get(record) ?? '';
        return path === prefix || path.startsWith(`${prefix}/`);
      });
    }
    // One shared URL: a document seen before belongs to its scenario (a late retry); anything else to the open one.
    const eventId = eventIdOf(arrival);
    const earlier = eventId === undefined ? undefined : this.records.find((record) => record.attempts.some((attempt) => eventIdOf(attempt) === eventId));
    return earlier ?? this.active;
  }

  /** The script's answer for attempt `number`; a repeat of a document already accepted gets the duplicate answer (B, §2.13). */
  private answerFor(record: ScenarioRecord, arrival: Arrival, number: number): ScriptedAnswer {
    // A body over what cai reads is answered as a platform would (§8: 413), whatever the script says.
    if (arrival.cut) return { kind: 'error', status: 413 };
    const script = record.scenario.script;
    const scripted = script[Math.min(number, script.length) - 1] as ScriptedAnswer;
    if (this.options.interface !== 'B' || scripted.kind !== 'accepted') return scripted;
    const eventId = eventIdOf(arrival);
    const acceptedBefore = record.attempts.some((attempt) => (attempt.answer.kind === 'accepted' || attempt.answer.kind === 'duplicate') && eventId !== undefined && eventIdOf(attempt) === eventId);
    return acceptedBefore ? { kind: 'duplicate' } : scripted;
  }

  private replyFor(answer: Exclude<ScriptedAnswer, { kind: 'reset' }>, record: ScenarioRecord): Reply {
    const why = `scripted by cai conformance (scenario ${record.scenario.id})`;
    switch (answer.kind) {
      case 'accepted':
        return this.options.interface === 'A'
          ? jsonReply(answer.status, { provider_job_id: `cai-job-${record.scenario.id}`, assigned_number_e164: ASSIGNED_NUMBER })
          : jsonReply(answer.status, { ok: true });
      case 'duplicate':
        return jsonReply(202, { ok: true, duplicate: true });
      case 'error': {
        const codes = { 400: 'invalid_schema', 401: 'invalid_signature', 413: 'body_too_large', 429: 'rate_limited', 503: 'unavailable' } as const;
        const headers = answer.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(answer.retryAfterSeconds) };
        return errorReply(answer.status, codes[answer.status], why, {}, headers);
      }
    }
  }
}
