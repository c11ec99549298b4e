/**
 * What a sender run records: every attempt exactly as it arrived (headers, raw body, arrival time on both clocks,
 * cai's answer), grouped by scenario. The checks judge this and nothing else.
 */
import type { InterfaceId } from '../../spec/constants.js';
import { Headers } from '../../spec/constants.js';
import { eventIdOf as eventIdOfBody } from '../../mock/request.js';
import type { Scenario, ScenarioId, ScriptedAnswer } from './scenarios.js';

export interface Attempt {
  scenario: ScenarioId;
  /** 1-based, in order of arrival within the scenario. */
  number: number;
  /** Wall clock (ms since the epoch) when its headers arrived: the §5.5 window is judged at this moment. */
  arrivedAt: number;
  /** Monotonic clock (ms) when its headers arrived, and when cai's answer went out or the connection was cut. */
  arrivedMono: number;
  answeredMono?: number;
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
  answer: ScriptedAnswer;
  /** After the scenario was decided (a retry or repeat that came later than cai waited). */
  late: boolean;
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

export interface ScenarioRecord {
  scenario: Scenario;
  /** CAI_TARGET_URL: the events URL (B) or the provider endpoint (A). */
  targetUrl: string;
  /** The path the attempts must be posted to: the events URL's (B), `{endpoint}/contact-jobs` (A, §4.1). */
  expectedPath: string;
  startedAt: number;
  startedMono: number;
  endedMono?: number;
  attempts: Attempt[];
  trigger?: TriggerOutcome;
  /** Cut short by Ctrl-C: what it got is no verdict on the sender. */
  interrupted?: boolean;
  /**
   * The longest cai's own event loop was held up while the scenario ran (ms): an arrival is timed when the loop
   * gets to it, so a held-up loop draws the measured waits out. The timing checks do not judge beyond a limit.
   */
  maxLagMs?: number;
}

/** Everything the checks judge. */
export interface SenderEvidence {
  interface: InterfaceId;
  /** B: the provider code expected in X-CAI-Provider. A: the platform id expected in X-CAI-Source. */
  identity: string;
  /** The secrets the signatures must verify with (any of them: a rotation overlap, §5.9). */
  secrets: readonly string[];
  waitMs: number;
  observeMs: number;
  /** The scenarios that ran, in catalogue order. */
  records: ScenarioRecord[];
}

export function recordOf(evidence: SenderEvidence, id: ScenarioId): ScenarioRecord | undefined {
  return evidence.records.find((record) => record.scenario.id === id);
}

/** Every attempt of every scenario run, late ones included. */
export function allAttempts(evidence: SenderEvidence): Attempt[] {
  return evidence.records.flatMap((record) => record.attempts);
}

/** `retry-5xx #3` */
export function label(attempt: Attempt): string {
  return `${attempt.scenario} #${attempt.number}${attempt.late ? ' (late)' : ''}`;
}

/** The body as a JSON value, or undefined when it is not JSON. */
export function documentOf(attempt: Pick<Attempt, 'body' | 'cut'>): unknown {
  if (attempt.cut) return undefined;
  try {
    return JSON.parse(attempt.body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The document's event_id (a job's or an event's), when it has a string one. */
export function eventIdOf(attempt: Pick<Attempt, 'body' | 'cut'>): string | undefined {
  return attempt.cut ? undefined : eventIdOfBody(attempt.body);
}

export function timestampOf(attempt: Attempt): string | undefined {
  return attempt.headers[Headers.timestamp];
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
