import { defineConfig } from 'vitest/config';
import { SLOW_CONFORMANCE_FILES } from './vitest.config.js';

// `npm run test:conformance`: the suite judged against whole implementations (the self-tests against every broken
// mock and sender, the reproductions each fault's run writes, run against it and a correct mock, and the zoo), one file at a time: each runs dozens of timed runs at once itself, and their
// verdicts on timing (backoff, Retry-After, the window's edges) need the CPU to themselves.
export default defineConfig({
  test: {
    include: [...SLOW_CONFORMANCE_FILES],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
