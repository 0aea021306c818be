// Bounded retry in storage.transaction: which errors a fresh try can cure (per database), how many
// tries, the jittered backoff, and that SQLite retries its own transactions but never a group-commit
// batch (whose commit error answers every request in it).

import { describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { isRetryableTransactionError, withTransactionRetry, type RetryPolicy } from '../../src/server/db/retry.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import { onPostgres } from '../helpers/postgres.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('the classifier', () => {
  it.each([
    ['postgres', '40001', true],
    ['postgres', '40P01', true],
    ['postgres', '55P03', true],
    ['postgres', '23505', false],
    ['postgres', '57014', false],
    ['postgres', 'SQLITE_BUSY', false],
    ['sqlite', 'SQLITE_BUSY', true],
    ['sqlite', 'SQLITE_BUSY_SNAPSHOT', true],
    ['sqlite', 'SQLITE_CONSTRAINT_UNIQUE', false],
    ['sqlite', '40001', false],
  ] as const)('%s %s: retryable %s', (dialect, code, expected) => {
    expect(isRetryableTransactionError(dialect, withCode(code))).toBe(expected);
  });

  it('finds the code on an error that wraps it as its cause', () => {
    const wrapped = new Error('capture failed', { cause: withCode('40P01') });
    expect(isRetryableTransactionError('postgres', wrapped)).toBe(true);
    expect(isRetryableTransactionError('postgres', new Error('capture failed', { cause: new Error('no code') }))).toBe(false);
  });

  it('takes anything thrown, not only errors', () => {
    expect(isRetryableTransactionError('postgres', undefined)).toBe(false);
    expect(isRetryableTransactionError('postgres', '40001')).toBe(false);
    expect(isRetryableTransactionError('postgres', { code: '40001' })).toBe(true);
  });
});

/** A policy that records its waits instead of sleeping. */
function recordingPolicy(tries = 4): RetryPolicy & { waits: number[] } {
  const waits: number[] = [];
  return { tries, baseDelayMs: 10, random: () => 0.5, sleep: async (ms) => void waits.push(ms), waits };
}

describe('withTransactionRetry', () => {
  it('tries again after a retryable error, with a growing jittered wait, and answers with the try that worked', async () => {
    const policy = recordingPolicy();
    let tries = 0;
    const result = await withTransactionRetry(
      'postgres',
      async () => {
        tries += 1;
        if (tries < 3) throw withCode('40001');
        return 'done';
      },
      policy,
    );
    expect(result).toBe('done');
    expect(tries).toBe(3);
    expect(policy.waits).toEqual([5, 10]);
  });

  it('gives up after the last try with that try’s error', async () => {
    const policy = recordingPolicy(3);
    let tries = 0;
    const failing = withTransactionRetry(
      'postgres',
      async () => {
        tries += 1;
        throw withCode('40P01', `deadlock ${tries}`);
      },
      policy,
    );
    await expect(failing).rejects.toThrow('deadlock 3');
    expect(tries).toBe(3);
  });

  it('never retries any other error (a unique violation is the caller’s to handle)', async () => {
    const policy = recordingPolicy();
    let tries = 0;
    const failing = withTransactionRetry(
      'postgres',
      async () => {
        tries += 1;
        throw withCode('23505', 'duplicate key');
      },
      policy,
    );
    await expect(failing).rejects.toThrow('duplicate key');
    expect(tries).toBe(1);
    expect(policy.waits).toEqual([]);
  });
});

// SQLite only (the SQLite half runs it): SQLite's storage (postgres-storage.test.ts retries a real deadlock).
describe.skipIf(onPostgres)('storage.transaction on SQLite', () => {
  it('retries its own transaction on SQLITE_BUSY, rolling back the failed try', async () => {
    const opened = openDatabase(':memory:');
    try {
      opened.sqlite.exec('CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const policy = recordingPolicy();
      const storage = createSqliteStorage(opened.db, { groupCommit: true, retry: policy });
      let tries = 0;
      await storage.transaction({ name: 'test' }, async (trx) => {
        tries += 1;
        await trx.insertInto('settings').values({ key: `k${tries}`, value: 'v' }).execute();
        if (tries === 1) throw withCode('SQLITE_BUSY', 'database is locked');
      });
      expect(tries).toBe(2);
      expect(policy.waits).toHaveLength(1);
      // The first try's insert was rolled back; the second's committed.
      expect(await opened.db.selectFrom('settings').select('key').execute()).toEqual([{ key: 'k2' }]);
    } finally {
      await closeDatabase(opened);
    }
  });

  it('does not retry a batch (group commit answers its requests with the error)', async () => {
    const opened = openDatabase(':memory:');
    try {
      const policy = recordingPolicy();
      const storage = createSqliteStorage(opened.db, { groupCommit: true, retry: policy });
      let tries = 0;
      const failing = storage.transaction({ name: 'request', batch: true }, async () => {
        tries += 1;
        throw withCode('SQLITE_BUSY', 'database is locked');
      });
      await expect(failing).rejects.toThrow('database is locked');
      expect(tries).toBe(1);
      expect(policy.waits).toEqual([]);
    } finally {
      await closeDatabase(opened);
    }
  });
});
