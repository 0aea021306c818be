import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The PostgreSQL half of `npm test`: the server suite again, every test server on a fresh database of
// the cluster PAYCTL_TEST_PG names (test/helpers/postgres.ts). Tests of SQLite's own machinery skip.
export default defineConfig({
  test: {
    include: ['test/server/**/*.test.ts'],
    exclude: ['node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    env: {
      PAYCTL_TEST_BACKEND: 'postgres',
      // A URL's default credentials file goes to the data folder: a throwaway one, never the user's.
      PAYCTL_DATA_DIR: mkdtempSync(join(tmpdir(), 'payctl-pg-data-')),
    },
  },
});
