// inSerializableTransaction holds SQLite's write lock from BEGIN (IMMEDIATE), before any write: a
// second connection (another process, in production) cannot take it meanwhile. A plain transaction
// that has only read holds no write lock (the positive control).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type OpenedDatabase } from '../../src/server/db/connection.js';
import { inSerializableTransaction, inTransaction } from '../../src/server/db/transaction.js';

let dir: string;
let opened: OpenedDatabase;
let other: Database.Database;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-serializable-'));
  const path = join(dir, 'lock.db');
  opened = openDatabase(path);
  opened.sqlite.exec("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO settings VALUES ('a', '1')");
  other = new Database(path, { timeout: 0 });
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

describe('a serializable transaction', () => {
  it('holds the write lock from its first read until it ends', async () => {
    const seen = await inSerializableTransaction(opened.db, async (trx) => {
      const row = await trx.selectFrom('settings').select('value').where('key', '=', 'a').executeTakeFirst();
      return { value: row?.value, otherCanWrite: otherCanWrite() };
    });
    expect(seen).toEqual({ value: '1', otherCanWrite: false });
    expect(otherCanWrite()).toBe(true);
  });

  it('unlike a plain transaction that has only read (positive control)', async () => {
    const seen = await inTransaction(opened.db, async (trx) => {
      await trx.selectFrom('settings').select('value').where('key', '=', 'a').executeTakeFirst();
      return otherCanWrite();
    });
    expect(seen).toBe(true);
  });
});
