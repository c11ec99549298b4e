/**
 * The stateful phase's verdict on a receiver's silence: a request unanswered within the time-out that the
 * conversation, run once more, did not meet again is left open (a loaded machine may have been the cause), never a
 * failure; silence seen again, or any other breach seen once, is a failure as before.
 */
import { describe, expect, it } from 'vitest';
import { judgeRelation } from '../../src/conformance/explore/checks.js';
import type { Exploration, Shrunk } from '../../src/conformance/explore/receiver.js';
import type { Exchange } from '../../src/conformance/evidence.js';
import { receiverRelations } from '../../src/spec/model/relations.js';

const relation = receiverRelations('A')[0] as NonNullable<ReturnType<typeof receiverRelations>[number]>;

function exchange(answer: { status: number } | { error: string }): Exchange {
  return {
    request: {
      url: 'http://127.0.0.1:1/contact-jobs',
      headers: {},
      body: Buffer.from('{}'),
      recipe: { body: Buffer.from('{}') },
      sentAtMs: 0,
    },
    headers: {},
    body: Buffer.alloc(0),
    latencyMs: 10_000,
    answeredAtMs: 0,
    rateLimitedRetries: 0,
    ...('status' in answer
      ? { status: answer.status }
      : { error: { code: answer.error, message: 'no response from http://127.0.0.1:1 within 10 s' } }),
  };
}

function exploration(confirmed: boolean, answer: Exchange, outOfTime = false): Exploration {
  const shrunk: Shrunk = {
    breach: {
      relation: relation.id as Shrunk['breach']['relation'],
      step: 1,
      expected: '2xx (accepted)',
      actual: 'no response',
      clauses: [],
    },
    steps: [{ text: 'a valid job', exchanges: [answer] }],
    confirmed,
    shrinks: 0,
    ...(outOfTime ? { outOfTime: true as const } : {}),
  };
  return {
    seed: 1,
    conversations: 1,
    durationMs: 1,
    requests: 1,
    evidence: { [relation.id]: 1 },
    failures: { [relation.id]: shrunk },
    timedOut: false,
  } as Exploration;
}

describe('a receiver silent past the time-out in the stateful phase', () => {
  it('once, then answered when the conversation ran again: not judged', () => {
    const outcome = judgeRelation(relation, exploration(false, exchange({ error: 'timeout' })));
    expect(outcome.verdict).toBe('not-judged');
    expect(outcome.actual).toContain('no answer within the time-out once');
  });

  it('again when the conversation ran once more: failed', () => {
    expect(judgeRelation(relation, exploration(true, exchange({ error: 'timeout' }))).verdict).toBe('failed');
  });

  it('once, and no time left to run it again: not judged, saying so', () => {
    const outcome = judgeRelation(relation, exploration(false, exchange({ error: 'timeout' }), true));
    expect(outcome.verdict).toBe('not-judged');
    expect(outcome.actual).toContain('the time to run the conversation again ran out first');
  });

  it('any other breach seen once and not run again for want of time: failed, saying it was not shrunk', () => {
    const outcome = judgeRelation(relation, exploration(false, exchange({ status: 500 }), true));
    expect(outcome.verdict).toBe('failed');
    expect(outcome.actual).toContain('(seen once: the time to play it again ran out first)');
    expect(outcome.notes?.[0]).toBe('the conversation as it first broke it (the time to shrink it ran out first):');
    expect(outcome.notes?.[1]).toContain('a valid job');
  });

  it('any other breach seen once (a wrong status, a cut connection): failed, as before', () => {
    expect(judgeRelation(relation, exploration(false, exchange({ status: 500 }))).verdict).toBe('failed');
    expect(judgeRelation(relation, exploration(false, exchange({ error: 'connection' }))).verdict).toBe('failed');
  });
});
