// Storage on PostgreSQL (15 or later): a pg pool behind Kysely's PostgresDialect, READ COMMITTED
// transactions with row locks taken by the stores, advisory locks for `exclusive`, bounded retries.

import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  sql,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { databaseForDisplay } from '../../lib/database-url.js';
import { DatabaseSetupError } from './connection.js';
import { inTransactionScope } from './driver.js';
import { jobLeaseRunner, newLeaseOwner } from './job-leases.js';
import { migratePostgres } from './migrate.js';
import { DEFAULT_RETRY_POLICY, withTransactionRetry, type RetryPolicy } from './retry.js';
import type { Database, Db, Trx } from './schema.js';
import { runTransactionBody, type AuditEngine, type CommitWith, type Storage, type TxOptions } from './storage.js';

export const DEFAULT_POOL_SIZE = 10;
export const MINIMUM_SERVER_VERSION = 150000;

/** A statement running this long is cancelled (57014): far past any request's or job's work here. */
const STATEMENT_TIMEOUT_MS = 60_000;
/** A row or advisory lock waited for this long fails the transaction (55P03, retried) instead of hanging it. */
const LOCK_TIMEOUT_MS = 15_000;
/** A transaction left open this long by a stuck process is ended by the server, its locks released. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 120_000;

const BIGINT_OIDS = [20 /* int8 */, 23 /* int4 */, 21 /* int2 */];
const NUMERIC_OID = 1700;
const INTEGRAL = /^-?\d+$/;

/**
 * Integers come back as bigint, as better-sqlite3's safe integers give them: every column is BIGINT,
 * and COUNT(*) is int8; SUM of a BIGINT column is numeric, integral here. A fractional numeric (an
 * average) comes back as a number, as SQLite gives a REAL.
 */
const integerTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (BIGINT_OIDS.includes(oid)) return (value: string) => BigInt(value);
      if (oid === NUMERIC_OID) return (value: string) => (INTEGRAL.test(value) ? BigInt(value) : Number(value));
    }
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Ends the SQL text of a transaction's last statements sent with its COMMIT (`commitWithStatements`). */
const COMMIT_WITH_STATEMENTS = '; COMMIT /* payctl: with the before-commit steps */';
/** Connections whose open transaction was committed that way: Kysely's own COMMIT is not sent. */
const committedWithStatements = new WeakSet<DatabaseConnection>();
const patched = new WeakSet<DatabaseConnection>();
/** Connections whose transaction has begun here but whose BEGIN is not sent yet: it goes with the first statement. */
const pendingBegin = new WeakMap<DatabaseConnection, string>();

/**
 * Kysely's PostgreSQL driver, with two round trips fewer per transaction:
 * - BEGIN is sent right before the transaction's first statement, without waiting for its answer
 *   (the pool's connections pipeline, pg's `pipeline` option): PostgreSQL runs them in order, so
 *   the statement runs in the transaction and both answers come back together. A transaction that
 *   runs no statement sends neither BEGIN nor its end.
 * - a transaction whose before-commit steps went out with its COMMIT (one simple-protocol
 *   message: the step's row locks are released by the server itself, with no round trip to this
 *   process in between) is not committed a second time.
 */
class CommitWithStatementsDriver extends PostgresDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!patched.has(connection)) {
      patched.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const begin = pendingBegin.get(connection);
        let begun: Promise<unknown> | undefined;
        if (begin !== undefined) {
          pendingBegin.delete(connection);
          begun = execute(CompiledQuery.raw(begin));
          // Awaited below, after the statement written behind it.
          begun.catch(() => undefined);
        }
        let result: QueryResult<R>;
        try {
          result = await execute<R>(query);
        } finally {
          // A failed BEGIN (the connection broke) fails the transaction, whatever the statement did.
          if (begun !== undefined) await begun;
        }
        if (query.sql.endsWith(COMMIT_WITH_STATEMENTS)) committedWithStatements.add(connection);
        return result;
      };
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = 'start transaction';
    if (settings.isolationLevel) text += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) text += ` ${settings.accessMode}`;
    pendingBegin.set(connection, text);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (pendingBegin.delete(connection)) return;
    if (committedWithStatements.delete(connection)) return;
    await super.commitTransaction(connection);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (pendingBegin.delete(connection)) return;
    await super.rollbackTransaction(connection);
  }
}

