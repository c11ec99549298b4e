/**
 * The project type-checks (`tsc -p tsconfig.json --noEmit`, what `npm run typecheck` runs: src, test and bench). A file
 * of the suite, so that npm test's workers run it beside the others, not before them all: on a quiet 2-core machine it
 * is 17 s of one core, which the suite's waiting on sockets and timers leaves room for. Its bound is a hang's, not the
 * suite's 300 s: in CI, beside the conformance files, it took 294 s once and over 300 s the next time.
 */
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { ROOT, spawnProcess } from '../helpers/cli.js';

it('tsc -p tsconfig.json --noEmit reports no error', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = await spawnProcess(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], {
    cwd: ROOT,
    env: process.env,
  });
  expect(`${result.stdout}${result.stderr}`).toBe('');
  expect(result.code).toBe(0);
}, 900_000);
