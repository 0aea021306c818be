// The ledger's balance increments run right before COMMIT (the storage's before-commit step), so a
// merchant's balance row is locked for the shortest time; reads in the same transaction still see
// them, and under SQLite's group commit each request's increments stay inside its own savepoint.
// Other writes nothing reads back (a stored answer: `writeBeforeCommit`) go the same way; on
// PostgreSQL they are all written with the COMMIT, each a prepared statement, without waiting.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { migrate } from '../../src/server/db/migrate.js';
import { openPostgresStorage } from '../../src/server/db/postgres-storage.js';
import { prepared } from '../../src/server/db/prepared.js';
import type { Queryable } from '../../src/server/db/schema.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import { writeBeforeCommit, type Storage } from '../../src/server/db/storage.js';
import { addToBalance, balanceOf, balanceOfForUpdate, balancesOf, recordMovement, type Movement } from '../../src/server/ledger/store.js';
import { recordWrites, textsRun } from '../helpers/pg-wire.js';
import { freshTestDatabase, onPostgres } from '../helpers/postgres.js';

const NOW = '2026-01-01T00:00:00Z';
const ACCOUNT = 'ACCOUNT1';

const movement = (amountMinor: bigint, currency = 'USD', accountId = ACCOUNT): Movement => ({
  accountId,
  currency,
  amountMinor,
  kind: 'TOP_UP',
  referenceId: `ref-${amountMinor}`,
  createTime: NOW,
});

/** The balance row as stored, read around the ledger. */
async function storedBalance(db: Queryable, currency = 'USD'): Promise<bigint | undefined> {
  const rows = await sql<{ available_minor: bigint }>`SELECT available_minor FROM balances WHERE account_id = ${ACCOUNT} AND currency = ${currency}`.execute(db);
  return rows.rows[0] === undefined ? undefined : BigInt(rows.rows[0].available_minor);
}

/** The SQL texts written to PostgreSQL (on the wire, each Bind's statement) while `work` runs. */
async function sentTexts(port: number, work: () => Promise<unknown>): Promise<string[]> {
  return textsRun((await recordWrites(port, work)).writes);
}

/** An account's e-mail, set at the end of the transaction by `writeBeforeCommit`. */
const setEmail = prepared<{ id: string; email: string }>((db, arg) => db.updateTable('accounts').set({ email: arg('email') }).where('id', '=', arg('id')));
const emailOf = async (db: Queryable) =>
  (await db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT).executeTakeFirstOrThrow()).email;

/** Text with everything that must be escaped in an SQL literal, and placeholders that must stay text. */
const HOSTILE = `it's a \\ back\\slash, "quoted", $1 $2 $$ dollar, '); DROP TABLE accounts; --, ünïcödé ✓, new\nline`;

