// Statements on the hot paths, built once. Kysely's builder makes immutable, frozen nodes for every
// call; for a keyed read or a one-row insert that costs more CPU than SQLite's own work (a capture
// runs 11 statements). A prepared statement is built and compiled on first
// use with named slots in place of values; each run only fills the parameter array and runs the
// compiled query: inside an open SQLite transaction straight on its connection (driver.ts,
// runNowInTransaction), otherwise through Kysely's executor (same connection, same dialect).

import { sql, type CompiledQuery, type Compilable, type Insertable, type QueryResult, type Selectable, type SelectQueryBuilder, type Updateable } from 'kysely';
import { runNowInTransaction } from './driver.js';
import { writeUnanswered } from './storage.js';
import type { Database, Db, Queryable } from './schema.js';

/** Stands for a value while the statement is built; replaced by the named argument on each run. */
class Slot {
  constructor(readonly name: string) {}
}

type Args = Record<string, unknown>;

/** `arg('name')` inside a builder: the value is supplied on each run. */
export type ArgFn<A extends Args> = <K extends keyof A & string>(name: K) => A[K];

export interface PreparedStatement<A extends Args, R> {
  /**
   * The result itself when `db` is an open transaction on SQLite (run at once: awaiting a value that
   * is already there still costs a turn of the microtask queue, and a capture runs ~13 statements),
   * otherwise a promise of it.
   */
  run(db: Queryable, args: A): QueryResult<R> | Promise<QueryResult<R>>;
  /** The statement compiled for `db`'s dialect with `args` filled in, not run. */
  bind(db: Queryable, args: A): CompiledQuery<R>;
  execute(db: Queryable, args: A): Promise<QueryResult<R>>;
  /** The rows. */
  all(db: Queryable, args: A): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Queryable, args: A): Promise<R | undefined>;
}

interface Compiled {
  query: CompiledQuery;
  /** Per parameter: the argument name that fills it. */
  slots: string[];
}

function compile<A extends Args>(db: Queryable, build: (db: Db, arg: ArgFn<A>) => Compilable<unknown>): Compiled {
  const used = new Set<string>();
  const arg = ((name: string) => {
    used.add(name);
    return new Slot(name);
  }) as ArgFn<A>;
  const query = build(db, arg).compile();
  const slots = query.parameters.map((parameter) => {
    // A value captured from outside would be served to every later caller (another account's id).
    if (!(parameter instanceof Slot)) throw new Error(`prepared statement: a value not passed through arg() (use sql.lit for a constant) in: ${query.sql}`);
    return parameter.name;
  });
  for (const name of used) {
    if (!slots.includes(name)) throw new Error(`prepared statement: argument "${name}" did not become a parameter of: ${query.sql}`);
  }
  return { query, slots };
}

/**
 * A statement built by `build` once (with `arg(name)` where values go), then run with arguments.
 * Only plain values may be arguments: what shapes the SQL (column lists, IN lists) must not vary.
 */
export function prepared<A extends Args, R = unknown>(
  build: (db: Db, arg: ArgFn<A>) => Compilable<R>,
): PreparedStatement<A, R> {
  // Compiled per dialect (the adapter object), so a second database kind gets its own SQL.
  const compiledFor = new WeakMap<object, Compiled>();
  /** The compiled statement with `args` in its parameter slots. */
  const bind = (db: Queryable, args: A): CompiledQuery<R> => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledFor.get(adapter);
    if (!compiled) {
      compiled = compile(db, build);
      compiledFor.set(adapter, compiled);
    }
    const { query, slots } = compiled;
    const parameters = new Array<unknown>(slots.length);
    for (let index = 0; index < slots.length; index += 1) {
      const name = slots[index] as string;
      const value = args[name];
      if (value === undefined) throw new Error(`prepared statement: no value for "${name}" in: ${query.sql}`);
      parameters[index] = value;
    }
    return { ...query, parameters } as CompiledQuery<R>;
  };
  const run = (db: Queryable, args: A): QueryResult<R> | Promise<QueryResult<R>> => {
    const filled = bind(db, args);
    return runNowInTransaction<R>(db, filled) ?? db.executeQuery<R>(filled);
  };
  return {
    run,
    bind,
    // Async like the two below: a refusal (a missing value, or SQLite's own) is a rejection.
    execute: async (db, args) => {
      const result = run(db, args);
      return result instanceof Promise ? await result : result;
    },
    all: async (db, args) => {
      const result = run(db, args);
      return (result instanceof Promise ? await result : result).rows;
    },
    first: async (db, args) => {
      const result = run(db, args);
      return (result instanceof Promise ? await result : result).rows[0];
    },
  };
}

