/** `cai load`'s live line (src/commands/load/summary.ts): redrawn on a terminal; in a CI log, a plain line every 10 s. */
import { describe, expect, it } from 'vitest';
import { LiveLine } from '../../src/commands/load/summary.js';
import type { CommandContext } from '../../src/commands/common/runner.js';
import type { LoadProgress } from '../../src/load/run.js';
import { Output } from '../../src/output/output.js';
import { fakeIo } from '../helpers/cli.js';

const progress = (elapsedMs: number): LoadProgress => ({
  elapsedMs,
  plannedMs: 30_000,
  sent: elapsedMs / 50,
  inFlight: 1,
  dropped: 0,
  statuses: new Map([[202, elapsedMs / 50 - 1]]),
  failed: 0,
  p99Ms: undefined,
});

async function run(quiet: boolean): Promise<string> {
  const io = fakeIo();
  const output = await Output.create(io, { json: false, quiet, debug: false });
  const line = new LiveLine({ io, output } as unknown as CommandContext);
  // Four a second, as the run reports it, over 25 s.
  for (let elapsed = 250; elapsed <= 25_000; elapsed += 250) line.update(progress(elapsed));
  line.stop();
  expect(io.out()).toBe('');
  return io.err();
}

describe('LiveLine without a terminal', () => {
  it('says how the run goes every 10 s, plainly', async () => {
    const lines = (await run(false)).trimEnd().split('\n');
    expect(lines).toEqual([
      'progress: 10 s/30 s · 200 sent (20/s) · 1 in flight · 202: 199',
      'progress: 20 s/30 s · 400 sent (20/s) · 1 in flight · 202: 399',
    ]);
  });

  it('says nothing with --quiet', async () => {
    expect(await run(true)).toBe('');
  });
});
