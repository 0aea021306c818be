// The PostgreSQL half of the test run: with PAYCTL_TEST_PG set to a server URL (scripts/pg-cluster.sh)
// and PAYCTL_TEST_BACKEND=postgres, every test server gets a database of its own, made in a few
// milliseconds as a copy of a migrated template, and dropped when the server closes.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { defaultCredentialsFile } from '../../src/server/credentials-path.js';
import { closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import { openPostgresStorage } from '../../src/server/db/postgres-storage.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import { isPostgresUrl, type Storage } from '../../src/server/db/storage.js';

/** The cluster's URL (its maintenance database), when the PostgreSQL half can run at all. */
export const testPostgresUrl: string | undefined = process.env.PAYCTL_TEST_PG || undefined;

/** This run puts the server suite on PostgreSQL (`npm test` sets it for its second half). */
export const onPostgres = process.env.PAYCTL_TEST_BACKEND === 'postgres' && testPostgresUrl !== undefined;

// A server on a URL keeps its credentials file in the data folder (one per database, as a SQLite
// file's is `<db>.credentials.json`): in this run a throwaway folder, never the user's.
if (onPostgres && !process.env.PAYCTL_DATA_DIR) process.env.PAYCTL_DATA_DIR = mkdtempSync(join(tmpdir(), 'payctl-pg-data-'));

/** Where a server started on `dbPath` without --credentials-file keeps its credentials. */
export function credentialsFileOf(dbPath: string): string {
  return isPostgresUrl(dbPath) ? defaultCredentialsFile(dbPath) : `${dbPath}.credentials.json`;
}

/** The storage of a test server's database while the server is down (a SQLite file or a PostgreSQL URL). */
export async function openStorageAt(dbPath: string): Promise<Storage> {
  if (isPostgresUrl(dbPath)) return openPostgresStorage(dbPath, new Date().toISOString(), { poolSize: 2 });
  const opened = openDatabase(dbPath);
  return createSqliteStorage(opened.db, { groupCommit: false, close: () => closeDatabase(opened) });
}

export function databaseUrl(name: string, base: string = testPostgresUrl ?? ''): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a connection to the cluster's maintenance database (to create and drop databases). */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>, serverUrl: string | undefined = testPostgresUrl): Promise<T> {
  if (serverUrl === undefined) throw new Error('PAYCTL_TEST_PG is not set');
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Named from the migrations' text: a run with other migrations makes (and uses) its own template. */
const templateName = `payctl_tmpl_${createHash('sha256').update(JSON.stringify(MIGRATIONS)).digest('hex').slice(0, 16)}`;
let templateReady: Promise<void> | undefined;

/**
 * The migrated template, made once per cluster and set of migrations: under an advisory lock (test
 * files run in parallel processes), migrated under another name and renamed into place, so a
 * half-made template is never copied.
 */
function ensureTemplate(): Promise<void> {
  templateReady ??= withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [templateName]);
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateName]);
      if (found.rowCount === 1) return;
      const building = `${templateName}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${quoted(building)}`);
      const storage = await openPostgresStorage(databaseUrl(building), '2026-01-01T00:00:00Z', { poolSize: 1 });
      await storage.close();
      await admin.query(`ALTER DATABASE ${quoted(building)} RENAME TO ${quoted(templateName)}`);
      await admin.query(`ALTER DATABASE ${quoted(templateName)} WITH IS_TEMPLATE true`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [templateName]);
    }
  });
  templateReady.catch(() => {
    templateReady = undefined;
  });
  return templateReady;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new database with every migration applied (a copy of the template); `drop()` removes it. */
export async function freshTestDatabase(): Promise<TestDatabase> {
  await ensureTemplate();
  const name = `t_${process.pid}_${randomBytes(5).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${quoted(name)} TEMPLATE ${quoted(templateName)}`));
  return {
    url: databaseUrl(name),
    name,
    drop: async () => {
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`));
      rmSync(credentialsFileOf(databaseUrl(name)), { force: true });
    },
  };
}

/**
 * A new database with nothing in it (no migrations): for tests of migrating itself, and for servers
 * started as processes. From template0 with byte-order text (nothing added to template1 on a shared
 * server leaks in); `drop()` removes it, closing whatever connections are left.
 */
export async function emptyTestDatabase(prefix = 't', serverUrl: string | undefined = testPostgresUrl): Promise<TestDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${randomBytes(5).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${quoted(name)} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`), serverUrl);
  return {
    url: databaseUrl(name, serverUrl),
    name,
    drop: () => withAdmin(async (admin) => void (await admin.query(`DROP DATABASE IF EXISTS ${quoted(name)} WITH (FORCE)`)), serverUrl),
  };
}