describe('ledger increments before commit', () => {
  let storage: Storage;
  /** The PostgreSQL server's port, whose writes sentTexts reads. */
  let port = 0;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    if (onPostgres) {
      const database = await freshTestDatabase();
      storage = await openPostgresStorage(database.url, NOW, { poolSize: 2 });
      port = Number(new URL(database.url).port);
      cleanup = async () => {
        await storage.close();
        await database.drop();
      };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'payctl-ledger-'));
      const opened = openDatabase(join(dir, 'ledger.db'));
      migrate(opened.sqlite, NOW);
      storage = createSqliteStorage(opened.db, { groupCommit: true, sqlite: opened.sqlite });
      cleanup = async () => {
        await closeDatabase(opened);
        rmSync(dir, { recursive: true, force: true });
      };
    }
    await storage.db
      .insertInto('accounts')
      .values({ id: ACCOUNT, email: 'ledger@example.com', is_default: 0n, clock_offset_ms: 0n, kyc_status: 'VERIFIED', created_at: NOW })
      .execute();
  });
  afterEach(() => cleanup());

  it.each([false, true])('writes the balance after the rest of the transaction, once per row (batch %s)', async (batch) => {
    const seen = await storage.transaction({ name: 'test', batch }, async (trx) => {
      await recordMovement(trx, movement(300n));
      await recordMovement(trx, movement(200n));
      await recordMovement(trx, movement(7n, 'EUR'));
      return { usd: await storedBalance(trx), eur: await storedBalance(trx, 'EUR') };
    });
    // Not yet written while the transaction's own work ran: the increments wait for its end.
    expect(seen).toEqual({ usd: undefined, eur: undefined });
    expect(await storedBalance(storage.db)).toBe(500n);
    expect(await storedBalance(storage.db, 'EUR')).toBe(7n);
    expect(await storage.db.selectFrom('balance_movements').select('amount_minor').execute()).toHaveLength(3);
  });

  it('lets the same transaction read what it moved, and applies it once', async () => {
    await storage.transaction({ name: 'test' }, (trx) => recordMovement(trx, movement(1_000n)));
    const read = await storage.transaction({ name: 'test' }, async (trx) => {
      await recordMovement(trx, movement(-400n));
      const plain = await balanceOf(trx, ACCOUNT, 'USD');
      await addToBalance(trx, ACCOUNT, 'USD', 50n);
      const locked = await balanceOfForUpdate(trx, ACCOUNT, 'USD');
      await addToBalance(trx, ACCOUNT, 'USD', 5n);
      const all = await balancesOf(trx, ACCOUNT);
      return { plain, locked, all: all.map((row) => BigInt(row.available_minor)) };
    });
    expect(read).toEqual({ plain: 600n, locked: 650n, all: [655n] });
    expect(await balanceOf(storage.db, ACCOUNT, 'USD')).toBe(655n);
  });

  it('drops the increments of a transaction that fails', async () => {
    await expect(
      storage.transaction({ name: 'test' }, async (trx) => {
        await recordMovement(trx, movement(900n));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await storedBalance(storage.db)).toBeUndefined();
    await storage.transaction({ name: 'test' }, (trx) => recordMovement(trx, movement(3n)));
    expect(await storedBalance(storage.db)).toBe(3n);
  });

  // PostgreSQL: the increments are written with the COMMIT (the BEGIN too, when the transaction ran
  // nothing else), each its own prepared statement, and no second COMMIT follows.
  it.runIf(onPostgres)('sends the balance upserts and movements with the COMMIT, in order', async () => {
    const sent = await sentTexts(port, () =>
      storage.transaction({ name: 'test' }, async (trx) => {
        await recordMovement(trx, movement(5n, 'EUR'));
        await recordMovement(trx, movement(8n));
      }),
    );
    // Per balance row, in currency order: its upsert, then its movements, then the day's count.
    expect(sent.map((text) => text.split(' ').slice(0, 3).join(' '))).toEqual([
      'start transaction isolation',
      'insert into "balances"',
      'insert into "balance_movements"',
      'insert into "balances"',
      'insert into "balance_movements"',
      'insert into "balance_movement_days"',
      'commit',
    ]);
    expect(await storedBalance(storage.db)).toBe(8n);
    expect(await storedBalance(storage.db, 'EUR')).toBe(5n);
    const after = await storage.db.selectFrom('balance_movements').select(['currency', 'balance_after']).orderBy('seq').execute();
    expect(after.map((row) => [row.currency, BigInt(row.balance_after)])).toEqual([
      ['EUR', 5n],
      ['USD', 8n],
    ]);
  });

  it('rolls the whole transaction back when the increments fail at its end, and the next one runs', async () => {
    await expect(
      storage.transaction({ name: 'test' }, async (trx) => {
        await recordMovement(trx, movement(9n));
        await addToBalance(trx, 'NO-SUCH-ACCOUNT', 'USD', 9n);
      }),
    ).rejects.toThrow();
    expect(await storage.db.selectFrom('balance_movements').select('amount_minor').execute()).toEqual([]);
    await storage.transaction({ name: 'test' }, (trx) => recordMovement(trx, movement(4n)));
    expect(await storedBalance(storage.db)).toBe(4n);
  });

  it('applies at once outside a transaction', async () => {
    await addToBalance(storage.db, ACCOUNT, 'USD', 42n);
    expect(await storedBalance(storage.db)).toBe(42n);
  });

  // Group commit is SQLite's: requests in one batch share the transaction handle.
  it.skipIf(onPostgres)('keeps each batched request to its own increments, inside its own savepoint', async () => {
    const results = await Promise.allSettled([
      storage.transaction({ name: 'a', batch: true }, async (trx) => {
        await recordMovement(trx, movement(100n));
        throw new Error('refused a');
      }),
      storage.transaction({ name: 'b', batch: true }, (trx) => recordMovement(trx, movement(7n))),
      // Its increment fails at the end (no such account): only this request is refused, its movement too.
      storage.transaction({ name: 'c', batch: true }, async (trx) => {
        await recordMovement(trx, movement(11n));
        await addToBalance(trx, 'NO-SUCH-ACCOUNT', 'USD', 11n);
      }),
      storage.transaction({ name: 'd', batch: true }, (trx) => recordMovement(trx, movement(20n))),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(storage.stats().batches).toBe(1);
    expect(await storedBalance(storage.db)).toBe(27n);
    const movements = await storage.db.selectFrom('balance_movements').select('amount_minor').orderBy('seq').execute();
    expect(movements.map((row) => BigInt(row.amount_minor))).toEqual([7n, 20n]);
  });

  it.each([false, true])('writes a stored write at the end, with its text exactly as given (batch %s)', async (batch) => {
    const seen = await storage.transaction({ name: 'test', batch }, async (trx) => {
      await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: HOSTILE });
      await recordMovement(trx, movement(12n));
      return emailOf(trx);
    });
    // Not yet written while the transaction's own work ran.
    expect(seen).toBe('ledger@example.com');
    expect(await emailOf(storage.db)).toBe(HOSTILE);
    expect(await storedBalance(storage.db)).toBe(12n);
  });

  it('drops a stored write of a transaction that fails, and writes it at once outside one', async () => {
    await expect(
      storage.transaction({ name: 'test' }, async (trx) => {
        await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: 'lost@example.com' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await emailOf(storage.db)).toBe('ledger@example.com');
    await writeBeforeCommit(storage.db, setEmail, { id: ACCOUNT, email: 'now@example.com' });
    expect(await emailOf(storage.db)).toBe('now@example.com');
  });

  it.runIf(onPostgres)('runs the ledger\'s writes after the other before-commit writes, though registered first', async () => {
    const sent = await sentTexts(port, () =>
      storage.transaction({ name: 'test' }, async (trx) => {
        await recordMovement(trx, movement(6n));
        await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: HOSTILE });
      }),
    );
    const kinds = sent.filter((text) => /^(insert|update)/i.test(text)).map((text) => text.split(' ').slice(0, 3).join(' '));
    expect(kinds).toEqual(['update "accounts" set', 'insert into "balances"', 'insert into "balance_movements"', 'insert into "balance_movement_days"']);
    expect(await emailOf(storage.db)).toBe(HOSTILE);
    expect(await storedBalance(storage.db)).toBe(6n);
  });

  it.runIf(onPostgres)('commits a stored write whose negative value follows a minus, and leaves no transaction open', async () => {
    // `0 -$1` with -5: had the value been written into the text bare, "0 --5" would start a comment.
    const negated = prepared<{ id: string; by: bigint }>((db, arg) =>
      db.updateTable('accounts').set({ clock_offset_ms: sql<bigint>`0 -${arg('by')}` }).where('id', '=', arg('id')),
    );
    await storage.db
      .insertInto('accounts')
      .values({ id: 'OTHER', email: 'other@example.com', is_default: 0n, clock_offset_ms: 7n, kyc_status: 'VERIFIED', created_at: NOW })
      .execute();
    await storage.transaction({ name: 'test' }, (trx) => writeBeforeCommit(trx, negated, { id: ACCOUNT, by: -5n }));
    const offsets = await storage.db.selectFrom('accounts').select(['id', 'clock_offset_ms']).orderBy('id').execute();
    expect(offsets.map((row) => [row.id, BigInt(row.clock_offset_ms)])).toEqual([
      [ACCOUNT, 5n],
      ['OTHER', 7n],
    ]);
    const open = await sql<{ n: bigint }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(storage.db);
    expect(BigInt(open.rows[0]!.n)).toBe(0n);
  });

  it.runIf(onPostgres)('fails the transaction when a stored write is refused at the COMMIT, and the connection goes on', async () => {
    const outcome = await storage
      .transaction({ name: 'test' }, async (trx) => {
        await recordMovement(trx, movement(13n));
        await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: 'nul\u0000byte' });
      })
      .catch((error: unknown) => error);
    // PostgreSQL refuses a NUL in text: the COMMIT written behind it rolled the transaction back.
    expect(String(outcome)).toMatch(/0x00|invalid byte sequence/);
    expect(await emailOf(storage.db)).toBe('ledger@example.com');
    expect(await storedBalance(storage.db)).toBeUndefined();
    const open = await sql<{ n: bigint }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`.execute(storage.db);
    expect(BigInt(open.rows[0]!.n)).toBe(0n);
    // Both pooled connections take the next transactions.
    await Promise.all([1n, 2n].map((amount) => storage.transaction({ name: 'test' }, (trx) => recordMovement(trx, movement(amount)))));
    expect(await storedBalance(storage.db)).toBe(3n);
  });
});
