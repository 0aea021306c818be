// The driver builds row objects itself (raw arrays into a compiled literal per column list): the
// rows must be exactly the objects better-sqlite3 makes, whatever the statement.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type OpenedDatabase } from '../../src/server/db/connection.js';
import { onPostgres } from '../helpers/postgres.js';

let dir: string;
let opened: OpenedDatabase;

/** What better-sqlite3 itself gives for the statement (object mode, safe integers as the server sets). */
const direct = (text: string, ...parameters: unknown[]) => opened.sqlite.prepare(text).all(...parameters);
const viaDriver = async (text: string) => (await sql.raw<Record<string, unknown>>(text).execute(opened.db)).rows;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-driver-rows-'));
  opened = openDatabase(join(dir, 'rows.db'));
  opened.sqlite.exec(`
    CREATE TABLE wide (id TEXT PRIMARY KEY, n INTEGER, big INTEGER, r REAL, note TEXT, raw BLOB, maybe TEXT);
    INSERT INTO wide VALUES ('a', 1, 9007199254740993, 1.5, 'first', x'00ff', NULL);
    INSERT INTO wide VALUES ('b', -2, 0, 0.25, 'ünïcødé €', x'', 'x');
  `);
});
afterAll(async () => {
  await closeDatabase(opened);
  rmSync(dir, { recursive: true, force: true });
});

// SQLite only (the SQLite half runs it): better-sqlite3's rows through payctl's own driver.
describe.skipIf(onPostgres)('rows read through the driver', () => {
  it('are the objects better-sqlite3 makes: integers as BigInt, NULL, REAL, text, blobs, column order', async () => {
    const text = 'SELECT * FROM wide ORDER BY id';
    const rows = await viaDriver(text);
    expect(rows).toEqual(direct(text));
    expect(rows[0]).toEqual({ id: 'a', n: 1n, big: 9007199254740993n, r: 1.5, note: 'first', raw: Buffer.from([0, 255]), maybe: null });
    expect(Object.keys(rows[1] ?? {})).toEqual(['id', 'n', 'big', 'r', 'note', 'raw', 'maybe']);
    expect((await sql`SELECT * FROM wide WHERE id = ${'none'}`.execute(opened.db)).rows).toEqual([]);
    expect((await sql`SELECT * FROM wide WHERE id = ${'b'}`.execute(opened.db)).rows).toEqual(direct('SELECT * FROM wide WHERE id = ?', 'b'));
  });

  it('keep the last value of a repeated column name, as better-sqlite3 does', async () => {
    const text = "SELECT id AS v, note AS v, 'tail' AS w FROM wide WHERE id = 'a'";
    expect(await viaDriver(text)).toEqual(direct(text));
    expect(await viaDriver(text)).toEqual([{ v: 'first', w: 'tail' }]);
  });

  it('treat a column named __proto__ as better-sqlite3 does, and never let it set the prototype', async () => {
    const text = "SELECT id AS __proto__, n FROM wide WHERE id = 'a'";
    const [row] = await viaDriver(text);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(row)).toEqual(Object.getOwnPropertyNames(direct(text)[0]));
    expect(row).toEqual(direct(text)[0]);
  });

  it('follow a schema change under a cached `SELECT *`: a new column, a rename, a drop and an add', async () => {
    const text = "SELECT * FROM wide WHERE id = 'b'";
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    expect(Object.keys((await viaDriver(text))[0] ?? {})).toHaveLength(7);
    // Made on the raw handle in the same turn: the column count tells.
    opened.sqlite.exec("ALTER TABLE wide ADD COLUMN added TEXT DEFAULT 'late'");
    expect(await viaDriver(text)).toEqual(direct(text));
    expect((await viaDriver(text))[0]?.added).toBe('late');
    // Same number of columns: only the schema cookie tells (checked on the next turn, or at once
    // after DDL through the driver).
    opened.sqlite.exec('ALTER TABLE wide RENAME COLUMN note TO remark');
    await nextTurn();
    expect(await viaDriver(text)).toEqual(direct(text));
    expect((await viaDriver(text))[0]?.remark).toBe('ünïcødé €');
    await sql`ALTER TABLE wide RENAME COLUMN remark TO comment`.execute(opened.db);
    expect((await viaDriver(text))[0]?.comment).toBe('ünïcødé €');
    opened.sqlite.exec("ALTER TABLE wide DROP COLUMN maybe; ALTER TABLE wide ADD COLUMN other TEXT DEFAULT 'o'");
    await nextTurn();
    const [row] = await viaDriver(text);
    expect(row).toEqual(direct(text)[0]);
    expect(row).not.toHaveProperty('maybe');
    expect(row?.other).toBe('o');
  });

  it('leave out a column named __proto__ that a schema change brings under a cached `SELECT *`', async () => {
    opened.sqlite.exec("CREATE TABLE narrow (id TEXT); INSERT INTO narrow VALUES ('n')");
    const text = 'SELECT * FROM narrow';
    expect(await viaDriver(text)).toEqual([{ id: 'n' }]);
    opened.sqlite.exec("ALTER TABLE narrow ADD COLUMN __proto__ BLOB DEFAULT x'00'");
    const [row] = await viaDriver(text);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(row)).toEqual(['id']);
  });

  it('come back from RETURNING and from a streamed query the same way', async () => {
    const returned = (await sql<Record<string, unknown>>`INSERT INTO wide (id, n) VALUES ('c', 3) RETURNING id, n, other`.execute(opened.db)).rows;
    expect(returned).toEqual([{ id: 'c', n: 3n, other: 'o' }]);
    const streamed: unknown[] = [];
    const db = opened.db.withTables<{ wide: { id: string; n: bigint | null } }>();
    for await (const row of db.selectFrom('wide').select(['id', 'n']).orderBy('id').stream()) {
      streamed.push(row);
    }
    expect(streamed).toEqual(direct('SELECT id, n FROM wide ORDER BY id'));
  });
});
