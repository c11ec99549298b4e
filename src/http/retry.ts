/**
 * The retry policy of every sender of the toolkit (§7, §8), in one place: classification of an attempt's outcome,
 * Retry-After parsing, exponential backoff with jitter, the floor under a wait the receiver dictates, the
 * `--retry-for` budget, the decision to retry, the one attempt loop every sender runs (`retryLoop`: send-event,
 * send-job, replay, the batch sender, the provider mock's callbacks), the grouping of repeated answers into runs,
 * and the planned schedule printed by `--print-schedule`. The decisions are pure (callers pass `now` and `random`);
 * the loop takes its clock and its sleep from the caller, with real ones by default.
 * The rules themselves (which status retries, how Retry-After reads) are in src/spec.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { parseRetryAfter } from '../spec/retry-after.js';
import { classifyStatus, type StatusClass } from '../spec/statuses.js';
import { formatDuration } from '../duration.js';

/** Interactive default: two minutes. The README shows `--retry-for 24h` for CI, the spec's own period (§8). */
const DEFAULT_RETRY_FOR_MS = 2 * 60_000;

export const DEFAULT_RETRY_POLICY = {
  /** `--no-retry` sets this false: one attempt, whatever the outcome. */
  enabled: true,
  /** Attempts in total, the first included (`--max-attempts`). Infinity: bounded by `retryForMs` only. */
  maxAttempts: Number.POSITIVE_INFINITY,
  /** The whole delivery, first attempt to last, stays within this (`--retry-for`; §8 allows up to 24 h). */
  retryForMs: DEFAULT_RETRY_FOR_MS,
  /** The first backoff wait. */
  initialDelayMs: 1_000,
  /** No backoff wait is longer than this (a Retry-After is honoured even when longer). */
  maxDelayMs: 10 * 60_000,
  multiplier: 2,
  /** 0..1: each backoff wait is drawn uniformly from [wait × (1 − jitter), wait]. */
  jitter: 0.5,
  /**
   * A refused connection to this machine (nothing listens on a loopback port) ends the delivery at once: the
   * receiver is not running, and waiting minutes for it helps nobody at a terminal. The sending commands turn it
   * on unless the user asked to keep trying (`--retry-for` given); off by default, so a library caller or a mock's
   * callbacks keep the retry period of §8.
   */
  stopWhenNothingListens: false,
};

export type RetryPolicy = typeof DEFAULT_RETRY_POLICY;

const RESOLVED = new WeakSet<RetryPolicy>();

export function resolvePolicy(partial: Partial<RetryPolicy> = {}): RetryPolicy {
  // A policy resolved before is used as is: batch mode passes the same one for every document.
  if (RESOLVED.has(partial as RetryPolicy)) return partial as RetryPolicy;
  const policy = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(partial) };
  if (!(policy.maxAttempts >= 1)) policy.maxAttempts = 1;
  policy.jitter = Math.min(1, Math.max(0, policy.jitter));
  RESOLVED.add(policy);
  return policy;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What one attempt produced, as far as retrying is concerned. */
export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfter?: string }
  /** `nothingListens`: the connection was refused by this machine (a loopback address). */
  | { kind: 'error'; code: string; nothingListens?: boolean };

/** A status class of §7 (see src/spec/statuses.ts), or an error another attempt cannot fix: TLS, interrupted. */
type OutcomeClass = StatusClass | 'fatal';

/** Connection errors and time-outs retry like a 5xx (§8: retry by either side). */
const RETRYABLE_ERRORS = new Set(['timeout', 'unreachable', 'connection', 'proxy']);

export function classifyOutcome(outcome: AttemptOutcome): OutcomeClass {
  if (outcome.kind === 'error') return RETRYABLE_ERRORS.has(outcome.code) ? 'retryable' : 'fatal';
  return classifyStatus(outcome.status);
}

