/** The phase's conversations drawn a few at a time are fc.sample's, in order: a seed still replays its run. */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawLazily } from '../../src/conformance/explore/draw.js';
import { pool } from '../../src/pool.js';

describe('drawLazily', () => {
  it('yields exactly fc.sample(arbitrary, { seed, numRuns }), whatever the count', () => {
    const arbitrary = fc.array(fc.record({ id: fc.string(), n: fc.integer(), kind: fc.constantFrom('a', 'b') }), {
      maxLength: 6,
    });
    for (const [seed, count] of [
      [1, 1],
      [42, 7],
      [-5, 8],
      [2_147_483_647, 9],
      [99, 601],
    ] as const) {
      expect([...drawLazily(arbitrary, seed, count)]).toEqual(fc.sample(arbitrary, { seed, numRuns: count }));
    }
    expect([...drawLazily(fc.nat(), 3, 0)]).toEqual([]);
  });

  it('draws only what the pool takes: a halted pool leaves the rest undrawn', async () => {
    let drawn = 0;
    const counted = fc.nat().map((value) => {
      drawn += 1;
      return value;
    });
    const taken: number[] = [];
    await pool(
      drawLazily(counted, 7, 600),
      2,
      async (value) => void taken.push(value),
      () => taken.length >= 10,
    );
    expect(taken).toEqual(fc.sample(fc.nat(), { seed: 7, numRuns: 10 }));
    expect(drawn).toBeLessThan(40);
  });
});
