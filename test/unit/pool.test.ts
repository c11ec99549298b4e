import { describe, expect, it } from 'vitest';
import { pool } from '../../src/pool.js';

describe('pool: the one worker pool', () => {
  it('works through the items in order, at most `size` at once', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await pool([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('takes no item once stopped, and finishes the ones taken', async () => {
    const controller = new AbortController();
    const done: number[] = [];
    await pool(
      [0, 1, 2, 3, 4, 5],
      2,
      async (item, index) => {
        expect(index).toBe(item);
        if (item === 2) controller.abort();
        await new Promise((resolve) => setImmediate(resolve));
        done.push(item);
      },
      controller.signal,
    );
    expect(done.sort()).toEqual([0, 1, 2]);
  });

  it('runs nothing for no items', async () => {
    await pool([], 4, async () => {
      throw new Error('no item to work on');
    });
  });
});