/** The nominal backoff before retry number `retry` (1 = the wait after the first attempt), before jitter. */
export function nominalBackoffMs(retry: number, policy: RetryPolicy): number {
  const wait = policy.initialDelayMs * policy.multiplier ** Math.max(0, retry - 1);
  return Math.min(policy.maxDelayMs, wait);
}

/** The jittered backoff: uniform in [nominal × (1 − jitter), nominal]. `random` returns [0, 1). */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const nominal = nominalBackoffMs(retry, policy);
  return Math.round(nominal * (1 - policy.jitter * random()));
}

type GiveUpReason = 'not-retryable' | 'disabled' | 'max-attempts' | 'retry-for' | 'nothing-listens';

export type RetryDecision =
  | { retry: true; delayMs: number; basis: 'retry-after' | 'backoff'; reason: string }
  | { retry: false; giveUp?: GiveUpReason; reason: string };

export interface DecisionInput {
  outcome: AttemptOutcome;
  /** Attempts made so far, the one just finished included. */
  attempts: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
  nowMs: number;
  policy: RetryPolicy;
  random?: () => number;
  /** The time-out of one attempt (`--timeout`): the next attempt needs room for it within --retry-for. */
  attemptTimeoutMs?: number;
}

/**
 * The least time a retry must have left for itself within --retry-for, after its wait: its own time-out, or 1 s
 * when the time-out is longer (the attempt's time-out is then cut to what is left, see `attemptTimeoutMs`), or a
 * tenth of a --retry-for under 10 s.
 */
function attemptRoomMs(timeoutMs: number, policy: RetryPolicy): number {
  return Math.min(timeoutMs, 1_000, policy.retryForMs / 10);
}

/** Whether to retry after an attempt, and after how long. */
export function decideRetry(input: DecisionInput): RetryDecision {
  const { outcome, attempts, elapsedMs, nowMs, policy } = input;
  const kind = classifyOutcome(outcome);
  if (kind === 'accepted') return { retry: false, reason: 'accepted' };
  if (kind === 'rejected')
    return { retry: false, giveUp: 'not-retryable', reason: `status ${statusOf(outcome)} is not retried (§7)` };
  if (kind === 'redirect') return { retry: false, giveUp: 'not-retryable', reason: 'redirects are not followed' };
  if (kind === 'fatal') return { retry: false, giveUp: 'not-retryable', reason: 'another attempt cannot fix this' };
  if (!policy.enabled) return { retry: false, giveUp: 'disabled', reason: 'retries are off' };
  if (outcome.kind === 'error' && outcome.nothingListens && policy.stopWhenNothingListens) {
    return { retry: false, giveUp: 'nothing-listens', reason: 'nothing listens on this port of this machine' };
  }
  if (attempts >= policy.maxAttempts)
    return { retry: false, giveUp: 'max-attempts', reason: `${attempts} attempt(s) made, the most allowed` };

  const retryAfter = outcome.kind === 'response' ? parseRetryAfter(outcome.retryAfter, nowMs) : undefined;
  const { delayMs, basis, reason } = waitBeforeRetry(retryAfter, backoffMs(attempts, policy, input.random));
  // The budget holds the next attempt too: its wait, and room for it to be answered or to time out.
  if (
    elapsedMs + delayMs + attemptRoomMs(input.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS, policy) >
    policy.retryForMs
  ) {
    return {
      retry: false,
      giveUp: 'retry-for',
      reason: `the next wait (${basis === 'retry-after' ? 'Retry-After ' : ''}${formatDuration(delayMs)}) and attempt would go past the retry period of ${formatDuration(policy.retryForMs)}`,
    };
  }
  return { retry: true, delayMs, basis, reason };
}

/**
 * The wait before a retry: the backoff, or the receiver's Retry-After when it asks for longer (§7: a 429 waits
 * "the number in the Retry-After header"; RFC 9110 §10.2.3: so may a 5xx). Never less than the backoff: a
 * Retry-After of 0, or a date in the past, is a floor of zero that would have the sender hammer a receiver that is
 * shedding load, so repeats of it back off exponentially like 5xx answers (§8).
 */
