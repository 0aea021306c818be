// Row locks are written once in the stores (`.forUpdate()`, `.skipLocked()`): PostgreSQL gets
// them, SQLite (one writer holds the whole file, and its parser has no FOR UPDATE) gets none.

import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, DummyDriver } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { BetterSqliteDialect } from '../../src/server/db/driver.js';

const sqlite = new BetterSqlite3(':memory:');
sqlite.exec('CREATE TABLE t (a INTEGER, b TEXT)');
const onSqlite = new Kysely<any>({ dialect: new BetterSqliteDialect(sqlite) });
const onPostgres = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

afterAll(() => sqlite.close());

const locked = (db: Kysely<any>) => db.selectFrom('t').selectAll().where('a', '=', 1).orderBy('a').limit(5).forUpdate().skipLocked();

describe('row-lock modifiers', () => {
  it('PostgreSQL keeps FOR UPDATE SKIP LOCKED', () => {
    expect(locked(onPostgres).compile().sql).toBe('select * from "t" where "a" = $1 order by "a" limit $2 for update skip locked');
  });

  it('SQLite drops them and keeps the rest of the statement', async () => {
    expect(locked(onSqlite).compile().sql).toBe('select * from "t" where "a" = ? order by "a" limit ?');
    expect(onSqlite.selectFrom('t').select('b').distinct().forUpdate().compile().sql).toBe('select distinct "b" from "t"');
    sqlite.exec("INSERT INTO t VALUES (1, 'x')");
    expect(await locked(onSqlite).execute()).toEqual([{ a: 1, b: 'x' }]);
  });
});
