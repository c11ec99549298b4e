import { defineConfig } from 'vitest/config';

// `npm run test:zoo`: only the zoo (see vitest.config.ts for why it is a step of its own).
export default defineConfig({
  test: {
    include: ['test/zoo/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
