/**
 * A wait the receiver dictates has a floor and a budget (§7, §8): Retry-After 0, negative or in the past waits the
 * backoff and grows like a 5xx backoff on repeats; --retry-for holds the last attempt's time-out; every sender runs
 * the one loop (retryLoop), the provider mock's broken senders included; a run of the same answer is said once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deliver } from '../../src/http/deliver.js';
import {
  attemptTimeoutMs,
  decideRetry,
  resolvePolicy,
  retryLoop,
  RetryRuns,
  type AttemptOutcome,
} from '../../src/http/retry.js';
import { createEventSender } from '../../src/mock/sender.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const NOW = Date.parse('2026-11-22T13:00:00Z');
let servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

/** The attempts a sender makes in `windowMs` of simulated time against a receiver that always answers `outcome`. */
async function attemptsIn(windowMs: number, outcome: AttemptOutcome): Promise<number> {
  let tick = NOW;
  const end = await retryLoop({
    policy: resolvePolicy({ retryForMs: windowMs }),
    clock: () => tick,
    sleep: async (ms) => {
      tick += ms;
    },
    random: () => 0,
    attempt: async () => outcome,
    outcomeOf: (answer) => answer,
  });
  return end.attempts;
}

describe('the floor under a wait the receiver dictates', () => {
  const policy = resolvePolicy({ retryForMs: 24 * 3_600_000 });
  const base = { elapsedMs: 0, nowMs: NOW, policy, random: () => 0 };

  it('Retry-After 0, a past date or a negative number waits the backoff, growing on repeats', () => {
    for (const retryAfter of ['0', 'Thu, 01 Jan 1970 00:00:00 GMT', '-5', undefined]) {
      const waits = [1, 2, 3, 4].map((attempts) =>
        decideRetry({ ...base, attempts, outcome: { kind: 'response', status: 429, retryAfter } }),
      );
      expect(waits.map((decision) => (decision.retry ? decision.delayMs : 0))).toEqual([1000, 2000, 4000, 8000]);
    }
  });

  it('a Retry-After longer than the backoff is waited as asked', () => {
    expect(
      decideRetry({ ...base, attempts: 1, outcome: { kind: 'response', status: 429, retryAfter: '30' } }),
    ).toMatchObject({ retry: true, delayMs: 30_000, basis: 'retry-after' });
    expect(
      decideRetry({ ...base, attempts: 1, outcome: { kind: 'response', status: 429, retryAfter: '0' } }),
    ).toMatchObject({
      retry: true,
      delayMs: 1000,
      basis: 'backoff',
      reason: 'backoff 1 s (Retry-After 0 ms is shorter: raised to the backoff)',
    });
  });

  it('Retry-After: 0 gets a handful of attempts in 10 s, not thousands', async () => {
    // Before: every attempt followed the last at once (3 252 attempts in 10 s measured against a loopback receiver).
    expect(await attemptsIn(10_000, { kind: 'response', status: 429, retryAfter: '0' })).toBe(4);
    expect(
      await attemptsIn(10_000, { kind: 'response', status: 429, retryAfter: 'Thu, 01 Jan 1970 00:00:00 GMT' }),
    ).toBe(4);
  });
});

describe('the --retry-for budget', () => {
  it('holds room for the next attempt: no retry that could only start at the very end', () => {
    const policy = resolvePolicy({ retryForMs: 10_000 });
    const outcome: AttemptOutcome = { kind: 'response', status: 503 };
    // 8.5 s elapsed, a 1 s wait: 0.5 s would be left, less than the attempt needs.
    expect(
      decideRetry({
        outcome,
        attempts: 1,
        elapsedMs: 8_500,
        nowMs: NOW,
        policy,
        random: () => 0,
        attemptTimeoutMs: 10_000,
      }),
    ).toMatchObject({ retry: false, giveUp: 'retry-for' });
    expect(
      decideRetry({
        outcome,
        attempts: 1,
        elapsedMs: 7_500,
        nowMs: NOW,
        policy,
        random: () => 0,
        attemptTimeoutMs: 10_000,
      }),
    ).toMatchObject({ retry: true });
  });

  it("cuts an attempt's time-out to what is left of it", () => {
    const policy = resolvePolicy({ retryForMs: 10_000 });
    expect(attemptTimeoutMs(10_000, policy, 0)).toBe(10_000);
    expect(attemptTimeoutMs(10_000, policy, 7_000)).toBe(3_000);
    expect(attemptTimeoutMs(10_000, policy, 9_900)).toBe(1_000);
    expect(attemptTimeoutMs(undefined, policy, 8_000)).toBe(2_000);
    expect(attemptTimeoutMs(10_000, resolvePolicy({ enabled: false, retryForMs: 1_000 }), 0)).toBe(10_000);
  });

  it('a receiver that never answers: the delivery ends within --retry-for, the last attempt cut short', async () => {
    const server = await startScriptedServer([{ status: 202, delayMs: 60_000 }]);
    servers.push(server);
    const result = await deliver(
      { url: server.url, body: Buffer.from('{}'), secret: 's', headers: {} },
      { timeoutMs: 10_000, retry: { retryForMs: 1_500 } },
    );
    expect(result.outcome).toBe('failed');
    // One attempt, whose time-out was --retry-for's 1.5 s, not --timeout's 10 s.
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]?.error?.message).toContain('within 1.5 s');
  });
});

describe("the provider mock's callback sender", () => {
  for (const faults of [[], ['callback-retry-stale-signature']]) {
    it(`waits the floor on Retry-After: 0 (${faults.length ? faults.join() : 'the standard sender'})`, async () => {
      const server = await startScriptedServer([{ status: 429, headers: { 'retry-after': '0' } }]);
      servers.push(server);
      const send = createEventSender({ retry: { initialDelayMs: 20, retryForMs: 1_000 }, faults: new Set(faults) });
      const delivery = await send(
        { url: server.url, body: Buffer.from('{"event_id":"e1"}'), secret: 's', headers: {} },
        new AbortController().signal,
      );
      expect(delivery.outcome).toBe('failed');
      // 20, 40, 80, 160, 320 ms (halved at most by jitter): at most 8 attempts in 1 s; before, hundreds.
      expect(server.requests.length).toBeGreaterThan(2);
      expect(server.requests.length).toBeLessThanOrEqual(8);
    });
  }
});

describe('runs of the same answer', () => {
  it('say the first retry, then the rest of the run in one line when it ends', () => {
    const said: string[] = [];
    const runs = new RetryRuns<number>((attempt, repeats) =>
      said.push(repeats ? `${repeats.first}-${attempt} x${repeats.count}` : `#${attempt}`),
    );
    for (let attempt = 1; attempt <= 50; attempt += 1) runs.retry('429', attempt);
    runs.retry('503', 51);
    runs.retry('503', 52);
    runs.end();
    runs.end();
    expect(said).toEqual(['#1', '2-50 x49', '#51', '#52']);
  });
});
