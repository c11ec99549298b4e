import { defineConfig } from 'vitest/config';
import { SLOW_CONFORMANCE_FILES } from './vitest.config.js';

// `npm run test:conformance`: the suite judged against whole implementations (the self-tests against every broken
// mock and sender, the reproductions each fault's run writes, run against it and a correct mock, and the zoo). Two
// files at a time: each runs dozens of timed runs at once itself, mostly waiting on backoffs, Retry-After and
// callbacks (the step used 1.15 of its 2 cores so; the same CPU time over 33 minutes one file at a time), and no verdict of theirs may depend on an
// idle machine: the timing judgements name what a busy one leaves open (not judged) instead of guessing.
export default defineConfig({
  test: {
    include: [...SLOW_CONFORMANCE_FILES],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
