import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  backoffMs,
  classifyOutcome,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  nominalBackoffMs,
  planSchedule,
  resolvePolicy,
} from '../../src/http/retry.js';
import { parseRetryAfter } from '../../src/spec/retry-after.js';

const NOW = Date.parse('2026-11-22T13:00:00Z');

describe('classifyOutcome (§7)', () => {
  it.each([
    [200, 'accepted'],
    [202, 'accepted'],
    [204, 'accepted'],
    [301, 'redirect'],
    [302, 'redirect'],
    [307, 'redirect'],
    [400, 'rejected'],
    [401, 'rejected'],
    [404, 'rejected'],
    [413, 'rejected'],
    [429, 'rate-limited'],
    [500, 'retryable'],
    [502, 'retryable'],
    [503, 'retryable'],
  ] as const)('status %i is %s', (status, expected) => {
    expect(classifyOutcome({ kind: 'response', status })).toBe(expected);
  });

  it('retries time-outs and connection failures, not TLS or interruption', () => {
    expect(classifyOutcome({ kind: 'error', code: 'timeout' })).toBe('retryable');
    expect(classifyOutcome({ kind: 'error', code: 'unreachable' })).toBe('retryable');
    expect(classifyOutcome({ kind: 'error', code: 'connection' })).toBe('retryable');
    expect(classifyOutcome({ kind: 'error', code: 'tls' })).toBe('fatal');
    expect(classifyOutcome({ kind: 'error', code: 'aborted' })).toBe('fatal');
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });
  it('reads an HTTP-date relative to now, a past date meaning 0', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 13:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:00 GMT', NOW)).toBe(0);
  });
  it('ignores what is neither', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
  });
});

describe('backoff', () => {
  it('doubles from 1 s up to the cap', () => {
    const policy = resolvePolicy();
    expect([1, 2, 3, 4].map((n) => nominalBackoffMs(n, policy))).toEqual([1000, 2000, 4000, 8000]);
    expect(nominalBackoffMs(40, policy)).toBe(policy.maxDelayMs);
  });
  it('stays within [nominal × (1 − jitter), nominal] for any random value', () => {
    const policy = resolvePolicy();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (retry, r) => {
        const wait = backoffMs(retry, policy, () => r);
        const nominal = nominalBackoffMs(retry, policy);
        return wait <= nominal && wait >= Math.floor(nominal * (1 - policy.jitter));
      }),
    );
  });
});

describe('decideRetry', () => {
  const policy = resolvePolicy({ retryForMs: 60_000 });
  const base = { attempts: 1, elapsedMs: 0, nowMs: NOW, policy, random: () => 0 };

  it('waits Retry-After on 429', () => {
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 429, retryAfter: '3' } })).toMatchObject({
      retry: true,
      delayMs: 3000,
      basis: 'retry-after',
    });
  });
  it('backs off on 429 without Retry-After', () => {
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 429 } })).toMatchObject({
      retry: true,
      delayMs: 1000,
      basis: 'backoff',
    });
  });
  it('backs off on 5xx, honouring a longer Retry-After', () => {
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 503 } })).toMatchObject({
      retry: true,
      delayMs: 1000,
    });
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 503, retryAfter: '9' } })).toMatchObject({
      retry: true,
      delayMs: 9000,
      basis: 'retry-after',
    });
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 503, retryAfter: '0' } })).toMatchObject({
      retry: true,
      delayMs: 1000,
      basis: 'backoff',
    });
  });
  it('does not retry 4xx, redirects, or with retries off', () => {
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 400 } })).toMatchObject({
      retry: false,
      giveUp: 'not-retryable',
    });
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 302 } })).toMatchObject({
      retry: false,
      giveUp: 'not-retryable',
    });
    expect(
      decideRetry({ ...base, policy: resolvePolicy({ enabled: false }), outcome: { kind: 'response', status: 503 } }),
    ).toMatchObject({ retry: false, giveUp: 'disabled' });
  });
  it('stops at --max-attempts and before passing --retry-for', () => {
    const limited = resolvePolicy({ maxAttempts: 3 });
    expect(
      decideRetry({ ...base, attempts: 3, policy: limited, outcome: { kind: 'response', status: 503 } }),
    ).toMatchObject({ retry: false, giveUp: 'max-attempts' });
    expect(decideRetry({ ...base, elapsedMs: 59_500, outcome: { kind: 'response', status: 503 } })).toMatchObject({
      retry: false,
      giveUp: 'retry-for',
    });
    expect(decideRetry({ ...base, outcome: { kind: 'response', status: 429, retryAfter: '3600' } })).toMatchObject({
      retry: false,
      giveUp: 'retry-for',
    });
  });
});

describe('planSchedule (--print-schedule)', () => {
  it('plans the default two minutes', () => {
    const plan = planSchedule();
    expect(plan.attempts.map((a) => a.waitMs)).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 32_000, 64_000]);
    expect(plan.attempts.at(-1)?.certain).toBe(false);
    expect(plan.attempts.every((a) => a.atMinMs <= DEFAULT_RETRY_POLICY.retryForMs)).toBe(true);
  });
  it('is one attempt with retries off, and stops at --max-attempts', () => {
    expect(planSchedule({ enabled: false }).attempts).toHaveLength(1);
    expect(planSchedule({ maxAttempts: 4 }).attempts).toHaveLength(4);
  });
  it('covers 24 h with waits capped at 10 min', () => {
    const plan = planSchedule({ retryForMs: 24 * 3_600_000 });
    expect(plan.truncated).toBe(false);
    expect(Math.max(...plan.attempts.map((a) => a.waitMs))).toBe(600_000);
    expect(plan.attempts.at(-1)?.atMinMs).toBeLessThanOrEqual(24 * 3_600_000);
  });
});
