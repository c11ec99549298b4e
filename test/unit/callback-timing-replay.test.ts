/**
 * A callback job whose events' timing cai's own lag left open is sent again as a new job
 * (conformance/checks/receiver/callback-jobs.ts), as a sender run plays such a scenario again: at most twice, the
 * last job with events is the evidence, and a job whose timing was judged is never sent again.
 */
import { describe, expect, it } from 'vitest';
import type { Attempt, StageRecord } from '../../src/conformance/evidence.js';
import { scenario, type ScriptedAnswer } from '../../src/conformance/listen/scenarios.js';
import { scenarioJob } from '../../src/conformance/checks/receiver/callback-jobs.js';
import type { CallbackHarness, JobStage } from '../../src/conformance/probe/callbacks.js';
import type { ProbeScope } from '../../src/conformance/probe/scope.js';
import { recordedAttempt } from '../helpers/attempts.js';

const SECRET = 'callback-replay-secret-0123456789';
const NOW = 1_767_225_600_000;
const STAGE = scenario('callback-429');

/**
 * The first event of the job (answered 429, Retry-After: 1) or its retry, arriving `atMs` after the job's answer; the
 * answer is the script's `answered`-th (by default the attempt's place), and the event `eventId`.
 */
function attempt(number: number, atMs: number, slackMs = 0, timestamp?: string, eventId = 'evt-1', answered = number) {
  const answer = STAGE.script[Math.min(answered, STAGE.script.length) - 1] as ScriptedAnswer;
  const doc = { event: 'job.closed', event_id: eventId, lead_id: 'lead-1' };
  const recorded = recordedAttempt({
    stage: STAGE.id,
    number,
    startedAt: NOW,
    atMs,
    doc,
    answer,
    secret: SECRET,
    path: '/cb',
    ...(timestamp !== undefined ? { timestamp } : {}),
  });
  return (slackMs ? { ...recorded, slackMs } : recorded) as Attempt;
}

type Shape = 'open' | 'judged' | 'silent' | 'stale';

/**
 * A job's stage: its first event answered 429, retried 1.1 s later; `open`: cai's loop may have been 0.8 s late to it;
 * `stale`: retried 2.5 s later under the first attempt's timestamp (as a provider held up between signing and sending
 * brings it), while another event of the job, answered 429 too, was retried 2.1 s later signed afresh.
 */
function job(name: string, shape: Shape): JobStage {
  const attempts =
    shape === 'silent'
      ? []
      : shape === 'stale'
        ? [
            attempt(1, 0),
            attempt(2, 2_500, 0, String(NOW / 1000)),
            attempt(3, 3_000, 0, undefined, 'evt-2', 1),
            attempt(4, 5_100, 0, undefined, 'evt-2', 2),
          ]
        : [attempt(1, 0), attempt(2, 1_100, shape === 'open' ? 800 : 0)];
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
function scopeAnswering(...shapes: Shape[]) {
  const sent: string[] = [];
  const leads: unknown[] = [];
  const harness = {
    gather: async (request: { name: string; build(callbackUrl: string): Record<string, unknown> }) => {
      sent.push(request.name);
      leads.push(request.build(`http://127.0.0.1:1/cb/${request.name}`).lead_id);
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
    eventId: () => 'evt-job',
    session: {
      runId: 'run-1',
      config: {},
      callback: harness,
      signal: new AbortController().signal,
      once: <T>(key: string, factory: () => Promise<T>) => {
        if (!memo.has(key)) memo.set(key, factory());
        return memo.get(key) as Promise<T>;
      },
    },
  } as unknown as ProbeScope;
  return { scope, sent, leads };
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

  it("sent again keeps its lead: the run's main job and the returning contact's stay two jobs of one lead", async () => {
    const { scope, sent, leads } = scopeAnswering('open', 'judged');
    await scenarioJob(scope, 'callbacks');
    expect(sent).toEqual(['callbacks', 'callbacks-again-1']);
    expect(leads[0]).toMatch(/^00[0-9]{20}$/);
    expect(leads).toEqual([leads[0], leads[0]]);
  });

  it('broke a term a held-up provider fakes (a stale signature): sent again once, and a breach not repeated is a note', async () => {
    const { scope, sent } = scopeAnswering('stale', 'judged');
    const stage = await scenarioJob(scope, 'callback-429');
    expect(sent).toEqual(['answered-429', 'answered-429-again-1']);
    expect(stage?.record.replays).toBe(1);
    expect(stage?.record.unrepeated).toEqual([
      { term: 'fresh', actual: expect.stringMatching(/attempt #2 arrived 2\.50 s after #1 with the same timestamp/) },
    ]);
  });

  it('broke it again on the second job: the breach stands, and no third job is sent', async () => {
    const { scope, sent } = scopeAnswering('stale', 'stale');
    const stage = await scenarioJob(scope, 'callback-429');
    expect(sent).toEqual(['answered-429', 'answered-429-again-1']);
    expect(stage?.record.unrepeated).toBeUndefined();
  });

  it('whose timing was judged is sent once', async () => {
    const { scope, sent } = scopeAnswering('judged');
    await scenarioJob(scope, 'callback-429');
    expect(sent).toEqual(['answered-429']);
  });
});
