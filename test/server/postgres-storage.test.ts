// Storage on PostgreSQL (the PostgreSQL run only): migrations once under an advisory lock and a
// newer schema refused; integers as bigint; the root-handle guard; `exclusive` as an advisory lock;
// a real deadlock retried invisibly. On the wire: what goes out in one system call, statements
// prepared once per connection, the before-commit statements written with the COMMIT, and a
// statement a schema change made stale prepared again in a retry.

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { latestMigrationId } from '../../src/server/db/migrate.js';
import { openPostgresStorage } from '../../src/server/db/postgres-storage.js';
import { findRow, insertRow, prepared, updateRows } from '../../src/server/db/prepared.js';
import { DEFAULT_RETRY_POLICY } from '../../src/server/db/retry.js';
import type { Queryable } from '../../src/server/db/schema.js';
import { sendAhead, writeBeforeCommit, type Storage } from '../../src/server/db/storage.js';
import { recordMovement, type Movement } from '../../src/server/ledger/store.js';
import { described, recordWrites, type SocketWrite } from '../helpers/pg-wire.js';
import { emptyTestDatabase, freshTestDatabase, onPostgres, withAdmin, type TestDatabase } from '../helpers/postgres.js';
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

const ACCOUNT = 'ACCOUNT1';

/** An account made unless its id is taken (as a request-id claim is): the id when made, no row otherwise. */
const claimAccount = prepared<{ id: string; email: string }, { id: string }>((db, arg) =>
  db
    .insertInto('accounts')
    .values({ id: arg('id'), email: arg('email'), is_default: sql.lit(0n), clock_offset_ms: sql.lit(0n), kyc_status: sql.lit('VERIFIED'), created_at: sql.lit(NOW) })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .returning('id'),
);

/** An account's e-mail, set at the end of the transaction by `writeBeforeCommit`. */
const setEmail = prepared<{ id: string; email: string }>((db, arg) => db.updateTable('accounts').set({ email: arg('email') }).where('id', '=', arg('id')));

const movement = (amountMinor: bigint, accountId = ACCOUNT): Movement => ({
  accountId,
  currency: 'USD',
  amountMinor,
  kind: 'TOP_UP',
  referenceId: `ref-${amountMinor}`,
  createTime: NOW,
});

const STATEMENT_NAME = /^payctl_\d+$/;

/** The statement names of the Parse messages written ('' for the unnamed statement), in order. */
const parsedNames = (writes: readonly SocketWrite[]) => writes.flatMap((write) => write.messages.filter((message) => message.type === 'P').map((message) => message.statement));

/** Per write call, what it runs: a Bind as `insert <table>`, `select <table>`, ...; a query as its text. */
function statementsOf(writes: readonly SocketWrite[]): string[][] {
  return described(writes).map((write) =>
    write.flatMap((entry) => {
      if (entry.startsWith('Q ')) return [entry.slice(2)];
      if (!entry.startsWith('B ')) return [];
      const bound = /^B (insert) into "(\w+)"|^B (update) "(\w+)"|^B (select) .*? from "(\w+)"/.exec(entry);
      return [bound ? bound.slice(1).filter(Boolean).join(' ') : entry.slice(2)];
    }),
  );
}

/** A row of `accounts`. */
const account = (id: string) => ({ id, email: `${id.toLowerCase()}@example.com`, is_default: 0n, clock_offset_ms: 0n, kyc_status: 'VERIFIED', created_at: NOW });

