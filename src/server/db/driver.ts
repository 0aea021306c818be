// A Kysely driver for better-sqlite3 with a prepared-statement cache and a guard against the one
// deadlock a single-connection database invites: a query on the root handle inside a transaction.

import { AsyncLocalStorage } from 'node:async_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SelectQueryNode,
  type TransactionSettings,
} from 'kysely';

/**
 * The guard is a development check, on under the test runner (VITEST / NODE_ENV=test) or with
 * PAYCTL_TX_GUARD=1. It needs an AsyncLocalStorage, and on Node 20 a live AsyncLocalStorage installs
 * promise hooks that tax every promise in the process: reads served 15% fewer requests per second
 * with it on, so `payctl serve` runs without it.
 */
export const transactionGuardEnabled =
  process.env.PAYCTL_TX_GUARD === '1' || (process.env.PAYCTL_TX_GUARD !== '0' && (process.env.VITEST !== undefined || process.env.NODE_ENV === 'test'));

const insideTransaction = transactionGuardEnabled ? new AsyncLocalStorage<boolean>() : undefined;

/** Runs `work` marked as transaction-scoped: root-handle queries from inside it fail at once. */
export function markTransactionScope<T>(work: () => Promise<T>): Promise<T> {
  return insideTransaction ? insideTransaction.run(true, work) : work();
}

/** Whether the caller runs inside `markTransactionScope` (always false without the guard). */
export function inTransactionScope(): boolean {
  return insideTransaction?.getStore() === true;
}

const STATEMENT_CACHE_SIZE = 500;
/** Far longer than any transaction here takes (a 1,000-item payout chunk is ~100 ms). */
const CONNECTION_WAIT_LIMIT_MS = 30_000;

type RowBuilder = (values: unknown[]) => unknown;

const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Builds a statement's rows as objects of one fixed shape: an object literal compiled once per
 * column list. better-sqlite3 makes each row object key by key, and V8 moves it through a new
 * hidden class per column; for a page of 100 invoices (23 columns) that was more than half of
 * reading the rows. Keys are JSON string literals of the column names
 * (never request data); a repeated name keeps the last value, as better-sqlite3's objects do.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  if (!names.includes('__proto__')) {
    try {
      return new Function('values', `return {${names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ')}};`) as RowBuilder;
    } catch {
      // Code generation from strings is disallowed in this process: build key by key below.
    }
  }
  // A column named __proto__ is left out: assigning it would set the object's prototype.
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index] as string;
      if (name !== '__proto__') row[name] = values[index];
    }
    return row;
  };
}

/** How a statement's rows are built: from value arrays of `width` columns. */
interface RowShape {
  width: number;
  build: RowBuilder;
}

interface CachedStatement {
  statement: BetterSqlite3.Statement;
  /** For statements that return rows (run in raw mode). */
  shape?: RowShape;
}

const shapeOf = (statement: BetterSqlite3.Statement): RowShape => {
  const names = statement.columns().map((column) => column.name);
  return { width: names.length, build: rowBuilder(names) };
};

/** The builder for these values: remade if their count says the columns changed since it was made. */
function builderFor(cached: CachedStatement, values: unknown[]): RowBuilder {
  // Another count: re-prepared by SQLite after a schema change made since this turn's schema check.
  if (values.length !== cached.shape?.width) cached.shape = shapeOf(cached.statement);
  return cached.shape.build;
}

class CachedConnection implements DatabaseConnection {
  private readonly statements = new Map<string, CachedStatement>();
  private readonly schemaVersion: BetterSqlite3.Statement;
  private knownSchemaVersion: unknown;
  private schemaCheckedThisTurn = false;

  constructor(private readonly sqlite: BetterSqlite3.Database) {
    this.schemaVersion = sqlite.prepare('PRAGMA schema_version').pluck();
    this.knownSchemaVersion = this.schemaVersion.get();
  }

  /**
   * A cached statement's column names were read when it was prepared. A schema change (this
   * connection's or another process's) makes SQLite re-prepare it silently, and a `SELECT *` may
   * then return other columns in the same number (a rename): so the schema cookie is compared, at
   * most once per event-loop turn (reading it is a read transaction), and a change drops
   * every cached statement.
   */
  private checkSchema(): void {
    if (this.schemaCheckedThisTurn) return;
    this.schemaCheckedThisTurn = true;
    setImmediate(() => {
      this.schemaCheckedThisTurn = false;
    }).unref();
    const version = this.schemaVersion.get();
    if (version !== this.knownSchemaVersion) {
      this.knownSchemaVersion = version;
      this.statements.clear();
    }
  }

  private prepare(sqlText: string): CachedStatement {
    this.checkSchema();
    let cached = this.statements.get(sqlText);
    if (!cached) {
      const statement = this.sqlite.prepare(sqlText);
      cached = { statement };
      if (statement.reader) {
        cached.shape = shapeOf(statement);
        statement.raw(true);
      }
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.statements.keys().next().value;
        if (oldest !== undefined) this.statements.delete(oldest);
      }
      this.statements.set(sqlText, cached);
    }
    return cached;
  }

  /** Whether a transaction is open on the connection (SQLite's own flag). */
  inTransaction(): boolean {
    return this.sqlite.inTransaction;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.run<R>(compiledQuery));
  }

  /** Runs the statement now (better-sqlite3 is synchronous). */
  run<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    const cached = this.prepare(compiledQuery.sql);
    const { statement } = cached;
    const parameters = compiledQuery.parameters as unknown[];
    if (cached.shape) {
      const values = statement.all(parameters) as unknown[][];
      const rows = new Array<R>(values.length);
      if (values.length > 0) {
        const build = builderFor(cached, values[0] as unknown[]);
        for (let index = 0; index < values.length; index += 1) rows[index] = build(values[index] as unknown[]) as R;
      }
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    // DDL through this connection: the next statement checks the schema again, even in this turn.
    if (SCHEMA_CHANGE.test(compiledQuery.sql)) this.schemaCheckedThisTurn = false;
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const cached = this.prepare(compiledQuery.sql);
    if (!cached.shape) throw new Error('streamQuery: the statement returns no rows');
    for (const values of cached.statement.iterate(compiledQuery.parameters as unknown[])) {
      yield { rows: [builderFor(cached, values as unknown[])(values as unknown[]) as R] };
    }
  }
}