function waitBeforeRetry(
  retryAfterMs: number | undefined,
  backoff: number,
): { delayMs: number; basis: 'retry-after' | 'backoff'; reason: string } {
  if (retryAfterMs !== undefined && retryAfterMs >= backoff)
    return { delayMs: retryAfterMs, basis: 'retry-after', reason: `Retry-After ${formatDuration(retryAfterMs)}` };
  const raised =
    retryAfterMs === undefined
      ? ''
      : ` (Retry-After ${formatDuration(retryAfterMs)} is shorter: raised to the backoff)`;
  return { delayMs: backoff, basis: 'backoff', reason: `backoff ${formatDuration(backoff)}${raised}` };
}

/**
 * The time-out of one attempt: `--timeout`, cut to what is left of --retry-for (so the whole delivery, the last
 * attempt's time-out included, stays within it). With retries off, the time-out as given.
 */
export function attemptTimeoutMs(timeoutMs: number | undefined, policy: RetryPolicy, elapsedMs: number): number {
  const given = timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  if (!policy.enabled || !Number.isFinite(policy.retryForMs)) return given;
  return Math.min(given, Math.max(attemptRoomMs(given, policy), policy.retryForMs - elapsedMs));
}

/** `--timeout`'s default: connecting, the response headers, and any pause in the body, per attempt. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

function statusOf(outcome: AttemptOutcome): string {
  return outcome.kind === 'response' ? String(outcome.status) : outcome.code;
}

export interface RetryLoopOptions<A> {
  policy: RetryPolicy;
  /** `--timeout` (default DEFAULT_ATTEMPT_TIMEOUT_MS), cut for each attempt to what is left of --retry-for. */
  timeoutMs?: number;
  /** One attempt, with its time-out. */
  attempt(number: number, timeoutMs: number): Promise<A>;
  /** What the decision reads of an attempt; undefined ends the loop at once (the attempt was interrupted). */
  outcomeOf(attempt: A): AttemptOutcome | undefined;
  /** The decision after an attempt (default `decideRetry`); the provider mock's deliberately broken senders bend it. */
  decide?(input: DecisionInput): RetryDecision;
  /** Each attempt with its decision, before any wait. */
  onDecision?(attempt: A, decision: RetryDecision, number: number): void;
  /** Before each attempt and during each wait: when any is aborted, no further attempt is made. */
  stopSignals?: readonly (AbortSignal | undefined)[];
  /** Injectable for tests. Defaults: Date.now, a real timer, Math.random. */
  clock?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

interface RetryLoopEnd<A> {
  /** The last attempt made (none when stopped before the first). */
  last?: A;
  /** Its decision: absent when the loop was stopped or the attempt interrupted. */
  decision?: RetryDecision;
  attempts: number;
  /** The stop signal ended the loop, or the last attempt was interrupted. */
  stopped: boolean;
  elapsedMs: number;
}

/**
 * The one attempt loop of every sender: attempt, decide (§7, §8, the floor and the budget above), wait, again. Each
 * attempt's time-out is cut to what is left of --retry-for, so the delivery ends within it.
 */
export async function retryLoop<A>(options: RetryLoopOptions<A>): Promise<RetryLoopEnd<A>> {
  const { policy } = options;
  const stops = (options.stopSignals ?? []).filter((signal): signal is AbortSignal => signal !== undefined);
  const clock = options.clock ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const decide = options.decide ?? decideRetry;
  const started = clock();
  let last: A | undefined;
  for (let number = 1; ; number += 1) {
    if (stops.some((signal) => signal.aborted))
      return { last, attempts: number - 1, stopped: true, elapsedMs: clock() - started };
    last = await options.attempt(number, attemptTimeoutMs(options.timeoutMs, policy, clock() - started));
    const outcome = options.outcomeOf(last);
    const now = clock();
    if (outcome === undefined) return { last, attempts: number, stopped: true, elapsedMs: now - started };
    const decision = decide({
      outcome,
      attempts: number,
      elapsedMs: now - started,
      nowMs: now,
      policy,
      random: options.random,
      attemptTimeoutMs: options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
    });
    options.onDecision?.(last, decision, number);
    if (!decision.retry) return { last, decision, attempts: number, stopped: false, elapsedMs: now - started };
    try {
      // Retries are the rare path: a composite signal is made only here.
      await sleep(
        decision.delayMs,
        stops.length === 0 ? NEVER : stops.length === 1 ? (stops[0] as AbortSignal) : AbortSignal.any(stops),
      );
    } catch {
      // The stop signal ended the wait: the check above makes no further attempt.
    }
  }
}