describe.runIf(onPostgres)('PostgreSQL storage on the wire', () => {
  let database: TestDatabase;
  let port: number;
  let storage: Storage;

  /** The server-side prepared statements of the pool's one connection, of `text`. */
  const preparedAs = async (text: string) =>
    (await sql<{ name: string }>`SELECT name FROM pg_prepared_statements WHERE statement = ${text} ORDER BY name`.execute(storage.db)).rows.map((row) => row.name);
  const backendPid = async () => (await sql<{ pid: bigint }>`SELECT pg_backend_pid() AS pid`.execute(storage.db)).rows[0]!.pid;
  /** The rows of `text` read by a session of its own: what is committed. */
  const otherSession = async (text: string, value: string) => (await withAdmin((client) => client.query(text, [value]), database.url)).rows;
  /** The state of the server session `pid` ('idle', 'idle in transaction', ...). */
  const sessionState = async (pid: bigint) =>
    (await withAdmin((client) => client.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [String(pid)]), database.url)).rows;

  beforeAll(async () => {
    database = await freshTestDatabase();
    port = Number(new URL(database.url).port || 5432);
    const setup = await openPostgresStorage(database.url, NOW, { poolSize: 1 });
    await setup.db
      .insertInto('accounts')
      .values({ id: ACCOUNT, email: 'wire@example.com', is_default: 0n, clock_offset_ms: 0n, kyc_status: 'VERIFIED', created_at: NOW })
      .execute();
    await setup.close();
  });
  afterAll(async () => {
    await database?.drop();
  });
  // A pool of one new connection per test: nothing prepared on it yet.
  beforeEach(async () => {
    storage = await openPostgresStorage(database.url, NOW, { poolSize: 1 });
  });
  afterEach(async () => {
    await storage?.close();
  });

  it('writes BEGIN and the transaction’s first statement in one system call', async () => {
    const read = (db: Queryable) => db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT);
    const text = read(storage.db).compile().sql;
    const { result, writes } = await recordWrites(port, () => storage.transaction({ name: 'test' }, (trx) => read(trx).executeTakeFirstOrThrow()));
    expect(result.email).toBe('wire@example.com');
    expect(described(writes)).toEqual([
      ['P ', 'B start transaction isolation level read committed', 'D', 'E', expect.stringMatching(/^P payctl_\d+$/), `B ${text}`, 'D', 'E', 'S'],
      ['P ', 'B commit', 'D', 'E', 'S'],
    ]);
  });

  it('writes the before-commit statements with the COMMIT in one system call, and nothing after it', async () => {
    const { writes } = await recordWrites(port, () =>
      storage.transaction({ name: 'test' }, async (trx) => {
        await trx.selectFrom('accounts').select('email').where('id', '=', ACCOUNT).executeTakeFirstOrThrow();
        await recordMovement(trx, movement(5n));
        await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: 'committed@example.com' });
      }),
    );
    const beforeCommit = described(writes).slice(1);
    expect(writes).toHaveLength(2);
    // The ledger's writes last (the balance row is held from its upsert to the COMMIT), though registered first.
    expect(beforeCommit[0]!.filter((entry) => entry.startsWith('B ') || entry.startsWith('Q ')).map((entry) => entry.split(' ').slice(0, 4).join(' '))).toEqual([
      'B update "accounts" set',
      'B insert into "balances"',
      'B insert into "balance_movements"',
      'B insert into "balance_movement_days"',
      'B commit',
    ]);
    // Each one a prepared statement of its own (the COMMIT unnamed), the write ended by one Sync:
    // PostgreSQL answers them all in one piece.
    expect(parsedNames([writes[1]!])).toEqual([...Array(4).fill(expect.stringMatching(STATEMENT_NAME)), '']);
    expect(writes[1]!.messages.filter((message) => message.type === 'S')).toHaveLength(1);
    const account = await storage.db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT).executeTakeFirstOrThrow();
    expect(account.email).toBe('committed@example.com');
    const balance = await storage.db.selectFrom('balances').select('available_minor').where('account_id', '=', ACCOUNT).executeTakeFirstOrThrow();
    expect(BigInt(balance.available_minor)).toBe(5n);
  });

  it('prepares a statement with parameters once per connection, under a name', async () => {
    const read = (db: Queryable) => db.selectFrom('accounts').select(['id', 'kyc_status']).where('email', '=', 'nobody@example.com');
    const text = read(storage.db).compile().sql;
    const first = await recordWrites(port, () => read(storage.db).execute());
    const second = await recordWrites(port, () => read(storage.db).execute());
    const name = first.writes[0]?.messages[0]?.statement;
    expect(name).toMatch(STATEMENT_NAME);
    expect(first.writes.map((write) => write.messages)).toEqual([
      [{ type: 'P', statement: name, text }, { type: 'B', statement: name }, { type: 'D' }, { type: 'E' }, { type: 'S' }],
    ]);
    expect(second.writes.map((write) => write.messages)).toEqual([[{ type: 'B', statement: name }, { type: 'D' }, { type: 'E' }, { type: 'S' }]]);
    expect(await preparedAs(text)).toEqual([name]);
  });

  it('leaves a statement whose plan may follow its values unnamed, planned every run; an equality-only one is prepared and may keep a generic plan', async () => {
    // PostgreSQL's own plan cache decides for named statements.
    expect((await sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`.execute(storage.db)).rows[0]!.plan_cache_mode).toBe('auto');
    const equality = (db: Queryable) => db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT);
    const valueShaped: Array<(db: Queryable) => { compile(): { sql: string }; execute(): Promise<unknown> }> = [
      (db) => db.selectFrom('accounts').select('id').where('created_at', '<', NOW),
      (db) => db.selectFrom('accounts').select('id').where('email', 'like', 'x%'),
      (db) => db.selectFrom('accounts').select('id').where('email', 'ilike', 'x%'),
      (db) => db.selectFrom('accounts').select('id').where('kyc_status', '!=', 'VERIFIED'),
      (db) => db.selectFrom('accounts').select('id').where('kyc_status', '<>', 'VERIFIED'),
      (db) => db.selectFrom('accounts').select('id').where((eb) => eb.between('created_at', NOW, NOW)),
      (db) => db.selectFrom('accounts').select('id').where('email', '~', '^x'),
      (db) => db.selectFrom('accounts').select('id').where(sql<boolean>`email SIMILAR TO ${'x%'}`),
      (db) => db.selectFrom('accounts').select('id').where(sql<boolean>`id IN\n  (SELECT payer_id FROM consents WHERE platform_client_id = ${'C1'})`),
      (db) => db.selectFrom('accounts').select('id').where('id', '=', ACCOUNT).orderBy('created_at').limit(5),
      (db) => db.selectFrom('accounts').select('id').where(({ exists, selectFrom }) => exists(selectFrom('consents').select('payer_id').where('platform_client_id', '=', 'C1'))),
      (db) => db.selectFrom('accounts').select('id').where('id', 'in', (eb) => eb.selectFrom('consents').select('payer_id').where('platform_client_id', '=', 'C1')),
    ];
    for (let run = 0; run < 7; run++) await equality(storage.db).execute();
    const [named] = await preparedAs(equality(storage.db).compile().sql);
    expect(named).toMatch(STATEMENT_NAME);
    // Seven runs of one plan-independent statement: PostgreSQL went over to its generic plan.
    const plans = (await sql<{ generic_plans: bigint }>`SELECT generic_plans FROM pg_prepared_statements WHERE name = ${named}`.execute(storage.db)).rows[0];
    expect(Number(plans?.generic_plans)).toBeGreaterThan(0);
    for (const build of valueShaped) {
      const text = build(storage.db).compile().sql;
      const { writes } = await recordWrites(port, async () => {
        await build(storage.db).execute();
        await build(storage.db).execute();
      });
      expect({ text, parses: parsedNames(writes) }).toEqual({ text, parses: ['', ''] });
      expect(await preparedAs(text)).toEqual([]);
    }
  });

  it('prepares nothing under a name with preparedStatements off (--no-db-prepared-statements)', async () => {
    const unnamed = await openPostgresStorage(database.url, NOW, { poolSize: 1, preparedStatements: false });
    try {
      const read = (db: Queryable) => db.selectFrom('accounts').select(['id', 'kyc_status']).where('email', '=', 'unnamed@example.com');
      const text = read(unnamed.db).compile().sql;
      const runs = [await recordWrites(port, () => read(unnamed.db).execute()), await recordWrites(port, () => read(unnamed.db).execute())];
      // Parsed again each time, as the unnamed statement.
      for (const run of runs) expect(run.writes.map((write) => write.messages[0])).toEqual([{ type: 'P', statement: '', text }]);
      const kept = await sql<{ n: bigint }>`SELECT count(*) AS n FROM pg_prepared_statements`.execute(unnamed.db);
      expect(BigInt(kept.rows[0]!.n)).toBe(0n);
    } finally {
      await unnamed.close();
    }
  });

  it('prepares a statement of up to 100 parameters, not one of more, nor one shaped by a count of values', async () => {
    // The same shape of text for a given count: `id = $1 or id = $2 ...`.
    const read = (count: number) => (db: Queryable) =>
      db
        .selectFrom('accounts')
        .select('id')
        .where((eb) => eb.or(Array.from({ length: count }, (_, index) => eb('id', '=', `P${count}-${index}`))));
    // An IN list, or a multi-row VALUES: a text per count of values.
    const inList = (db: Queryable) => db.selectFrom('accounts').select('id').where('id', 'in', ['L1', 'L2']);
    const rows = (db: Queryable) => db.insertInto('consents').values([1, 2].map((n) => ({ platform_client_id: `R${n}`, payer_id: ACCOUNT, created_at: NOW })));
    for (const [build, named] of [
      [read(100), true],
      [read(101), false],
      [inList, false],
      [rows, false],
    ] as const) {
      const text = build(storage.db).compile().sql;
      const parses = async () => {
        const { writes } = await recordWrites(port, async () => {
          await build(storage.db).execute();
        });
        return parsedNames(writes);
      };
      const first = await parses();
      if (build === rows) await storage.db.deleteFrom('consents').execute();
      const second = await parses();
      if (named) {
        expect(first).toEqual([expect.stringMatching(STATEMENT_NAME)]);
        expect(second).toEqual([]);
        expect(await preparedAs(text)).toEqual(first);
      } else {
        expect([first, second]).toEqual([[''], ['']]);
        expect(await preparedAs(text)).toEqual([]);
      }
    }
  });

  it('fails the transaction with the first refused before-commit statement, rolled back, and its connection goes on', async () => {
    const pid = await backendPid();
    const { result: outcome, writes } = await recordWrites(port, () =>
      storage
        .transaction({ name: 'test' }, async (trx) => {
          await trx.insertInto('settings').values({ key: 'refused', value: '1' }).execute();
          await recordMovement(trx, movement(9n, 'NO-SUCH-ACCOUNT'));
          await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: 'refused@example.com' });
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        ),
    );
    // The balance upsert's foreign key, not the "transaction is aborted" of the statements behind it.
    expect(outcome).toMatchObject({ code: '23503', message: expect.stringMatching(/foreign key/) });
    // One Sync ends the write of the before-commit statements and the COMMIT; PostgreSQL skipped the
    // rest after the refused one, so the transaction is rolled back on its own.
    expect(described(writes).slice(1).map((write) => write.filter((entry) => /^B (commit|rollback)/.test(entry)))).toEqual([['B commit'], ['B rollback']]);
    const state = await withAdmin((client) => client.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [String(pid)]), database.url);
    expect(state.rows).toEqual([{ state: 'idle' }]);
    expect(await storage.db.selectFrom('settings').select('key').where('key', '=', 'refused').execute()).toEqual([]);
    expect(await storage.db.selectFrom('balance_movements').select('account_id').where('account_id', '=', 'NO-SUCH-ACCOUNT').execute()).toEqual([]);
    expect((await storage.db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT).executeTakeFirstOrThrow()).email).not.toBe('refused@example.com');
    // The same statements, whose Parse the aborted transaction refused, run on the same connection.
    await storage.transaction({ name: 'test' }, async (trx) => {
      await trx.insertInto('settings').values({ key: 'accepted', value: '1' }).execute();
      await recordMovement(trx, movement(11n));
      await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: 'accepted@example.com' });
    });
    expect(await backendPid()).toBe(pid);
    expect(await storage.db.selectFrom('settings').select('key').where('key', '=', 'accepted').execute()).toEqual([{ key: 'accepted' }]);
    expect((await storage.db.selectFrom('accounts').select('email').where('id', '=', ACCOUNT).executeTakeFirstOrThrow()).email).toBe('accepted@example.com');
  });

  it('holds an unanswered write and writes it with the transaction’s next statement, ahead of it, in one system call', async () => {
    const { result, writes } = await recordWrites(port, (sent) =>
      storage.transaction({ name: 'test' }, async (trx) => {
        await insertRow(trx, 'accounts', account('HELD1'), { unanswered: true });
        const atInsert = sent.length;
        const inserted = await findRow(trx, 'accounts', { id: 'HELD1' });
        // Mid-transaction (its BEGIN gone already), an unanswered update: held the same way.
        await updateRows(trx, 'accounts', { id: 'HELD1' }, { kyc_status: 'PENDING' }, { unanswered: true });
        const atUpdate = sent.length;
        const updated = await findRow(trx, 'accounts', { id: 'HELD1' });
        return { atInsert, atUpdate, inserted, updated };
      }),
    );
    // Nothing went out when either write was sent.
    expect(result.atInsert).toBe(0);
    expect(result.atUpdate).toBe(1);
    // Each read of the transaction saw the write held before it.
    expect(result.inserted).toMatchObject({ id: 'HELD1', kyc_status: 'VERIFIED' });
    expect(result.updated).toMatchObject({ id: 'HELD1', kyc_status: 'PENDING' });
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'insert accounts', 'select accounts'],
      ['update accounts', 'select accounts'],
      ['commit'],
    ]);
    // Each its own statement, the write ended by one Sync.
    expect(writes[0]!.messages.filter((message) => message.type === 'S')).toHaveLength(1);
    expect(writes[1]!.messages.filter((message) => message.type === 'S')).toHaveLength(1);
    expect(await findRow(storage.db, 'accounts', { id: 'HELD1' })).toMatchObject({ kyc_status: 'PENDING' });
  });

  it('answers a statement sent ahead once the next statement has carried it, or sends it on its own when asked first', async () => {
    const { result, writes } = await recordWrites(port, (sent) =>
      storage.transaction({ name: 'test' }, async (trx) => {
        const first = await sendAhead(trx, claimAccount, { id: 'AHEAD1', email: 'ahead1@example.com' });
        const atSend = sent.length;
        // The next statement carries it, and sees its row.
        const seen = await findRow(trx, 'accounts', { id: 'AHEAD1' });
        const firstRows = (await first.answer()).rows;
        // The same key again: ON CONFLICT DO NOTHING answers no row. Asked for before any other
        // statement, it goes on its own.
        const again = await sendAhead(trx, claimAccount, { id: 'AHEAD1', email: 'other@example.com' });
        const againRows = (await again.answer()).rows;
        return { atSend, seen, firstRows, againRows, answered: [first.answered, again.answered] };
      }),
    );
    expect(result.atSend).toBe(0);
    // Not answered when sent: the database has not seen it yet.
    expect(result.answered).toEqual([undefined, undefined]);
    expect(result.seen).toMatchObject({ id: 'AHEAD1' });
    expect(result.firstRows).toEqual([{ id: 'AHEAD1' }]);
    expect(result.againRows).toEqual([]);
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'insert accounts', 'select accounts'],
      ['insert accounts'],
      ['commit'],
    ]);
    // Outside a transaction it runs at once, and its answer is there when sent.
    const root = await sendAhead(storage.db, claimAccount, { id: 'AHEAD2', email: 'ahead2@example.com' });
    expect(root.answered?.rows).toEqual([{ id: 'AHEAD2' }]);
  });

  it('reads the answer of a statement sent ahead without sending the writes held after it (a keyed request: claim, read, writes, answer)', async () => {
    const { result, writes } = await recordWrites(port, () =>
      storage.transaction({ name: 'test' }, async (trx) => {
        const claimed = await sendAhead(trx, claimAccount, { id: 'KEYED1', email: 'keyed1@example.com' });
        await findRow(trx, 'accounts', { id: ACCOUNT }, { forUpdate: true });
        await insertRow(trx, 'accounts', account('KEYED2'), { unanswered: true });
        const rows = (await claimed.answer()).rows;
        await writeBeforeCommit(trx, setEmail, { id: 'KEYED2', email: 'keyed2-final@example.com' });
        return rows;
      }),
    );
    expect(result).toEqual([{ id: 'KEYED1' }]);
    // Two round trips: the claim with the first read; the held write, the before-commit write and COMMIT.
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'insert accounts', 'select accounts'],
      ['insert accounts', 'update accounts', 'commit'],
    ]);
    expect(await otherSession('SELECT email FROM accounts WHERE id = $1', 'KEYED2')).toEqual([{ email: 'keyed2-final@example.com' }]);
  });

  it('writes a transaction of unanswered writes only as BEGIN, the writes and COMMIT, in one system call', async () => {
    const { writes } = await recordWrites(port, async () => {
      await storage.transaction({ name: 'test' }, async (trx) => {
        await insertRow(trx, 'accounts', account('HELD2'), { unanswered: true });
        await updateRows(trx, 'accounts', { id: 'HELD2' }, { kyc_status: 'PENDING' }, { unanswered: true });
      });
      // With before-commit statements: the held writes go ahead of them, all with the COMMIT.
      await storage.transaction({ name: 'test' }, async (trx) => {
        await insertRow(trx, 'accounts', account('HELD3'), { unanswered: true });
        await writeBeforeCommit(trx, setEmail, { id: 'HELD3', email: 'held3-final@example.com' });
      });
    });
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'insert accounts', 'update accounts', 'commit'],
      ['start transaction isolation level read committed', 'insert accounts', 'update accounts', 'commit'],
    ]);
    expect(await otherSession('SELECT kyc_status FROM accounts WHERE id = $1', 'HELD2')).toEqual([{ kyc_status: 'PENDING' }]);
    expect(await otherSession('SELECT email FROM accounts WHERE id = $1', 'HELD3')).toEqual([{ email: 'held3-final@example.com' }]);
  });

  it('fails the next statement and the transaction with a refused unanswered write, rolled back, and the connection goes on', async () => {
    const pid = await backendPid();
    let selectOutcome: unknown;
    const { result: outcome, writes } = await recordWrites(port, () =>
      storage
        .transaction({ name: 'test' }, async (trx) => {
          await insertRow(trx, 'accounts', account('REFUSED1'));
          await insertRow(trx, 'consents', { platform_client_id: 'C1', payer_id: 'NO-SUCH-ACCOUNT', created_at: NOW }, { unanswered: true });
          selectOutcome = await findRow(trx, 'accounts', { id: 'REFUSED1' }).then(
            () => 'resolved',
            (error: unknown) => error,
          );
          throw selectOutcome;
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        ),
    );
    // The write's foreign key, not the "transaction is aborted" (25P02) of the select behind it.
    expect(selectOutcome).toMatchObject({ code: '23503', message: expect.stringMatching(/foreign key/) });
    expect(outcome).toBe(selectOutcome);
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'insert accounts'],
      ['insert consents', 'select accounts'],
      ['rollback'],
    ]);
    expect(await sessionState(pid)).toEqual([{ state: 'idle' }]);
    expect(await otherSession('SELECT id FROM accounts WHERE id = $1', 'REFUSED1')).toEqual([]);
    // The same statements, whose Parse the aborted transaction refused, run on the same connection.
    const row = await storage.transaction({ name: 'test' }, async (trx) => {
      await insertRow(trx, 'consents', { platform_client_id: 'C1', payer_id: ACCOUNT, created_at: NOW }, { unanswered: true });
      return findRow(trx, 'accounts', { id: ACCOUNT });
    });
    expect(row).toMatchObject({ id: ACCOUNT });
    expect(await backendPid()).toBe(pid);
    expect(await otherSession('SELECT payer_id FROM consents WHERE platform_client_id = $1', 'C1')).toEqual([{ payer_id: ACCOUNT }]);
  });

  it('fails the commit with a refused unanswered write sent last, and rolls the transaction back right after it', async () => {
    const pid = await backendPid();
    const refused = (first: 'read' | 'none') =>
      storage
        .transaction({ name: 'test' }, async (trx) => {
          if (first === 'read') await findRow(trx, 'accounts', { id: ACCOUNT });
          await insertRow(trx, 'accounts', account(`LAST-${first}`), { unanswered: true });
          await insertRow(trx, 'consents', { platform_client_id: `C-${first}`, payer_id: 'NO-SUCH-ACCOUNT', created_at: NOW }, { unanswered: true });
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
    // After a read, and with nothing but held writes (then all of it in one system call).
    const { result: outcomes, writes } = await recordWrites(port, async () => [await refused('read'), await refused('none')]);
    expect(outcomes).toEqual([
      expect.objectContaining({ code: '23503', message: expect.stringMatching(/foreign key/) }),
      expect.objectContaining({ code: '23503', message: expect.stringMatching(/foreign key/) }),
    ]);
    // PostgreSQL skips what follows the refused write up to the write's one Sync, the COMMIT
    // included: the transaction is rolled back right after, before the caller hears of it.
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'select accounts'],
      ['insert accounts', 'insert consents', 'commit'],
      ['rollback'],
      ['start transaction isolation level read committed', 'insert accounts', 'insert consents', 'commit'],
      ['rollback'],
    ]);
    expect(await sessionState(pid)).toEqual([{ state: 'idle' }]);
    expect(await otherSession('SELECT id FROM accounts WHERE id LIKE $1', 'LAST-%')).toEqual([]);
    // The next transaction on the connection runs and commits.
    await storage.transaction({ name: 'test' }, async (trx) => {
      await findRow(trx, 'accounts', { id: ACCOUNT });
      await insertRow(trx, 'accounts', account('LAST-OK'), { unanswered: true });
    });
    expect(await backendPid()).toBe(pid);
    expect(await otherSession('SELECT id FROM accounts WHERE id LIKE $1', 'LAST-%')).toEqual([{ id: 'LAST-OK' }]);
  });

  it('rolls back a transaction whose body throws while its failing statement waits to be written, and the connection goes on', async () => {
    const pid = await backendPid();
    // The refused insert and Kysely's ROLLBACK are asked for in one turn of the event loop: were they
    // written in one batch, PostgreSQL would skip the ROLLBACK behind the refused insert.
    const outcome = await storage
      .transaction({ name: 'test' }, async (trx) => {
        void trx
          .insertInto('consents')
          .values({ platform_client_id: 'C-THROWN', payer_id: 'NO-SUCH-ACCOUNT', created_at: NOW })
          .execute()
          .catch(() => undefined);
        throw new Error('thrown by the body');
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(outcome).toMatchObject({ message: 'thrown by the body' });
    expect(await sessionState(pid)).toEqual([{ state: 'idle' }]);
    await storage.transaction({ name: 'test' }, (trx) => insertRow(trx, 'accounts', account('AFTER-THROWN')));
    expect(await backendPid()).toBe(pid);
    expect(await otherSession('SELECT id FROM accounts WHERE id = $1', 'AFTER-THROWN')).toEqual([{ id: 'AFTER-THROWN' }]);
  });

  it('refuses a transaction whose COMMIT PostgreSQL answered with ROLLBACK, though its code went on', async () => {
    // The held write's error reaches the select after it, which the code catches and goes on:
    // PostgreSQL then rolls the whole transaction back at COMMIT, and the caller must hear so.
    const outcome = await storage
      .transaction({ name: 'test' }, async (trx) => {
        await insertRow(trx, 'accounts', account('SWALLOWED1'));
        await insertRow(trx, 'consents', { platform_client_id: 'C-SW', payer_id: 'NO-SUCH-ACCOUNT', created_at: NOW }, { unanswered: true });
        await findRow(trx, 'accounts', { id: ACCOUNT }).catch(() => undefined);
        return 'went on';
      })
      .then(
        (value) => value,
        (error: unknown) => error,
      );
    expect(outcome).toMatchObject({ code: '25P02', message: expect.stringMatching(/rolled back at its COMMIT/) });
    expect(await otherSession('SELECT id FROM accounts WHERE id = $1', 'SWALLOWED1')).toEqual([]);
    // Positive control: the same transaction without the refused write commits.
    await storage.transaction({ name: 'test' }, async (trx) => {
      await insertRow(trx, 'accounts', account('SWALLOWED2'));
      await findRow(trx, 'accounts', { id: ACCOUNT }).catch(() => undefined);
    });
    expect(await otherSession('SELECT id FROM accounts WHERE id = $1', 'SWALLOWED2')).toEqual([{ id: 'SWALLOWED2' }]);
  });

  it('commits nothing when a statement of the transaction could not be written (a value the client cannot encode)', async () => {
    const pid = await backendPid();
    const emailBefore = await otherSession('SELECT email FROM accounts WHERE id = $1', ACCOUNT);
    // pg encodes an object parameter with JSON.stringify, which throws on a bigint inside it: the
    // statement never reaches the server, so PostgreSQL alone would commit the rest.
    const unencodable = { nested: 1n } as unknown as string;
    type Where = 'held' | 'before commit' | 'swallowed' | 'rethrown' | 'domain error';
    const attempt = (where: Where) =>
      storage
        .transaction({ name: 'test' }, async (trx) => {
          await insertRow(trx, 'accounts', account(`ENC-${where}-1`), { unanswered: true });
          const consent = { platform_client_id: `C-ENC-${where}`, payer_id: unencodable, created_at: NOW };
          if (where === 'held') await insertRow(trx, 'consents', consent, { unanswered: true });
          if (where === 'before commit') await writeBeforeCommit(trx, setEmail, { id: ACCOUNT, email: unencodable });
          if (where === 'swallowed') await insertRow(trx, 'consents', consent).catch(() => undefined);
          if (where === 'rethrown') await insertRow(trx, 'consents', consent);
          if (where === 'domain error') await insertRow(trx, 'consents', consent).catch(() => Promise.reject(new Error('refused by the domain')));
          await insertRow(trx, 'accounts', account(`ENC-${where}-3`), { unanswered: true });
        })
        .then(
          () => 'committed',
          (error: unknown) => error,
        );
    const outcomes = new Map<Where, unknown>();
    const { writes } = await recordWrites(port, async () => {
      for (const where of ['held', 'before commit', 'swallowed', 'rethrown', 'domain error'] as const) outcomes.set(where, await attempt(where));
    });
    for (const [where, outcome] of outcomes) {
      expect({ where, committed: await otherSession('SELECT id FROM accounts WHERE id LIKE $1', `ENC-${where}-%`) }).toEqual({ where, committed: [] });
    }
    // The statement's own error where the code let it through; the COMMIT's refusal where the code
    // went on past it; the code's own error where it threw one (its ROLLBACK is not refused).
    expect(outcomes.get('held')).toBeInstanceOf(TypeError);
    expect(outcomes.get('before commit')).toBeInstanceOf(TypeError);
    expect(outcomes.get('swallowed')).toMatchObject({ code: '25P02', message: expect.stringMatching(/could not be written.*serialize a BigInt/) });
    expect(outcomes.get('rethrown')).toBeInstanceOf(TypeError);
    expect(outcomes.get('domain error')).toMatchObject({ message: 'refused by the domain' });
    // On the wire: five transactions, none committed, and the unencodable statement never sent.
    const sent = statementsOf(writes).flat();
    expect(sent.filter((statement) => statement === 'commit')).toEqual([]);
    expect(sent.filter((statement) => statement === 'rollback')).toHaveLength(5);
    expect(sent.filter((statement) => statement === 'insert consents')).toEqual([]);
    expect(await otherSession('SELECT email FROM accounts WHERE id = $1', ACCOUNT)).toEqual(emailBefore);
    // The connection goes on: a statement outside any transaction first, then the same transaction
    // with encodable values, which commits (positive control).
    expect(await backendPid()).toBe(pid);
    await storage.transaction({ name: 'test' }, async (trx) => {
      await insertRow(trx, 'accounts', account('ENC-ok-1'), { unanswered: true });
      await insertRow(trx, 'accounts', account('ENC-ok-2'), { unanswered: true });
    });
    expect(await backendPid()).toBe(pid);
    expect(await otherSession('SELECT id FROM accounts WHERE id LIKE $1 ORDER BY id', 'ENC-%')).toEqual([{ id: 'ENC-ok-1' }, { id: 'ENC-ok-2' }]);
  });

  it('never sends an unanswered write of a transaction that throws', async () => {
    const { writes } = await recordWrites(port, async () => {
      // The write its only statement: nothing at all goes out.
      await expect(
        storage.transaction({ name: 'test' }, async (trx) => {
          await insertRow(trx, 'accounts', account('THROWN1'), { unanswered: true });
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      // After a read: the ROLLBACK, without the write.
      await expect(
        storage.transaction({ name: 'test' }, async (trx) => {
          await findRow(trx, 'accounts', { id: ACCOUNT });
          await insertRow(trx, 'accounts', account('THROWN2'), { unanswered: true });
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      // Nor with the connection's next statement.
      expect(await findRow(storage.db, 'accounts', { id: 'THROWN1' })).toBeUndefined();
      await storage.transaction({ name: 'test' }, (trx) => findRow(trx, 'accounts', { id: 'THROWN2' }));
    });
    expect(statementsOf(writes)).toEqual([
      ['start transaction isolation level read committed', 'select accounts'],
      ['rollback'],
      ['select accounts'],
      ['start transaction isolation level read committed', 'select accounts'],
      ['commit'],
    ]);
    expect(described(writes).flat().filter((entry) => entry.startsWith('B insert'))).toEqual([]);
    expect(await otherSession('SELECT id FROM accounts WHERE id LIKE $1', 'THROWN%')).toEqual([]);
  });

  it('runs an unanswered write on the root handle at once', async () => {
    const { writes } = await recordWrites(port, () => insertRow(storage.db, 'accounts', account('ROOT1'), { unanswered: true }));
    expect(statementsOf(writes)).toEqual([['insert accounts']]);
    // Committed when the await returns: another session sees it.
    expect(await otherSession('SELECT id FROM accounts WHERE id = $1', 'ROOT1')).toEqual([{ id: 'ROOT1' }]);
    await updateRows(storage.db, 'accounts', { id: 'ROOT1' }, { kyc_status: 'PENDING' }, { unanswered: true });
    expect(await otherSession('SELECT kyc_status FROM accounts WHERE id = $1', 'ROOT1')).toEqual([{ kyc_status: 'PENDING' }]);
  });

  // Last: it adds columns to `accounts`.
  it('retries a transaction whose prepared statement a schema change made stale, under a new name, and a statement outside one at once', async () => {
    const readAll = (trx: Queryable) => trx.selectFrom('accounts').selectAll().where('id', '=', ACCOUNT).executeTakeFirstOrThrow() as Promise<Record<string, unknown>>;
    const addColumn = (name: string) => withAdmin((client) => client.query(`ALTER TABLE accounts ADD COLUMN ${name} text DEFAULT 'x'`), database.url);
    await storage.transaction({ name: 'test' }, readAll);
    await addColumn('test_extra');
    let attempts = 0;
    const row = await storage.transaction({ name: 'test' }, (trx) => {
      attempts += 1;
      return readAll(trx);
    });
    expect(attempts).toBe(2);
    expect(row).toMatchObject({ id: ACCOUNT, test_extra: 'x' });

    // Without the retry the error shows (the situation is real); the connection's next try prepares again.
    const once = await openPostgresStorage(database.url, NOW, { poolSize: 1, retry: { ...DEFAULT_RETRY_POLICY, tries: 1 } });
    try {
      await once.transaction({ name: 'test' }, readAll);
      await addColumn('test_extra2');
      await expect(once.transaction({ name: 'test' }, readAll)).rejects.toMatchObject({ code: '0A000', message: 'cached plan must not change result type' });
      expect(await once.transaction({ name: 'test' }, readAll)).toMatchObject({ id: ACCOUNT, test_extra: 'x', test_extra2: 'x' });
      // Outside a transaction (the root handle) the statement is prepared again and run at once.
      await addColumn('test_extra3');
      expect(await readAll(once.db)).toMatchObject({ id: ACCOUNT, test_extra3: 'x' });
      await addColumn('test_extra4');
      expect(await readAll(once.db)).toMatchObject({ id: ACCOUNT, test_extra4: 'x' });
    } finally {
      await once.close();
    }
  });
});
