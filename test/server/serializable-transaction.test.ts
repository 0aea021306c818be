// Storage.transaction on SQLite: `exclusive` holds the write lock from BEGIN (IMMEDIATE), before any
// write, so a second connection (another process, in production) cannot take it meanwhile; a plain
// transaction that has only read holds no write lock (the positive control); `batch` joins group
// commit; and a throw rolls back whichever kind it is.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type OpenedDatabase } from '../../src/server/db/connection.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import type { Storage, TxOptions } from '../../src/server/db/storage.js';
import { onPostgres } from '../helpers/postgres.js';

let dir: string;
let opened: OpenedDatabase;
let other: Database.Database;
let storage: Storage;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-serializable-'));
  const path = join(dir, 'lock.db');
  opened = openDatabase(path);
  opened.sqlite.exec("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO settings VALUES ('a', '1')");
  other = new Database(path, { timeout: 0 });
  storage = createSqliteStorage(opened.db, { groupCommit: true });
});
afterAll(async () => {
  other.close();
  await closeDatabase(opened);
  rmSync(dir, { recursive: true, force: true });
});

/** Whether the other connection can take the write lock right now (no waiting). */
function otherCanWrite(): boolean {
  try {
    other.exec('BEGIN IMMEDIATE');
    other.exec('ROLLBACK');
    return true;
  } catch (error) {
    expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
    return false;
  }
}

const valueOf = (key: string): string | undefined =>
  (other.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;

// SQLite only (the SQLite half runs it): the write lock of a SQLite file (postgres-storage.test.ts covers the advisory lock).
describe.skipIf(onPostgres)('an exclusive transaction', () => {
  it('holds the write lock from its first read until it ends', async () => {
    const seen = await storage.transaction({ name: 'test', exclusive: 'test' }, async (trx) => {
      const row = await trx.selectFrom('settings').select('value').where('key', '=', 'a').executeTakeFirst();
      return { value: row?.value, otherCanWrite: otherCanWrite() };
    });
    expect(seen).toEqual({ value: '1', otherCanWrite: false });
    expect(otherCanWrite()).toBe(true);
  });

  it('unlike a plain transaction that has only read (positive control)', async () => {
    const seen = await storage.transaction({ name: 'test' }, async (trx) => {
      await trx.selectFrom('settings').select('value').where('key', '=', 'a').executeTakeFirst();
      return otherCanWrite();
    });
    expect(seen).toBe(true);
  });
});

// SQLite only (the SQLite half runs it): SQLite's storage on a file (postgres-storage.test.ts covers PostgreSQL's guard).
describe.skipIf(onPostgres)('every kind of transaction', () => {
  const kinds: Array<[string, TxOptions]> = [
    ['plain', { name: 'test' }],
    ['exclusive', { name: 'test', exclusive: 'test' }],
    ['batch', { name: 'test', batch: true }],
  ];

  it.each(kinds)('%s: commits what the work wrote when it resolves', async (kind, opts) => {
    const answer = await storage.transaction(opts, async (trx) => {
      await trx.insertInto('settings').values({ key: `kept.${kind}`, value: kind }).execute();
      return 'done';
    });
    expect(answer).toBe('done');
    expect(valueOf(`kept.${kind}`)).toBe(kind);
  });

  it.each(kinds)('%s: rolls back everything the work wrote when it throws', async (kind, opts) => {
    const outcome = storage.transaction(opts, async (trx) => {
      await trx.insertInto('settings').values({ key: `gone.${kind}`, value: kind }).execute();
      expect(await trx.selectFrom('settings').select('value').where('key', '=', `gone.${kind}`).executeTakeFirst()).toEqual({ value: kind });
      throw new Error('refused');
    });
    await expect(outcome).rejects.toThrow('refused');
    expect(valueOf(`gone.${kind}`)).toBeUndefined();
  });

  it('a query on the root handle inside any of them fails at once (the guard)', async () => {
    for (const [, opts] of kinds) {
      await expect(storage.transaction(opts, () => opened.db.selectFrom('settings').selectAll().execute())).rejects.toThrow(/inside a transaction/);
    }
  });
});

// SQLite only (the SQLite half runs it): group commit is SQLite's.
describe.skipIf(onPostgres)('a batch transaction', () => {
  /** Four batch transactions started in one turn, the third refused: what each storage commits. */
  async function fourAtOnce(on: Storage, prefix: string): Promise<{ statuses: string[]; batches: number; requests: number; stored: unknown[] }> {
    const before = on.stats();
    const keys = [1, 2, 3, 4].map((n) => `${prefix}${n}`);
    const outcomes = await Promise.allSettled(
      keys.map((key, index) =>
        on.transaction({ name: 'test', batch: true }, async (trx) => {
          await trx.insertInto('settings').values({ key, value: key }).execute();
          if (index === 2) throw new Error('refused');
          return key;
        }),
      ),
    );
    const after = on.stats();
    return {
      statuses: outcomes.map((outcome) => outcome.status),
      batches: after.batches - before.batches,
      requests: after.requests - before.requests,
      stored: keys.map(valueOf),
    };
  }

  it('joins group commit: requests started together share one COMMIT, each in its own savepoint', async () => {
    expect(await fourAtOnce(storage, 'g')).toEqual({
      statuses: ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      batches: 1,
      requests: 4,
      stored: ['g1', 'g2', undefined, 'g4'],
    });
  });

  it('with group commit off, each commits alone (positive control for the count above)', async () => {
    expect(await fourAtOnce(createSqliteStorage(opened.db, { groupCommit: false }), 'u')).toEqual({
      statuses: ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
      batches: 3,
      requests: 4,
      stored: ['u1', 'u2', undefined, 'u4'],
    });
  });

  it('plain transactions are not group commit\'s: they leave its counts alone', async () => {
    const before = storage.stats();
    await storage.transaction({ name: 'test' }, async (trx) => trx.insertInto('settings').values({ key: 'plain', value: 'p' }).execute());
    expect(valueOf('plain')).toBe('p');
    expect(storage.stats()).toEqual(before);
  });

  it('cannot also be exclusive', async () => {
    await expect(storage.transaction({ name: 'test', batch: true, exclusive: 'test' }, async () => 1)).rejects.toThrow(/cannot be combined/);
  });
});