// Keyed one-table statements, prepared per column list: drop-in for the common
// `insertInto(t).values(row)`, `selectFrom(t).selectAll().where(a = ?)...` and
// `updateTable(t).set(changes).where(...)` shapes. The column lists come from the objects' own keys
// (in their order), so every distinct shape is its own statement. In a row or a set of changes an
// undefined value is left out, as Kysely leaves it out; a key must name at least one column and
// give each a value, so that a missing value can never widen a read or an update to other rows.

type Table = keyof Database & string;
type Row<T extends Table> = Selectable<Database[T]>;
type Key<T extends Table> = Partial<Row<T>>;

const statements = new Map<string, PreparedStatement<Args, unknown>>();

function definedKeys(values: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const key in values) if (values[key] !== undefined) keys.push(key);
  return keys;
}

function cached(cacheKey: string, build: (db: Db, arg: ArgFn<Args>) => Compilable<unknown>): PreparedStatement<Args, unknown> {
  let statement = statements.get(cacheKey);
  if (!statement) {
    statement = prepared(build);
    statements.set(cacheKey, statement);
  }
  return statement;
}

function whereAll<Q extends { where: (...args: never[]) => Q }>(query: Q, columns: string[], prefix: string, arg: ArgFn<Args>): Q {
  let built = query;
  for (const column of columns) built = (built.where as (c: string, op: string, v: unknown) => Q)(column, '=', arg(`${prefix}${column}`));
  return built;
}

function keyColumnsOf(table: string, key: Record<string, unknown>): string[] {
  const columns = Object.keys(key);
  if (columns.length === 0) throw new Error(`prepared statement on ${table}: a key needs at least one column`);
  for (const column of columns) {
    if (key[column] === undefined) throw new Error(`prepared statement on ${table}: no value for key column "${column}"`);
  }
  return columns;
}

function prefixed(values: Record<string, unknown>, columns: string[], prefix: string, into: Args): void {
  for (const column of columns) into[`${prefix}${column}`] = values[column];
}

/** Inserts one row (its defined columns). */
export async function insertRow<T extends Table>(db: Queryable, table: T, row: Insertable<Database[T]>, options: WriteOptions = {}): Promise<void> {
  const columns = definedKeys(row as Record<string, unknown>);
  const statement = cached(`insert|${table}|${columns.join(',')}`, (base, arg) =>
    (base.insertInto(table as Table) as unknown as { values(values: Args): Compilable<unknown> }).values(Object.fromEntries(columns.map((column) => [column, arg(column)]))),
  );
  if (options.unanswered) return writeUnanswered(db, statement, row as Args);
  const result = statement.run(db, row as Args);
  if (result instanceof Promise) await result;
}

/** How a write is sent. */
export interface WriteOptions {
  /**
   * Without waiting for its answer, with the transaction's next statement (db/storage.ts
   * `writeUnanswered`): for a write whose failure the caller does not handle itself.
   */
  unanswered?: boolean;
}

/**
 * How a read is taken. `forUpdate`: the rows stay locked until the transaction ends, for a
 * read-check-write (a plain read on SQLite, whose writer holds the file).
 */
export interface ReadOptions {
  forUpdate?: boolean;
}

/** `findRows`'s order: columns, each ascending. */
export interface ListOptions<T extends Table> extends ReadOptions {
  orderBy?: ReadonlyArray<keyof Row<T> & string>;
}

