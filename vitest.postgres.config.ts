import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The PostgreSQL half of `npm test` (scripts/test-postgres.mjs): the server suite again, every test
// server on a fresh database of the cluster PAYCTL_TEST_PG names (test/helpers/postgres.ts). Tests of
// SQLite's own machinery skip, each saying why.

// A URL's default credentials file goes to the data folder: a throwaway one, never the user's.
const dataDir = mkdtempSync(join(tmpdir(), 'payctl-pg-data-'));
process.env.PAYCTL_PG_TEST_DATA_DIR = dataDir;

export default defineConfig({
  test: {
    include: ['test/server/**/*.test.ts'],
    exclude: ['node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    env: { PAYCTL_TEST_BACKEND: 'postgres', PAYCTL_DATA_DIR: dataDir },
  },
});
