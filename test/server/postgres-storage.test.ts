// Storage on PostgreSQL (the PostgreSQL run only): migrations once under an advisory lock and a
// newer schema refused; integers as bigint; the root-handle guard; `exclusive` as an advisory lock;
// a real deadlock retried invisibly.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { latestMigrationId } from '../../src/server/db/migrate.js';
import { openPostgresStorage } from '../../src/server/db/postgres-storage.js';
import type { Storage } from '../../src/server/db/storage.js';
import { emptyTestDatabase, onPostgres, type TestDatabase } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const NOW = '2026-01-01T00:00:00Z';

describe.runIf(onPostgres)('PostgreSQL storage', () => {
  let database: TestDatabase;
  let storage: Storage;

  beforeAll(async () => {
    database = await emptyTestDatabase();
    // Three servers starting at once on a new database: each opens, the migrations run once.
    const opened = await Promise.all([0, 1, 2].map(() => openPostgresStorage(database.url, NOW, { poolSize: 4 })));
    storage = opened[0]!;
    await Promise.all(opened.slice(1).map((other) => other.close()));
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('migrated the new database once, whoever started first', async () => {
    const rows = await storage.db.selectFrom('schema_migrations').select(['id']).orderBy('id').execute();
    expect(rows.map((row) => Number(row.id))).toEqual(Array.from({ length: latestMigrationId() }, (_, index) => index + 1));
  });

  it('refuses a database a newer payctl migrated, with the message SQLite gives', async () => {
    await storage.transaction({ name: 'test' }, (trx) =>
      trx.insertInto('schema_migrations').values({ id: 999n, name: 'from-the-future', applied_at: NOW }).execute(),
    );
    try {
      await expect(openPostgresStorage(database.url, NOW)).rejects.toThrow(
        `this database was written by a newer payctl (schema version 999; this payctl knows up to ${latestMigrationId()}). Upgrade payctl, or point --db at another database.`,
      );
    } finally {
      await storage.db.deleteFrom('schema_migrations').where('id', '=', 999n).execute();
    }
  });

  it('runs a transaction\'s first statement inside it, though its BEGIN goes out with that statement', async () => {
    // Outside a transaction each statement has a transaction id of its own.
    const ids = await storage.transaction({ name: 'test' }, async (trx) => {
      const first = await sql<{ id: bigint }>`SELECT txid_current() AS id`.execute(trx);
      const second = await sql<{ id: bigint }>`SELECT txid_current() AS id`.execute(trx);
      return [first.rows[0]?.id, second.rows[0]?.id];
    });
    expect(ids[0]).toBeDefined();
    expect(ids[0]).toBe(ids[1]);
    // A first statement that writes is rolled back with the transaction.
    await expect(
      storage.transaction({ name: 'test' }, async (trx) => {
        await trx.insertInto('schema_migrations').values({ id: 998n, name: 'rolled-back', applied_at: NOW }).execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await storage.db.selectFrom('schema_migrations').select('id').where('id', '=', 998n).executeTakeFirst()).toBeUndefined();
    // A transaction that ran no statement (committed or rolled back) leaves the connection usable.
    await storage.transaction({ name: 'test' }, async () => undefined);
    await expect(storage.transaction({ name: 'test' }, async () => Promise.reject(new Error('before any statement')))).rejects.toThrow('before any statement');
    const after = await storage.transaction({ name: 'test' }, (trx) => sql<{ one: bigint }>`SELECT 1 AS one`.execute(trx));
    expect(after.rows[0]?.one).toBe(1n);
  });

  it('reads integers as bigint: BIGINT columns, COUNT(*) and SUM', async () => {
    await storage.transaction({ name: 'test' }, async (trx) => {
      await trx.insertInto('accounts').values({ id: 'A1', email: 'a1@example.test', is_default: 0n, clock_offset_ms: 0n, kyc_status: 'VERIFIED', created_at: NOW }).execute();
    });
    const row = await storage.db.selectFrom('accounts').select(['is_default', 'clock_offset_ms']).where('id', '=', 'A1').executeTakeFirstOrThrow();
    expect(row).toEqual({ is_default: 0n, clock_offset_ms: 0n });
    const counted = await sql<{ n: unknown; total: unknown; big: unknown; half: unknown }>`
      SELECT COUNT(*) AS n, SUM(clock_offset_ms + 999999999999999) AS total, CAST(1 AS integer) AS big, AVG(3) / 2 AS half FROM accounts`.execute(storage.db);
    expect(counted.rows[0]).toEqual({ n: 1n, total: 999999999999999n, big: 1n, half: 1.5 });
  });

  it('fails a root-handle query inside a transaction (the guard), as on SQLite', async () => {
    const failing = storage.transaction({ name: 'test' }, () => storage.db.selectFrom('accounts').selectAll().execute());
    await expect(failing).rejects.toThrow('query on the root database handle inside a transaction');
  });

  it('holds an exclusive transaction’s key until it ends: a second holder waits', async () => {
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstEntered!: () => void;
    const firstIn = new Promise<void>((resolve) => (firstEntered = resolve));
    const order: string[] = [];
    const first = storage.transaction({ name: 'test', exclusive: 'test.key' }, async () => {
      order.push('first in');
      firstEntered();
      await firstMayEnd;
      order.push('first out');
    });
    await firstIn;
    const second = storage.transaction({ name: 'test', exclusive: 'test.key' }, async () => {
      order.push('second in');
    });
    // The second session is blocked on the advisory lock (seen from the server), and has not entered.
    await waitFor(async () => {
      const waiting = await sql<{ n: bigint }>`
        SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`.execute(storage.db);
      return waiting.rows[0]!.n === 1n;
    }, { timeoutMs: 10_000, what: 'the second transaction to wait on the advisory lock' });
    expect(order).toEqual(['first in']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('a transaction with another key does not wait (positive control)', async () => {
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstEntered!: () => void;
    const firstIn = new Promise<void>((resolve) => (firstEntered = resolve));
    const first = storage.transaction({ name: 'test', exclusive: 'test.one' }, async () => {
      firstEntered();
      await firstMayEnd;
    });
    await firstIn;
    await storage.transaction({ name: 'test', exclusive: 'test.two' }, async () => undefined);
    releaseFirst();
    await first;
  });

  it('retries the loser of a real deadlock: both transactions commit, one of them ran twice', async () => {
    await storage.transaction({ name: 'test' }, async (trx) => {
      await trx.insertInto('settings').values([{ key: 'd1', value: '0' }, { key: 'd2', value: '0' }]).execute();
    });
    let bothLocked!: () => void;
    let locked = 0;
    const rendezvous = new Promise<void>((resolve) => (bothLocked = resolve));
    const tries = { forward: 0, backward: 0 };
    const bump = (direction: 'forward' | 'backward', firstKey: string, secondKey: string) =>
      storage.transaction({ name: 'test' }, async (trx) => {
        tries[direction] += 1;
        await sql`UPDATE settings SET value = (value::bigint + 1)::text WHERE key = ${firstKey}`.execute(trx);
        if (tries[direction] === 1) {
          locked += 1;
          if (locked === 2) bothLocked();
          await rendezvous;
        }
        await sql`UPDATE settings SET value = (value::bigint + 1)::text WHERE key = ${secondKey}`.execute(trx);
      });
    await Promise.all([bump('forward', 'd1', 'd2'), bump('backward', 'd2', 'd1')]);
    expect(tries.forward + tries.backward).toBe(3);
    const values = await storage.db.selectFrom('settings').select(['key', 'value']).where('key', 'in', ['d1', 'd2']).orderBy('key').execute();
    expect(values).toEqual([
      { key: 'd1', value: '2' },
      { key: 'd2', value: '2' },
    ]);
  });
});
