// SQLite's storage gates (the SQLite run only): the root-handle guard, pragmas read back, savepoint
// journals in memory, migrations all or nothing.

import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Kysely, sql } from 'kysely';
import { applyPragmas, closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { BetterSqliteDialect } from '../../src/server/db/driver.js';
import type { Database } from '../../src/server/db/schema.js';
import { migrate } from '../../src/server/db/migrate.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import { startTestServer } from '../helpers/server.js';
import { onPostgres } from '../helpers/postgres.js';

describe('storage gates', () => {
  // SQLite only (the SQLite half runs it): SQLite's storage and driver (postgres-storage.test.ts covers PostgreSQL's guard).
  it.skipIf(onPostgres)('fails fast, instead of deadlocking, on a root-handle query inside a transaction', async () => {
    const opened = openDatabase(':memory:');
    try {
      await expect(
        createSqliteStorage(opened.db, { groupCommit: false }).transaction({ name: 'test' }, async () => opened.db.selectFrom('settings').selectAll().execute()),
      ).rejects.toThrow(/inside a transaction/);
      // The connection is free again afterwards.
      expect(await opened.db.selectFrom('schema_migrations').selectAll().execute().catch(() => 'no table')).toBe('no table');
      await opened.db.transaction().execute(async (trx) => {
        await trx.selectFrom('sqlite_master' as never).selectAll().execute();
      });
    } finally {
      await closeDatabase(opened);
    }
  });

  // SQLite only (the SQLite half runs it): the single SQLite connection's wait limit.
  it.skipIf(onPostgres)('refuses a query left waiting for the connection (the deadlock the guard catches in tests) and recovers', async () => {
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.defaultSafeIntegers(true);
    const db = new Kysely<Database>({ dialect: new BetterSqliteDialect(sqlite, { connectionWaitLimitMs: 200 }) });
    try {
      await sql`create table t (x integer)`.execute(db);
      // A bare Kysely transaction is outside the guard's scope, as every transaction is in serve.
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (1)`.execute(trx);
          await sql`select x from t`.execute(db);
        }),
      ).rejects.toThrow(/waited 200 ms for the database connection/);
      // The transaction rolled back and the connection serves the next holders in turn.
      expect((await sql<{ x: bigint }>`select x from t`.execute(db)).rows).toEqual([]);
      await db.transaction().execute(async (trx) => {
        await sql`insert into t values (2)`.execute(trx);
      });
      const [a, b] = await Promise.all([sql<{ x: bigint }>`select x from t`.execute(db), sql<{ x: bigint }>`select count(*) as x from t`.execute(db)]);
      expect(a.rows).toEqual([{ x: 2n }]);
      expect(b.rows).toEqual([{ x: 1n }]);
    } finally {
      await db.destroy();
      sqlite.close();
    }
  });

  // SQLite only (the SQLite half runs it): SQLite's pragmas.
  it.skipIf(onPostgres)('refuses to run when a pragma did not take', () => {
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.defaultSafeIntegers(true);
    // An in-memory database cannot use WAL: asked to behave as a file, the gate must refuse.
    expect(() => applyPragmas(sqlite, false)).toThrow(/journal_mode is memory, expected wal/);
    sqlite.close();
  });

  // SQLite only (the SQLite half runs it): SQLite's savepoint journal.
  it.skipIf(onPostgres)('keeps a savepoint\'s journal in memory: a request rewriting 400 KB opens no temporary file', async () => {
    // Group commit runs each request in a savepoint; past 64 KB SQLite would move the savepoint's
    // journal (the originals of the pages it changed) to a temporary file (etilqs_*) and write every
    // changed page there as well as to the WAL.
    const dir = mkdtempSync(join(tmpdir(), 'payctl-savepoint-'));
    const opened = openDatabase(join(dir, 'p.db'));
    const temporaryFiles = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
        } catch {
          return false;
        }
      }).length;
    try {
      const { sqlite } = opened;
      sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB)');
      const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (randomblob(1000))');
      sqlite.transaction(() => {
        for (let i = 0; i < 400; i += 1) insert.run();
      })();
      const before = temporaryFiles();
      sqlite.exec('BEGIN');
      sqlite.exec('SAVEPOINT request');
      sqlite.exec('UPDATE blobs SET body = randomblob(1000)');
      const during = temporaryFiles();
      sqlite.exec('ROLLBACK TO request');
      sqlite.exec('RELEASE request');
      sqlite.exec('COMMIT');
      expect(sqlite.pragma('temp_store', { simple: true })).toBe(2n);
      expect(during - before).toBe(0);
    } finally {
      await closeDatabase(opened);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // SQLite's pragmas: PostgreSQL has no file of its own to open.
  it.skipIf(onPostgres)('opens a file with WAL, synchronous=FULL, foreign keys and a busy timeout', async () => {
    const t = await startTestServer();
    try {
      const sqlite = new BetterSqlite3(t.dbPath, { readonly: true });
      expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      sqlite.close();
    } finally {
      await t.close();
    }
  });

  // SQLite only (the SQLite half runs it): migrates a SQLite database directly.
  it.skipIf(onPostgres)('migration 0010 turns stored REVERSED captures into REFUNDED with their reason', () => {
    const sqlite = new BetterSqlite3(':memory:');
    try {
      migrate(sqlite, '2026-01-01T00:00:00Z');
      sqlite.pragma('foreign_keys = OFF');
      const insert = sqlite.prepare(
        `INSERT INTO captures (id, account_id, order_id, reference_id, status, status_reason, currency, amount_minor, details, create_time, update_time)
         VALUES (?, 'A', 'O', 'default', ?, ?, 'USD', 100, '{}', 't', 't')`,
      );
      insert.run('C1', 'REVERSED', 'BUYER_COMPLAINT');
      insert.run('C2', 'REVERSED', null);
      insert.run('C3', 'COMPLETED', null);
      // As a database written before 0010: its record removed, the migration runs again.
      sqlite.exec('DELETE FROM schema_migrations WHERE id = 10');
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual([10]);
      expect(sqlite.prepare('SELECT id, status, status_reason FROM captures ORDER BY id').all()).toEqual([
        { id: 'C1', status: 'REFUNDED', status_reason: 'BUYER_COMPLAINT' },
        { id: 'C2', status: 'REFUNDED', status_reason: 'BUYER_COMPLAINT' },
        { id: 'C3', status: 'COMPLETED', status_reason: null },
      ]);
    } finally {
      sqlite.close();
    }
  });

  // SQLite only (the SQLite half runs it): migrates a SQLite database directly (postgres-storage.test.ts covers PostgreSQL's migration).
  it.skipIf(onPostgres)('migrates all or nothing: a failing migration leaves the database as it was', () => {
    const sqlite = new BetterSqlite3(':memory:');
    try {
      // A table that a later migration (invoicing) creates: that migration fails.
      sqlite.exec('CREATE TABLE invoices (id TEXT)');
      expect(() => migrate(sqlite, '2026-01-01T00:00:00Z')).toThrow(/invoices already exists/);
      const tables = () => (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
      expect(tables()).toEqual(['invoices']);
      sqlite.exec('DROP TABLE invoices');
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual(MIGRATIONS.map((migration) => migration.id));
      expect(tables()).toEqual(expect.arrayContaining(['accounts', 'invoices', 'schema_migrations']));
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});
