// The PostgreSQL half of the reliability suite: PAYCTL_TEST_PG names a server
// (postgres://USER@HOST:PORT/DB, e.g. from scripts/pg-cluster.sh); each test file makes its own
// fresh database in it and drops it at the end.

import { join } from 'node:path';
import { emptyTestDatabase, type TestDatabase } from '../../helpers/postgres.js';

/** The server URL, or undefined when the PostgreSQL half is to be skipped. */
export const TEST_PG: string | undefined = process.env.PAYCTL_TEST_PG?.trim() || undefined;

/** One line for the skipped run's output. */
export const PG_SKIP_REASON = 'PAYCTL_TEST_PG is not set (a postgres:// server URL, e.g. from scripts/pg-cluster.sh start DIR): PostgreSQL tests skipped';

export type { TestDatabase } from '../../helpers/postgres.js';

/** A fresh, empty database `payctl_<prefix>_...` on the PAYCTL_TEST_PG server (test/helpers/postgres.ts). */
export function createTestDatabase(prefix: string, serverUrl: string | undefined = TEST_PG): Promise<TestDatabase> {
  if (!serverUrl) throw new Error(PG_SKIP_REASON);
  return emptyTestDatabase(`payctl_${prefix}`, serverUrl);
}

/**
 * Arguments every `payctl serve` on one test database gets besides --db: one credentials file (in
 * `dir`), so that every replica, and every restart, opens the same webhook signing key.
 */
export function pgServeArgs(dir: string): string[] {
  return ['--credentials-file', join(dir, 'credentials.json')];
}