/** The rows of `table` whose columns equal `key`'s values (every column selected). */
export async function findRows<T extends Table>(db: Queryable, table: T, key: Key<T>, options: ListOptions<T> = {}): Promise<Array<Row<T>>> {
  const result = selectByKey(db, table, key, options);
  return (result instanceof Promise ? await result : result).rows as Array<Row<T>>;
}

/** The first row of `table` whose columns equal `key`'s values, or undefined. */
export async function findRow<T extends Table>(db: Queryable, table: T, key: Key<T>, options: ReadOptions = {}): Promise<Row<T> | undefined> {
  const result = selectByKey(db, table, key, options);
  return (result instanceof Promise ? await result : result).rows[0] as Row<T> | undefined;
}

function selectByKey<T extends Table>(db: Queryable, table: T, key: Key<T>, options: ListOptions<T>): QueryResult<unknown> | Promise<QueryResult<unknown>> {
  const columns = keyColumnsOf(table, key as Record<string, unknown>);
  const forUpdate = options.forUpdate === true;
  const order: readonly string[] = options.orderBy ?? [];
  const statement = cached(`select|${table}|${columns.join(',')}|${order.join(',')}|${forUpdate ? 'for update' : ''}`, (base, arg) => {
    let query = whereAll(base.selectFrom(table as Table).selectAll() as never as SelectQueryBuilder<Database, Table, object>, columns, '', arg);
    for (const column of order) query = query.orderBy(sql.ref(column));
    return forUpdate ? query.forUpdate() : query;
  });
  return statement.run(db, key as Args);
}

/** Whether any row of `table` has columns equal to `key`'s values (reads no row, stops at the first). */
export async function rowExists<T extends Table>(db: Queryable, table: T, key: Key<T>): Promise<boolean> {
  const columns = keyColumnsOf(table, key as Record<string, unknown>);
  const statement = cached(`exists|${table}|${columns.join(',')}`, (base, arg) =>
    whereAll(base.selectFrom(table as Table).select(sql.lit(1).as('found')) as never as SelectQueryBuilder<Database, Table, object>, columns, '', arg).limit(
      sql.lit(1),
    ),
  );
  const result = statement.run(db, key as Args);
  return (result instanceof Promise ? await result : result).rows.length > 0;
}

/**
 * Sets `changes` (its defined columns) on the rows whose columns equal `key`'s values: the count
 * changed, or nothing when the update is sent `unanswered`.
 */
export async function updateRows<T extends Table>(db: Queryable, table: T, key: Key<T>, changes: Updateable<Database[T]>): Promise<bigint>;
export async function updateRows<T extends Table>(db: Queryable, table: T, key: Key<T>, changes: Updateable<Database[T]>, options: { unanswered: true }): Promise<void>;
export async function updateRows<T extends Table>(db: Queryable, table: T, key: Key<T>, changes: Updateable<Database[T]>, options: WriteOptions = {}): Promise<bigint | void> {
  const keyColumns = keyColumnsOf(table, key as Record<string, unknown>);
  const setColumns = definedKeys(changes as Record<string, unknown>);
  if (setColumns.length === 0) throw new Error(`prepared statement on ${table}: an update needs at least one column to set`);
  const statement = cached(`update|${table}|${setColumns.join(',')}|${keyColumns.join(',')}`, (base, arg) =>
    whereAll(
      (base.updateTable(table as Table) as unknown as { set(values: Args): never }).set(Object.fromEntries(setColumns.map((column) => [column, arg(`set.${column}`)]))),
      keyColumns,
      'key.',
      arg,
    ),
  );
  const args: Args = {};
  prefixed(changes as Record<string, unknown>, setColumns, 'set.', args);
  prefixed(key as Record<string, unknown>, keyColumns, 'key.', args);
  if (options.unanswered) return writeUnanswered(db, statement, args);
  const pending = statement.run(db, args);
  const result = pending instanceof Promise ? await pending : pending;
  return result.numAffectedRows ?? 0n;
}
