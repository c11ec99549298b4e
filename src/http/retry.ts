/**
 * The retry policy of both senders (§7, §8), as pure functions: classification of an attempt's outcome,
 * Retry-After parsing, exponential backoff with jitter, the decision to retry, and the planned schedule
 * printed by `--print-schedule`. No I/O and no clock of its own: callers pass `now` and `random`.
 * The rules themselves (which status retries, how Retry-After reads) are in src/spec.
 */
import { parseRetryAfter } from '../spec/retry-after.js';
import { classifyStatus, type StatusClass } from '../spec/statuses.js';

export interface RetryPolicy {
  /** `--no-retry` sets this false: one attempt, whatever the outcome. */
  enabled: boolean;
  /** Attempts in total, the first included (`--max-attempts`). Infinity: bounded by `retryForMs` only. */
  maxAttempts: number;
  /** The whole delivery, first attempt to last, stays within this (`--retry-for`; §8 allows up to 24 h). */
  retryForMs: number;
  /** The first backoff wait. */
  initialDelayMs: number;
  /** No backoff wait is longer than this (a Retry-After is honoured even when longer). */
  maxDelayMs: number;
  multiplier: number;
  /** 0..1: each backoff wait is drawn uniformly from [wait × (1 − jitter), wait]. */
  jitter: number;
  /**
   * A refused connection to this machine (nothing listens on a loopback port) ends the delivery at once: the
   * receiver is not running, and waiting minutes for it helps nobody at a terminal. The sending commands turn it
   * on unless the user asked to keep trying (`--retry-for` given); off by default, so a library caller or a mock's
   * callbacks keep the retry period of §8.
   */
  stopWhenNothingListens: boolean;
}

/** Interactive default: two minutes. The README shows `--retry-for 24h` for CI, the spec's own period (§8). */
const DEFAULT_RETRY_FOR_MS = 2 * 60_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  enabled: true,
  maxAttempts: Number.POSITIVE_INFINITY,
  retryForMs: DEFAULT_RETRY_FOR_MS,
  initialDelayMs: 1_000,
  maxDelayMs: 10 * 60_000,
  multiplier: 2,
  jitter: 0.5,
  stopWhenNothingListens: false,
};

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

interface DecisionInput {
  outcome: AttemptOutcome;
  /** Attempts made so far, the one just finished included. */
  attempts: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
  nowMs: number;
  policy: RetryPolicy;
  random?: () => number;
}

/** Whether to retry after an attempt, and after how long. */
export function decideRetry(input: DecisionInput): RetryDecision {
  const { outcome, attempts, elapsedMs, nowMs, policy } = input;
  const kind = classifyOutcome(outcome);
  if (kind === 'accepted') return { retry: false, reason: 'accepted' };
  if (kind === 'rejected') return { retry: false, giveUp: 'not-retryable', reason: `status ${statusOf(outcome)} is not retried (§7)` };
  if (kind === 'redirect') return { retry: false, giveUp: 'not-retryable', reason: 'redirects are not followed' };
  if (kind === 'fatal') return { retry: false, giveUp: 'not-retryable', reason: 'another attempt cannot fix this' };
  if (!policy.enabled) return { retry: false, giveUp: 'disabled', reason: 'retries are off (--no-retry)' };
  if (outcome.kind === 'error' && outcome.nothingListens && policy.stopWhenNothingListens) {
    return { retry: false, giveUp: 'nothing-listens', reason: 'nothing listens on this port of this machine' };
  }
  if (attempts >= policy.maxAttempts) return { retry: false, giveUp: 'max-attempts', reason: `${attempts} attempt(s) made, the --max-attempts limit` };

  const retryAfter = outcome.kind === 'response' ? parseRetryAfter(outcome.retryAfter, nowMs) : undefined;
  const backoff = backoffMs(attempts, policy, input.random);
  let delayMs: number;
  let basis: 'retry-after' | 'backoff';
  if (kind === 'rate-limited' && retryAfter !== undefined) {
    // §7: 429 → retry after the number in Retry-After.
    delayMs = retryAfter;
    basis = 'retry-after';
  } else if (retryAfter !== undefined && retryAfter > backoff) {
    // A 5xx with Retry-After (RFC 9110): honoured when it asks for more than the backoff.
    delayMs = retryAfter;
    basis = 'retry-after';
  } else {
    delayMs = backoff;
    basis = 'backoff';
  }
  if (elapsedMs + delayMs > policy.retryForMs) {
    return {
      retry: false,
      giveUp: 'retry-for',
      reason: `the next wait (${basis === 'retry-after' ? 'Retry-After ' : ''}${formatDuration(delayMs)}) would go past --retry-for ${formatDuration(policy.retryForMs)}`,
    };
  }
  return { retry: true, delayMs, basis, reason: basis === 'retry-after' ? `Retry-After ${formatDuration(delayMs)}` : `backoff ${formatDuration(delayMs)}` };
}

function statusOf(outcome: AttemptOutcome): string {
  return outcome.kind === 'response' ? String(outcome.status) : outcome.code;
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
    attempts.push({ attempt: retry + 1, waitMs, waitMinMs, atMinMs: atMin, atMaxMs: atMax, certain: atMax <= policy.retryForMs });
  }
  return { policy, attempts, truncated: false };
}

/** `850 ms`, `2 s`, `1.5 s`, `4 min`, `2 h 30 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'unlimited';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) {
    const s = ms / 1000;
    return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  }
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  const parts = [h ? `${h} h` : '', m ? `${m} min` : '', s ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ');
}
