/**
 * A sender scenario whose timing cai's own lag left open is played again (conformance/run-sender.ts): only with a whole
 * wait left in the run, and a replay to which nothing came never replaces the play that had evidence.
 */
import { describe, expect, it } from 'vitest';
import type { Attempt, StageRecord } from '../../src/conformance/evidence.js';
import { type Scenario, scenario as scenarioNamed } from '../../src/conformance/listen/scenarios.js';
import { replayUndecided } from '../../src/conformance/run-sender.js';
import { summariseScenario } from '../../src/conformance/sender-stages.js';

const scenario = scenarioNamed('retry-5xx');

function record(id: string, attempts: number): StageRecord {
  return {
    scenario,
    id,
    targetUrl: 'http://127.0.0.1:1/',
    expectedPath: '/',
    startedAt: 0,
    startedMono: 0,
    attempts: Array.from({ length: attempts }, () => ({}) as Attempt),
  };
}

/** A stage player that answers with the records given, in turn, and counts its plays. */
function player(...answers: StageRecord[]) {
  const played: string[] = [];
  return {
    played,
    stages: {
      play: async (_entry: Scenario, options?: { id?: string }) => {
        played.push(options?.id ?? '');
        const next = answers.shift();
        if (next === undefined) throw new Error('played more often than the test expected');
        return next;
      },
    } as never,
  };
}

const options = (waitMs: number) => ({ signal: new AbortController().signal, waitMs });
/** A review that finds every play worth another (or only those `worth` names), and no unrepeated breach. */
const review = (worth: (plays: readonly StageRecord[]) => boolean = () => true) => ({
  worthAgain: worth,
  unrepeated: () => [],
  unconfirmed: () => [],
});
const always = review();

describe('replaying a scenario whose timing verdict was left open', () => {
  it('plays it again at most twice while it stays open, and keeps the last play with its count', async () => {
    const { stages, played } = player(record('again-1', 3), record('again-2', 3));
    const records = [record('first', 3)];
    await replayUndecided(stages, records, options(1_000), performance.now() + 60_000, always);
    expect(played).toEqual(['retry-5xx-again-1', 'retry-5xx-again-2']);
    expect(records[0]?.id).toBe('again-2');
    expect(records[0]?.replays).toBe(2);
    // The report names the scenario, not the play: a reader finds `retry-5xx`, played 3 times, the last shown.
    const summary = summariseScenario({ ...record('retry-5xx-again-2', 0), replays: 2 }, 'B');
    expect(summary.id).toBe('retry-5xx');
    expect(summary.plays).toBe(3);
    expect(summariseScenario(record('retry-5xx', 0), 'B')).not.toHaveProperty('plays');
  });

  it('stops once a replay decides it', async () => {
    const { stages, played } = player(record('again-1', 3));
    const records = [record('first', 3)];
    await replayUndecided(
      stages,
      records,
      options(1_000),
      performance.now() + 60_000,
      review((plays) => plays.at(-1)?.id === 'first'),
    );
    expect(played).toHaveLength(1);
    expect(records[0]?.id).toBe('again-1');
  });

  it('asks with every play of the scenario so far; keeps what the last did not repeat, and what it broke alone', async () => {
    const { stages, played } = player(record('again-1', 3), record('again-2', 3));
    const records = [record('first', 3)];
    const asked: string[][] = [];
    const breach = {
      term: 'growth',
      actual:
        'retry-5xx #1: waits 431 ms, 529 ms, 471 ms, 259 ms, 294 ms: the last two 0.8× the two shortest of the first three',
    };
    await replayUndecided(stages, records, options(1_000), performance.now() + 60_000, {
      worthAgain: (plays) => {
        asked.push(plays.map((play) => play.id));
        return plays.length < 3;
      },
      unrepeated: (first, replay) => (first.id === 'first' && replay.id === 'again-2' ? [breach] : []),
      unconfirmed: (plays) => (plays.length === 3 ? ['fresh'] : []),
    });
    expect(asked).toEqual([['first'], ['first', 'again-1']]);
    expect(played).toEqual(['retry-5xx-again-1', 'retry-5xx-again-2']);
    expect(records[0]?.id).toBe('again-2');
    expect(records[0]?.unrepeated).toEqual([breach]);
    expect(records[0]?.unconfirmed).toEqual(['fresh']);
  });

  it('does not start a replay without a whole wait left before the run ends', async () => {
    const { stages, played } = player();
    const records = [record('first', 3)];
    await replayUndecided(stages, records, options(5_000), performance.now() + 4_000, always);
    expect(played).toEqual([]);
    expect(records[0]?.id).toBe('first');
    expect(records[0]?.replays).toBeUndefined();
  });

  it('keeps the play before a replay to which nothing came as the evidence, and plays no more', async () => {
    const { stages, played } = player(record('again-1', 0));
    const records = [record('first', 3)];
    await replayUndecided(stages, records, options(1_000), performance.now() + 60_000, always);
    expect(played).toHaveLength(1);
    expect(records[0]?.id).toBe('first');
    expect(records[0]?.attempts).toHaveLength(3);
  });

  it('plays nothing once the run is interrupted', async () => {
    const { stages, played } = player();
    const controller = new AbortController();
    controller.abort();
    const records = [record('first', 3)];
    await replayUndecided(
      stages,
      records,
      { signal: controller.signal, waitMs: 1 },
      performance.now() + 60_000,
      always,
    );
    expect(played).toEqual([]);
  });
});
