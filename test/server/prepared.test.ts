// Prepared statements (src/server/db/prepared.ts) against a real SQLite file: the same rows as the
// Kysely builder they replace, one statement per column shape, and mistakes refused loudly.

import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findRow, findRows, insertRow, prepared, rowExists, updateRows } from '../../src/server/db/prepared.js';
import { runNowInTransaction } from '../../src/server/db/driver.js';
import type { Db, Trx } from '../../src/server/db/schema.js';
import { onPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
let db: Db;

beforeAll(async () => {
  t = await startTestServer();
  db = t.server.db;
});
afterAll(() => t.close());

/** A plain transaction through the storage layer, as jobs open one. */
const inTransaction = <T>(work: (trx: Trx) => Promise<T>): Promise<T> => t.server.deps.storage.transaction({ name: 'test' }, work);

describe('keyed statements', () => {
  it('insert and find give what the Kysely builder reads back', async () => {
    await insertRow(db, 'settings', { key: 'prep.a', value: 'one' });
    await insertRow(db, 'settings', { key: 'prep.b', value: 'two' });
    const viaBuilder = await db.selectFrom('settings').selectAll().where('key', '=', 'prep.a').executeTakeFirst();
    expect(await findRow(db, 'settings', { key: 'prep.a' })).toEqual(viaBuilder);
    expect(viaBuilder).toEqual({ key: 'prep.a', value: 'one' });
    expect(await findRow(db, 'settings', { key: 'prep.missing' })).toBeUndefined();
  });

  it('keeps one statement per column shape: a key on another column is another query', async () => {
    expect((await findRows(db, 'settings', { value: 'two' })).map((row) => row.key)).toEqual(['prep.b']);
    expect(await findRow(db, 'settings', { key: 'prep.b' })).toEqual({ key: 'prep.b', value: 'two' });
    expect(await findRow(db, 'settings', { key: 'prep.b', value: 'one' })).toBeUndefined();
  });

  it('refuses a key without columns or with a missing value instead of reading or changing other rows', async () => {
    await expect(findRow(db, 'settings', {})).rejects.toThrow(/at least one column/);
    await expect(findRow(db, 'settings', { key: undefined, value: 'one' })).rejects.toThrow(/no value for key column "key"/);
    await expect(updateRows(db, 'settings', {}, { value: 'everything' })).rejects.toThrow(/at least one column/);
    await expect(updateRows(db, 'settings', { key: undefined }, { value: 'everything' })).rejects.toThrow(/no value for key column/);
    await expect(updateRows(db, 'settings', { key: 'prep.a' }, {})).rejects.toThrow(/at least one column to set/);
    expect((await findRows(db, 'settings', { value: 'everything' })).length).toBe(0);
  });

  it('leaves undefined values out of an insert, as the Kysely builder does', async () => {
    await insertRow(db, 'settings', { key: 'prep.c', value: 'three', ...({ extra: undefined } as object) } as { key: string; value: string });
    expect(await findRow(db, 'settings', { key: 'prep.c' })).toEqual({ key: 'prep.c', value: 'three' });
    await updateRows(db, 'settings', { key: 'prep.c' }, { key: 'prep.c', value: undefined as unknown as string });
    expect(await findRow(db, 'settings', { key: 'prep.c' })).toEqual({ key: 'prep.c', value: 'three' });
  });

  it('updates only the matching rows and reports how many', async () => {
    expect(await updateRows(db, 'settings', { key: 'prep.a' }, { value: 'uno' })).toBe(1n);
    expect(await updateRows(db, 'settings', { key: 'prep.none' }, { value: 'x' })).toBe(0n);
    expect(await findRow(db, 'settings', { key: 'prep.a' })).toEqual({ key: 'prep.a', value: 'uno' });
    expect(await findRow(db, 'settings', { key: 'prep.b' })).toEqual({ key: 'prep.b', value: 'two' });
  });

  it('runs inside the caller’s transaction: a rollback takes its writes back', async () => {
    await expect(
      inTransaction(async (trx) => {
        await insertRow(trx, 'settings', { key: 'prep.rolled', value: 'v' });
        expect(await findRow(trx, 'settings', { key: 'prep.rolled' })).toEqual({ key: 'prep.rolled', value: 'v' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await findRow(db, 'settings', { key: 'prep.rolled' })).toBeUndefined();
  });

  // SQLite's direct path (driver.ts runNowInTransaction); PostgreSQL always goes through Kysely.
  it.skipIf(onPostgres)('inside an open transaction runs on its connection without Kysely’s executor; outside, through it', async () => {
    const rootRuns = vi.spyOn(db, 'executeQuery');
    await insertRow(db, 'settings', { key: 'direct.root', value: 'r' });
    expect(rootRuns).toHaveBeenCalledTimes(1);
    rootRuns.mockRestore();

    await expect(
      inTransaction(async (trx) => {
        const viaKysely = vi.spyOn(trx, 'executeQuery');
        await insertRow(trx, 'settings', { key: 'prep.direct', value: 'd' });
        await updateRows(trx, 'settings', { key: 'prep.direct' }, { value: 'e' });
        expect(await findRow(trx, 'settings', { key: 'prep.direct' })).toEqual({ key: 'prep.direct', value: 'e' });
        expect(viaKysely).not.toHaveBeenCalled();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    // Ran in the transaction, so its rollback took the row back.
    expect(await findRow(db, 'settings', { key: 'prep.direct' })).toBeUndefined();
  });

  // SQLite's direct path; on PostgreSQL a refused statement aborts the transaction, so the next one fails otherwise.
  it.skipIf(onPostgres)('a statement refused by SQLite inside a transaction is a rejection, not a throw', async () => {
    const insert = prepared<{ key: string; value: string }>((base, arg) => base.insertInto('settings').values({ key: arg('key'), value: arg('value') }));
    const outcome = inTransaction(async (trx) => {
      await insert.execute(trx, { key: 'prep.once', value: '1' });
      const again = insert.execute(trx, { key: 'prep.once', value: '2' });
      expect(again).toBeInstanceOf(Promise);
      await expect(again).rejects.toThrow(/UNIQUE constraint failed/);
      await expect(insertRow(trx, 'settings', { key: 'prep.once', value: '3' })).rejects.toThrow(/UNIQUE constraint failed/);
      throw new Error('roll back');
    });
    await expect(outcome).rejects.toThrow('roll back');
    expect(await findRow(db, 'settings', { key: 'prep.once' })).toBeUndefined();
  });

  it('tells whether a row with the key exists, and orders the rows it finds', async () => {
    expect(await rowExists(db, 'settings', { key: 'prep.b' })).toBe(true);
    expect(await rowExists(db, 'settings', { key: 'prep.b', value: 'one' })).toBe(false);
    await expect(rowExists(db, 'settings', {})).rejects.toThrow(/at least one column/);
    await insertRow(db, 'settings', { key: 'ordered.b', value: 'same' });
    await insertRow(db, 'settings', { key: 'ordered.a', value: 'same' });
    expect((await findRows(db, 'settings', { value: 'same' }, { orderBy: ['key'] })).map((row) => row.key)).toEqual(['ordered.a', 'ordered.b']);
  });

  it('reads the same row with forUpdate as without', async () => {
    await inTransaction(async (trx) => {
      expect(await findRow(trx, 'settings', { key: 'prep.b' }, { forUpdate: true })).toEqual({ key: 'prep.b', value: 'two' });
      expect(await findRows(trx, 'settings', { value: 'two' }, { forUpdate: true })).toEqual([{ key: 'prep.b', value: 'two' }]);
    });
  });

  // Row locks exist on PostgreSQL only (SQLite's writer holds the whole file).
  it.runIf(onPostgres)('forUpdate keeps the row locked until the transaction ends', async () => {
    const lockedElsewhere = (trx: Trx) => trx.selectFrom('settings').selectAll().where('key', '=', 'prep.b').forUpdate().noWait().execute();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = inTransaction(async (trx) => {
      await findRow(trx, 'settings', { key: 'prep.b' }, { forUpdate: true });
      holding();
      await released;
    });
    await held;
    await expect(inTransaction(lockedElsewhere)).rejects.toThrow(/could not obtain lock/);
    release();
    await holder;
    // The same attempt once the holder has committed: the refusal above was the lock.
    expect(await inTransaction(lockedElsewhere)).toEqual([{ key: 'prep.b', value: 'two' }]);
  });

  it('a transaction handle kept past its COMMIT goes through Kysely again, not straight to the connection', async () => {
    let kept: Trx | undefined;
    await inTransaction(async (trx) => {
      kept = trx;
    });
    expect(runNowInTransaction(kept!, CompiledQuery.raw('select 1'))).toBeUndefined();
  });
});

describe('prepared()', () => {
  it('fills each run’s values into the compiled statement, literal constants kept', async () => {
    const byPrefix = prepared<{ prefix: string }>((base, arg) =>
      base.selectFrom('settings').select('key').where('key', 'like', arg('prefix')).where('value', '!=', sql.lit('never')).orderBy('key'),
    );
    expect((await byPrefix.all(db, { prefix: 'prep.%' })).map((row) => (row as { key: string }).key)).toEqual(['prep.a', 'prep.b', 'prep.c']);
    expect(await byPrefix.all(db, { prefix: 'nothing.%' })).toEqual([]);
  });

  it('refuses a value captured at build time instead of passed through arg()', async () => {
    const firstCaller = 'prep.a';
    const captured = prepared<{ unused: string }>((base) => base.selectFrom('settings').selectAll().where('key', '=', firstCaller));
    await expect(captured.all(db, { unused: 'x' })).rejects.toThrow(/not passed through arg\(\)/);
  });

  it('refuses a run without a value for an argument', async () => {
    const byKey = prepared<{ key: string }>((base, arg) => base.selectFrom('settings').selectAll().where('key', '=', arg('key')));
    await expect(byKey.first(db, {} as { key: string })).rejects.toThrow(/no value for "key"/);
  });

  it('refuses an argument that shapes the SQL instead of becoming a parameter', async () => {
    const bad = prepared<{ column: 'key' }>((base, arg) => base.selectFrom('settings').select(String(arg('column')) as 'key'));
    await expect(bad.all(db, { column: 'key' })).rejects.toThrow(/did not become a parameter/);
  });
});
