/**
 * cai's loop clock: how early an arrival its event loop gets to may have come. On a loop on time, at once; after a
 * hold, since the loop was last free, however many late beats the hold spans (a starved cai read requests sent at once
 * 1 to 4 s late, every beat late meanwhile), until two turns on time in a row show the backlog read.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let now = 0;

beforeEach(() => {
  now = 10_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.resetModules();
});

/** The clock, fresh, and a beat at each moment given (the interval's callback run as a late loop would run it). */
async function clock() {
  const module = await import('../../src/http/loop-clock.js');
  const stop = module.useLoopClock();
  const beatAt = (...moments: number[]) => {
    for (const moment of moments) {
      now = moment;
      vi.advanceTimersToNextTimer();
    }
  };
  return { ...module, stop, beatAt };
}

describe('the loop clock', () => {
  it('on a loop on time, an arrival came at once', async () => {
    const { slackAt, beatAt, stop } = await clock();
    beatAt(10_005, 10_010, 10_015, 10_020);
    expect(slackAt(10_023)).toBe(0);
    stop();
  });

  it('after one late beat, the arrivals read next may have come during the hold', async () => {
    const { slackAt, heldAt, beatAt, stop } = await clock();
    beatAt(10_005, 10_010);
    const before = heldAt(10_010);
    beatAt(10_510);
    expect(slackAt(10_512)).toBe(512);
    // One turn on time is not enough: a new connection's request is read in the turn after the one that accepted it.
    beatAt(10_515);
    expect(slackAt(10_517)).toBe(517);
    beatAt(10_520);
    expect(slackAt(10_522)).toBe(0);
    expect(heldAt(10_522) - before).toBe(500);
    stop();
  });

  it('a hold of many late beats: an arrival may have come at any moment since the loop was last free', async () => {
    const { slackAt, beatAt, stop } = await clock();
    beatAt(10_005, 10_010, 10_310, 10_620, 10_930, 11_240, 11_550);
    expect(slackAt(11_551)).toBe(1_551);
    stop();
  });
});