const NEVER = new AbortController().signal;

async function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}

/**
 * The retries of one delivery grouped into runs of the same answer, so that a sender says each run once: its first
 * retry as it happens, then, when the run ends (another answer, or the delivery's end), one line for the rest of it.
 * A receiver answering 429 for an hour is two lines, not a thousand.
 */
export class RetryRuns<R> {
  private run: { key: string; first: R; last: R; count: number } | undefined;

  /** `say(retry)` for a first retry (or a lone repeat); `say(last, { first, count })` for the repeats of a run that ended. */
  constructor(private readonly say: (retry: R, repeats?: { first: R; count: number }) => void) {}

  /** A retry, and what identifies its answer (the status and Retry-After, or the error's code). */
  retry(key: string, retry: R): void {
    if (this.run?.key === key) {
      if (this.run.count === 0) this.run.first = retry;
      this.run.last = retry;
      this.run.count += 1;
      return;
    }
    this.end();
    this.run = { key, first: retry, last: retry, count: 0 };
    this.say(retry);
  }

  /** The delivery ended, or the answer changed: the repeats of the run so far, in one line. */
  end(): void {
    const run = this.run;
    this.run = undefined;
    // One repeat is said as it is; more, as one line.
    if (run?.count === 1) this.say(run.last);
    else if (run && run.count > 1) this.say(run.last, { first: run.first, count: run.count });
  }
}

export interface PlannedAttempt {
  /** 1-based. */
  attempt: number;
  /** The wait before this attempt: nominal (no jitter) and the jitter range. Zero for the first. */
  waitMs: number;
  waitMinMs: number;
  /** When this attempt starts, counted from the first, if attempts themselves took no time. */
  atMinMs: number;
  atMaxMs: number;
  /** False when jitter alone decides whether it fits within --retry-for. */
  certain: boolean;
}

export interface PlannedSchedule {
  policy: RetryPolicy;
  attempts: PlannedAttempt[];
  /** True when the list was cut at `limit` entries. */
  truncated: boolean;
}

/**
 * The schedule of attempts for back-to-back retryable failures (5xx, time-outs) without Retry-After:
 * what `--print-schedule` prints. Pure: no clock, no randomness (jitter is shown as a range).
 */
export function planSchedule(partial: Partial<RetryPolicy> = {}, limit = 1000): PlannedSchedule {
  const policy = resolvePolicy(partial);
  const attempts: PlannedAttempt[] = [{ attempt: 1, waitMs: 0, waitMinMs: 0, atMinMs: 0, atMaxMs: 0, certain: true }];
  if (!policy.enabled) return { policy, attempts, truncated: false };
  let atMin = 0;
  let atMax = 0;
  while (attempts.length < policy.maxAttempts) {
    if (attempts.length >= limit) return { policy, attempts, truncated: true };
    const retry = attempts.length;
    const waitMs = nominalBackoffMs(retry, policy);
    const waitMinMs = Math.round(waitMs * (1 - policy.jitter));
    if (atMin + waitMinMs > policy.retryForMs) break;
    atMin += waitMinMs;
    atMax += waitMs;
    attempts.push({
      attempt: retry + 1,
      waitMs,
      waitMinMs,
      atMinMs: atMin,
      atMaxMs: atMax,
      certain: atMax <= policy.retryForMs,
    });
  }
  return { policy, attempts, truncated: false };
}