class CommitWithStatementsDialect extends PostgresDialect {
  readonly #config: ConstructorParameters<typeof PostgresDialect>[0];
  constructor(config: ConstructorParameters<typeof PostgresDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new CommitWithStatementsDriver(this.#config);
  }
}

/**
 * A value as an SQL literal, or undefined for one that is not written in (bytes, dates, objects).
 * Every value is a quoted literal, as pg sends a parameter (its text, of no declared type), so
 * PostgreSQL types it by its place exactly as it would `$n`; a bare number would also make a
 * negative value after a minus (`-$1`, `0 -$1`) the start of a `--` comment that swallows the rest
 * of the message, the COMMIT included. Quoting goes through pg's own `escapeLiteral` (quotes
 * doubled, backslashes in an E'' literal).
 */
function literalOf(value: unknown): string | undefined {
  if (value === null) return 'NULL';
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return pg.escapeLiteral(String(value));
  if (typeof value === 'string') return value.includes('\0') ? undefined : pg.escapeLiteral(value);
  return undefined;
}

/**
 * A compiled statement as SQL text with its parameters written in; undefined when one cannot be, or
 * when the text has a quoted literal of its own (where "$1" would not be a parameter): a '...'
 * literal, or any "$" that is not a parameter's (a dollar-quoted `$tag$...$tag$` string, inside
 * which a value holding `$tag$` would end the string and be read as SQL).
 */
export function inlineParameters(query: CompiledQuery): string | undefined {
  if (query.parameters.length === 0) return query.sql;
  if (/'|\$(?!\d)/.test(query.sql)) return undefined;
  const literals = query.parameters.map(literalOf);
  if (literals.includes(undefined)) return undefined;
  let valid = true;
  const text = query.sql.replace(/\$(\d+)/g, (_match, index: string) => {
    const literal = literals[Number(index) - 1];
    if (literal === undefined) valid = false;
    return literal ?? '';
  });
  return valid ? text : undefined;
}

/** The statements and COMMIT in one message (no parameters: pg sends it by the simple protocol). */
const commitWithStatements: CommitWith = (trx, queries) => {
  const texts = queries.map(inlineParameters);
  if (texts.includes(undefined)) return undefined;
  return trx.executeQuery(CompiledQuery.raw(texts.join('; ') + COMMIT_WITH_STATEMENTS)).then(() => undefined);
};

export interface PostgresStorageOptions {
  /** Connections in the pool (--db-pool-size). */
  poolSize?: number;
  /** Retries of serialization failures, deadlocks and lock timeouts (tests inject their own). */
  retry?: RetryPolicy;
  /** Errors of idle pooled connections (the server restarted, a network cut): logged, the pool reconnects. */
  onIdleError?: (error: Error) => void;
}

/** The URL without its password, for messages and logs. */
export const redactedUrl = databaseForDisplay;

/**
 * Opens a pool on `url` (its `?sslmode=` and other parameters as pg reads them), checks the server,
 * applies the migrations (once, whichever replica gets there first) and returns the storage.
 */
export async function openPostgresStorage(url: string, now: string, options: PostgresStorageOptions = {}): Promise<Storage> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    types: integerTypes,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    lock_timeout: LOCK_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    application_name: 'payctl',
    // A statement is written without waiting for the answers of those before it (the deferred
    // BEGIN above relies on it); each still gets its own answer or error, in order.
    pipeline: true,
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  const db: Db = new Kysely<Database>({
    dialect: new CommitWithStatementsDialect({
      pool: {
        // The guard (on under the test runner or PAYCTL_TX_GUARD=1, driver.ts): a transaction holds
        // its own pooled connection, so a query on the root handle inside it would not deadlock as
        // on SQLite but run outside the transaction (and could exhaust the pool). Under the guard it
        // fails instead, as on SQLite, so tests catch such a query.
        connect: () => {
          if (inTransactionScope()) return Promise.reject(new Error('query on the root database handle inside a transaction: use the transaction (ctx.db)'));
          return pool.connect();
        },
        end: () => pool.end(),
      },
    }),
  });
  try {
    await checkServer(db, url);
    await migratePostgres(db, now);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  return createPostgresStorage(db, options.retry ?? DEFAULT_RETRY_POLICY);
}

/** Refuses a server older than PostgreSQL 15, or one that cannot be reached (the URL shown without its password). */
export async function checkServer(db: Db, url: string): Promise<void> {
  let version: { num: string; text: string } | undefined;
  try {
    const result = await sql<{ num: string; text: string }>`SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS text`.execute(db);
    version = result.rows[0];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DatabaseSetupError(`could not connect to PostgreSQL at ${redactedUrl(url)}: ${message}`);
  }
  if (!version || Number(version.num) < MINIMUM_SERVER_VERSION) {
    throw new DatabaseSetupError(`PostgreSQL 15 or later is required; ${redactedUrl(url)} runs ${version?.text ?? 'an unknown version'}`);
  }
}

export const postgresAudit: AuditEngine = {
  dialect: 'postgres',
  async tables(db) {
    const rows = await sql<{ name: string }>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(db);
    return new Set(rows.rows.map((row) => row.name));
  },
  // PostgreSQL enforces foreign keys on every write (SQLite only when the pragma is on), so what is
  // left to check is a constraint added NOT VALID and never validated, and an index a failed
  // concurrent build left invalid.
  async engineChecks(db) {
    const constraints = await sql<{ table_name: string; constraint_name: string }>`
      SELECT conrelid::regclass::text AS table_name, conname AS constraint_name FROM pg_constraint
      WHERE NOT convalidated AND connamespace = current_schema()::regnamespace ORDER BY 1, 2`.execute(db);
    const indexes = await sql<{ index_name: string }>`
      SELECT c.relname AS index_name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE NOT (i.indisvalid AND i.indisready) AND c.relnamespace = current_schema()::regnamespace ORDER BY 1`.execute(db);
    return [
      { name: 'postgres-indexes-valid', description: 'every index is valid and ready', violations: indexes.rows.map((row) => ({ index_name: row.index_name })) },
      { name: 'foreign-keys', description: 'every foreign key and check constraint is validated', violations: constraints.rows.map((row) => ({ ...row })) },
    ];
  },
};

export function createPostgresStorage(db: Db, retry: RetryPolicy): Storage {
  let committed = 0;
  const withLease = jobLeaseRunner(newLeaseOwner());
  const runOnce = <T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T> =>
    db
      .transaction()
      .setIsolationLevel('read committed')
      .execute(async (trx) => {
        if (opts.exclusive !== undefined) await sql`SELECT pg_advisory_xact_lock(hashtext(${opts.exclusive}))`.execute(trx);
        return runTransactionBody(trx, work, commitWithStatements);
      });
  const storage: Storage = {
    dialect: 'postgres',
    db,
    audit: postgresAudit,
    // Old row versions stay in the table file until vacuum reclaims them; nothing here can do better.
    secureRewrite: (name, work) => storage.transaction({ name }, work),
    // `batch` is ignored: each transaction has its own pooled connection, and the server commits
    // concurrent transactions together on its own (commit_delay aside, WAL flushes are shared).
    async transaction<T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T> {
      const result = await withTransactionRetry('postgres', () => runOnce(opts, work), retry);
      committed += 1;
      return result;
    },
    // Every replica on the database runs the same jobs: the lease is a row (db/job-leases.ts).
    withJobLease(name, ttlMs, work) {
      return withLease(storage, name, ttlMs, work);
    },
    generation: undefined,
    processCaches: false,
    stats: () => ({ batches: committed, requests: committed }),
    close: () => db.destroy(),
  };
  return storage;
}
