import { defineConfig } from 'vitest/config';
import { longestFirst } from './test/helpers/longest-first.js';

/**
 * Judged against whole implementations, with verdicts on timing: the self-tests against every broken mock and
 * sender, every reproduction run against the broken mock and a correct one, and the zoo (test/zoo: independent implementations judged by the built binary). They run as a step of
 * their own (`npm run test:conformance`, vitest.conformance.config.ts), two files at a time, beside `npm test` in CI.
 */
export const SLOW_CONFORMANCE_FILES = [
  'test/zoo/**/*.test.ts',
  'test/conformance/self-test.test.ts',
  'test/conformance/explore.test.ts',
  'test/conformance/sender-self-test.test.ts',
  'test/conformance/sender-e2e.test.ts',
  'test/conformance/sender-replay.test.ts',
  'test/conformance/repro-verified.test.ts',
];

/**
 * npm test's longest files (in CI, 2 cores, four at once), started first: begun last, the docs' examples and the
 * end-to-end runs of the built binary each ran alone at the end for up to a minute.
 */
const LONGEST_FIRST = [
  'typecheck',
  'install.e2e',
  'action.e2e',
  'readme-walkthrough',
  'terminal',
  'bundle.e2e',
  'terminal.e2e',
  'doc-examples',
  'conformance.e2e',
  'conformance',
  'conformance-report',
  'library.e2e',
  'fast-validate',
  'workflows',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...SLOW_CONFORMANCE_FILES, '**/node_modules/**'],
    // A time-out stops a test that hangs; it is never the verdict on one that is slow. The work of each test is
    // sized by a count (documents drawn, runs of a property, requests sent), and a shared 2-core machine under load
    // takes ten times as long for it: npm test passes with four busy loops beside it.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Each worker keeps one module registry for the files it runs: the files import the same src/ graph, and
    // evaluating it again for each of 205 files cost a quarter of the CPU (quiet 2-core machine: 283 s and 354 CPU-s
    // isolated, 230 s and 274 CPU-s shared). No test stubs globals or mocks modules; one that leaked state through a
    // module would fail here, as a race in send-event --output's error did.
    isolate: false,
    // Most of the suite waits on sockets, timers and child processes, not on the CPU: four files at once on a
    // 2-core machine (vitest's default is one fewer than the cores, here 1) keep npm test within its budget (on a
    // quiet 2-core machine: 310 s with three, 247 s with four, 1.3 cores busy).
    maxWorkers: 4,
    sequence: { sequencer: longestFirst(LONGEST_FIRST) },
  },
});
