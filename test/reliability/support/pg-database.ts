// The PostgreSQL half of the reliability suite: PAYCTL_TEST_PG names a server
// (postgres://USER@HOST:PORT/DB, e.g. from scripts/pg-cluster.sh); each test file makes its own
// fresh database in it and drops it at the end.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

/** The server URL, or undefined when the PostgreSQL half is to be skipped. */
export const TEST_PG: string | undefined = process.env.PAYCTL_TEST_PG?.trim() || undefined;

/** One line for the skipped run's output. */
export const PG_SKIP_REASON = 'PAYCTL_TEST_PG is not set (a postgres:// server URL, e.g. from scripts/pg-cluster.sh start DIR): PostgreSQL tests skipped';

export interface TestDatabase {
  /** The new database's URL (the server URL with its database name replaced). */
  url: string;
  name: string;
  /** Drops it, closing whatever connections are left (killed replicas' included). */
  drop(): Promise<void>;
}

/** `serverUrl` pointing at database `name`, its query string (sslmode ...) kept. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database `payctl_<prefix>_<random>` on the PAYCTL_TEST_PG server. */
export async function createTestDatabase(prefix: string, serverUrl: string | undefined = TEST_PG): Promise<TestDatabase> {
  if (!serverUrl) throw new Error(PG_SKIP_REASON);
  const name = `payctl_${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  // template0, so that nothing added to template1 on a shared server leaks in.
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}" TEMPLATE template0`));
  return {
    url: databaseUrl(serverUrl, name),
    name,
    drop: () => onServer(serverUrl, async (client) => void (await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}

/**
 * Arguments every `payctl serve` on one test database gets besides --db: one credentials file (in
 * `dir`), so that every replica, and every restart, opens the same webhook signing key.
 */
export function pgServeArgs(dir: string): string[] {
  return ['--credentials-file', join(dir, 'credentials.json')];
}