/** One connection, handed out one holder at a time (SQLite has one writer anyway). */
class SingleConnectionDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly connection: CachedConnection,
    private readonly waitLimitMs: number,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (insideTransaction?.getStore()) {
      throw new Error('query on the root database handle inside a transaction: use the transaction (ctx.db)');
    }
    const previous = this.queue;
    let unlock!: () => void;
    this.queue = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    if (this.holders > 0) await this.waitBounded(previous, unlock);
    else await previous;
    this.holders += 1;
    this.release = () => {
      this.holders -= 1;
      unlock();
    };
    return this.connection;
  }

  /** Holders and waiters: while it is 0 the connection is free and nobody needs a watchdog. */
  private holders = 0;

  /**
   * Without the guard, a root-handle query inside a transaction would wait for that transaction
   * forever, and every later request behind it. A wait that long is refused instead: the stray
   * query fails (its request answers 500 and the error is logged), its transaction rolls back and
   * the queue moves on; the refused waiter's place in the queue is handed on when its turn comes.
   */
  private waitBounded(previous: Promise<void>, unlock: () => void): Promise<void> {
    this.holders += 1;
    let refused = false;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        refused = true;
        reject(
          new Error(
            `waited ${this.waitLimitMs} ms for the database connection: a query on the root database handle inside a transaction? Use the transaction (ctx.db)`,
          ),
        );
      }, this.waitLimitMs);
      timer.unref();
      void previous.then(() => {
        this.holders -= 1;
        if (refused) {
          unlock();
          return;
        }
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A serializable transaction takes the write lock at BEGIN (IMMEDIATE): its reads cannot be
   * overtaken by another process's commit before it writes, and it waits for the lock (busy_timeout)
   * instead of failing when it upgrades. Any other transaction begins deferred.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(settings.isolationLevel === 'serializable' ? 'begin immediate' : 'begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.sqlite.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const unlock = this.release;
    this.release = undefined;
    unlock?.();
  }

  async destroy(): Promise<void> {}
}

export interface DialectOptions {
  /** How long a query may wait for the connection before it is refused (default 30 s). */
  connectionWaitLimitMs?: number;
}

/**
 * Kysely's SQLite adapter, holding the dialect's one connection so that statements run inside a
 * transaction can reach it directly (`runNowInTransaction`).
 */
class BetterSqliteAdapter extends SqliteAdapter {
  constructor(readonly connection: CachedConnection) {
    super();
  }
}

/**
 * Runs `query` now, straight on the connection, when `db` is a transaction of this dialect and
 * SQLite has a transaction open, and gives its result; otherwise undefined (the caller goes through
 * Kysely). A transaction holds the one connection from its BEGIN to its COMMIT, so nothing else can
 * be using it. Kysely's executor would add a connection provider's queue, a pass over result plugins
 * (this dialect has none) and a few promise hops to each of a capture's ~13 statements.
 */
export function runNowInTransaction<R>(db: { isTransaction: boolean; getExecutor(): { adapter: unknown } }, query: CompiledQuery): QueryResult<R> | undefined {
  if (!db.isTransaction) return undefined;
  const { adapter } = db.getExecutor();
  if (!(adapter instanceof BetterSqliteAdapter) || !adapter.connection.inTransaction()) return undefined;
  return adapter.connection.run<R>(query);
}

/** Row-lock modifiers: PostgreSQL needs them; SQLite has no row locks (one writer at a time) and rejects them. */
const ROW_LOCK_MODIFIERS: ReadonlySet<string> = new Set(['ForUpdate', 'ForNoKeyUpdate', 'ForShare', 'ForKeyShare', 'NoWait', 'SkipLocked']);

/**
 * SQLite's compiler, minus row locks: stores write `.forUpdate()` / `.skipLocked()` once for every
 * database, and on SQLite, where a writer holds the whole database, they compile to nothing.
 */
class LockFreeSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitSelectQuery(node: SelectQueryNode): void {
    const kept = node.endModifiers?.filter((modifier) => modifier.modifier === undefined || !ROW_LOCK_MODIFIERS.has(modifier.modifier));
    super.visitSelectQuery(kept?.length === node.endModifiers?.length ? node : { ...node, endModifiers: kept });
  }
}

export class BetterSqliteDialect implements Dialect {
  private readonly connection: CachedConnection;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly options: DialectOptions = {},
  ) {
    this.connection = new CachedConnection(sqlite);
  }

  createAdapter() {
    return new BetterSqliteAdapter(this.connection);
  }

  createDriver(): Driver {
    return new SingleConnectionDriver(this.sqlite, this.connection, this.options.connectionWaitLimitMs ?? CONNECTION_WAIT_LIMIT_MS);
  }

  createQueryCompiler() {
    return new LockFreeSqliteQueryCompiler();
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
