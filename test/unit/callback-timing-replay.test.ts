/**
 * A callback job whose events' timing cai's own lag left open is sent again as a new job
 * (conformance/checks/receiver/callback-jobs.ts), as a sender run plays such a scenario again: at most twice, the
 * last job with events is the evidence, and a job whose timing was judged is never sent again.
 */
import { describe, expect, it } from 'vitest';
import { bodyDigest, type Attempt, type StageRecord } from '../../src/conformance/evidence.js';
import { scenario, type ScriptedAnswer } from '../../src/conformance/listen/scenarios.js';
import { retryAfterOf } from '../../src/conformance/listen/recorder.js';
import { scenarioJob } from '../../src/conformance/checks/receiver/callback-jobs.js';
import type { CallbackHarness, JobStage } from '../../src/conformance/probe/callbacks.js';
import type { ProbeScope } from '../../src/conformance/probe/scope.js';
import { deliveryKeyOf } from '../../src/spec/model/sender.js';
import { sign } from '../../src/signing/sign.js';

const SECRET = 'callback-replay-secret-0123456789';
const NOW = 1_767_225_600_000;
const STAGE = scenario('callback-429');

/** The first event of the job, answered 429 (Retry-After: 1) at 0 ms, then its retry at `retryAtMs`. */
function attempt(number: number, atMs: number, slackMs = 0): Attempt {
  const body = Buffer.from(JSON.stringify({ event: 'job.closed', event_id: 'evt-1', lead_id: 'lead-1' }));
  const timestamp = String(Math.floor((NOW + atMs) / 1000));
  const answer = STAGE.script[Math.min(number, STAGE.script.length) - 1] as ScriptedAnswer;
  const retryAfter =
    answer.kind === 'error' && answer.retryAfter
      ? retryAfterOf(answer.retryAfter, NOW + atMs + 5, 1_000 + atMs + 5)
      : undefined;
  return {
    stage: STAGE.id,
    number,
    key: deliveryKeyOf({ body, cut: false }, number, bodyDigest),
    arrivedAt: NOW + atMs,
    arrivedMono: 1_000 + atMs,
    answeredMono: 1_000 + atMs + 5,
    method: 'POST',
    path: '/cb',
    httpVersion: '1.1',
    headers: {
      'content-type': 'application/json',
      'x-cai-provider': 'acme',
      'x-cai-timestamp': timestamp,
      'x-cai-signature': sign(SECRET, timestamp, body),
    },
    rawHeaders: [],
    body,
    bodyBytes: body.length,
    cut: false,
    answer,
    ...(retryAfter ? { retryAfter } : {}),
    late: false,
    ...(slackMs ? { slackMs } : {}),
  };
}

/** A job's stage: its first event answered 429, retried 1.1 s later; `open`: cai's loop may have been 0.8 s late to it. */
function job(name: string, shape: 'open' | 'judged' | 'silent'): JobStage {
  const attempts = shape === 'silent' ? [] : [attempt(1, 0), attempt(2, 1_100, shape === 'open' ? 800 : 0)];
  const record: StageRecord = {
    scenario: STAGE,
    id: name,
    targetUrl: `http://127.0.0.1:1/cb/${name}`,
    expectedPath: `/cb/${name}`,
    startedAt: NOW,
    startedMono: 1_000,
    endedMono: 20_000,
    attempts,
  };
  return { name, doc: {}, leadId: 'lead-1', record, startedAt: NOW, waitedMs: 0 };
}

/** A probe scope whose callback harness answers each job sent with the next shape given, and names the jobs sent. */
function scopeAnswering(...shapes: ('open' | 'judged' | 'silent')[]) {
  const sent: string[] = [];
  const harness = {
    gather: async (request: { name: string }) => {
      sent.push(request.name);
      const shape = shapes.shift();
      if (shape === undefined) throw new Error('more jobs sent than the test expected');
      return job(request.name, shape);
    },
    evidence: (stages: readonly JobStage[]) => ({
      interface: 'B' as const,
      identity: 'acme',
      secrets: [SECRET],
      waitMs: 10_000,
      observeMs: 1_000,
      records: stages.map((stage) => stage.record),
    }),
  } as unknown as CallbackHarness;
  const memo = new Map<string, Promise<unknown>>();
  const scope = {
    session: {
      callback: harness,
      signal: new AbortController().signal,
      once: <T>(key: string, factory: () => Promise<T>) => {
        if (!memo.has(key)) memo.set(key, factory());
        return memo.get(key) as Promise<T>;
      },
    },
  } as unknown as ProbeScope;
  return { scope, sent };
}

describe("a callback job whose timing cai's lag left open", () => {
  it('is sent again as a new job, at most twice, and the last is the evidence', async () => {
    const { scope, sent } = scopeAnswering('open', 'open', 'open');
    const stage = await scenarioJob(scope, 'callback-429');
    expect(sent).toEqual(['answered-429', 'answered-429-again-1', 'answered-429-again-2']);
    expect(stage?.name).toBe('answered-429-again-2');
    expect(stage?.record.replays).toBe(2);
  });

  it('is sent no more once a job decides it, and every check reading the scenario gets that job', async () => {
    const { scope, sent } = scopeAnswering('open', 'judged');
    const [first, second] = await Promise.all([scenarioJob(scope, 'callback-429'), scenarioJob(scope, 'callback-429')]);
    expect(sent).toEqual(['answered-429', 'answered-429-again-1']);
    expect(first?.name).toBe('answered-429-again-1');
    expect(second).toBe(first);
  });

  it('keeps the job before a new one to which no event came', async () => {
    const { scope, sent } = scopeAnswering('open', 'silent');
    const stage = await scenarioJob(scope, 'callback-429');
    expect(sent).toHaveLength(2);
    expect(stage?.name).toBe('answered-429');
    expect(stage?.record.attempts).toHaveLength(2);
  });

  it('whose timing was judged is sent once', async () => {
    const { scope, sent } = scopeAnswering('judged');
    await scenarioJob(scope, 'callback-429');
    expect(sent).toEqual(['answered-429']);
  });
});
