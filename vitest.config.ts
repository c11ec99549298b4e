import { defineConfig } from 'vitest/config';

// The zoo (test/zoo: independent implementations judged by the built binary) waits on backoffs, Retry-After and
// callbacks for minutes; it is its own step (`npm run test:zoo`, vitest.zoo.config.ts), run by .ci/run after `npm test`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/zoo/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
