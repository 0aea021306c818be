import { defineConfig } from 'vitest/config';

// The reliability and security suite (npm run test:reliability): crashes, races, hostile input,
// other tenants. Kept out of `npm test`; CI runs it after. Budget: under 15 minutes on 2 cores.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ['default'],
  },
});
