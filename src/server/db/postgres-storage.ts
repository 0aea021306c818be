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
import { DEFAULT_RETRY_POLICY, isStalePreparedStatement, withTransactionRetry, type RetryPolicy } from './retry.js';
import type { Database, Db, Trx } from './schema.js';
import { PreparedNames, SkippedStatement, StatementBatch, transactionAborted, UnwrittenStatement, type BatchStatement } from './pg-batch.js';
import { openPipeline, runTransactionBody, type AuditEngine, type CommitWith, type Pipeline, type Storage, type TxOptions } from './storage.js';

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

/**
 * The COMMIT a transaction's before-commit statements are written just ahead of (`commitWithStatements`),
 * and those statements.
 */
const statementsBeforeCommit = new WeakMap<CompiledQuery, readonly CompiledQuery[]>();
/** Connections whose transaction has ended with its before-commit statements: Kysely's own COMMIT or ROLLBACK is not sent. */
const endedWithStatements = new WeakSet<DatabaseConnection>();
const patched = new WeakSet<DatabaseConnection>();
/** Connections whose transaction has begun here but whose BEGIN is not sent yet: it goes with the first statement. */
const pendingBegin = new WeakMap<DatabaseConnection, string>();
/** A statement sent ahead (db/storage.ts `sendAhead`), and how its answer is given to its sender. */
interface Held {
  query: CompiledQuery;
  /** Written to the server (with the statement after it, or on its own). */
  written: boolean;
  settle(outcome: Promise<QueryResult<unknown>>): void;
}
/** What the pipeline hands the driver (a stand-in query) for the statement it holds. */
const heldStandIns = new WeakMap<CompiledQuery, Held>();
/** Stand-ins that write what is held on its own. */
const flushStandIns = new WeakSet<CompiledQuery>();
/** Per connection, the statements of its transaction waiting to go with its next statement or its COMMIT. */
const heldWrites = new WeakMap<DatabaseConnection, Held[]>();
const NO_ROWS: QueryResult<never> = { rows: [] };
const droppedError = () => new Error('the transaction ended before this statement was sent');

/** Waits for every answer of what was written together; throws the first error, in the order written. */
async function allOrFirstError(sent: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/**
 * Kysely's PostgreSQL driver, with round trips fewer per transaction. What a connection is asked
 * to run in one turn of the event loop is written as one batch (`PayctlClient`, pg-batch.ts: each
 * statement gets its own answer or error, in order, and PostgreSQL answers them all at once), so:
 * - BEGIN is written right before the transaction's first statement, in the same batch, and both
 *   answers come back together. A transaction that runs no statement
 *   sends neither BEGIN nor its end.
 * - a statement of `sendAhead` or `writeUnanswered` (db/storage.ts) is held and written right
 *   before the transaction's next statement or its COMMIT, in the same system call; its sender
 *   gets its answer when that comes (or has it written on its own: `flush`).
 * - a transaction's before-commit statements are written with its COMMIT, each as its own prepared
 *   statement: a row they lock is released by the server itself, with no round trip to this
 *   process in between. The COMMIT ends the transaction whatever they did (after an error in one
 *   the client rolls it back), so Kysely's own end is not sent after it.
 * Every answer of what was written together is awaited; the first error is the outcome.
 */
class PipelinedDriver extends PostgresDriver {
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!patched.has(connection)) {
      patched.add(connection);
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const holding = heldStandIns.get(query);
        if (holding !== undefined) {
          const held = heldWrites.get(connection);
          if (held === undefined) heldWrites.set(connection, [holding]);
          else held.push(holding);
          return NO_ROWS;
        }
        const ahead: Array<Promise<unknown>> = [];
        const begin = pendingBegin.get(connection);
        if (begin !== undefined) {
          pendingBegin.delete(connection);
          ahead.push(execute(CompiledQuery.raw(begin)));
        }
        const held = heldWrites.get(connection);
        if (held !== undefined) {
          heldWrites.delete(connection);
          for (const entry of held) {
            const sent = execute(entry.query);
            entry.written = true;
            entry.settle(sent);
            ahead.push(sent);
          }
        }
        const statements = statementsBeforeCommit.get(query);
        if (statements !== undefined) {
          endedWithStatements.add(connection);
          for (const statement of statements) ahead.push(execute(statement));
        }
        if (flushStandIns.has(query)) {
          await allOrFirstError(ahead);
          return NO_ROWS;
        }
        if (ahead.length === 0) return execute<R>(query);
        const own = execute<R>(query);
        await allOrFirstError([...ahead, own]);
        return own;
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
    if (endedWithStatements.delete(connection)) return;
    if (!heldWrites.has(connection) && pendingBegin.delete(connection)) return;
    // The COMMIT ends the transaction whatever the writes held before it did: should one fail, the
    // rollback that follows is not sent.
    endedWithStatements.add(connection);
    await super.commitTransaction(connection);
    endedWithStatements.delete(connection);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    for (const entry of heldWrites.get(connection) ?? []) entry.settle(Promise.reject(droppedError()));
    heldWrites.delete(connection);
    if (endedWithStatements.delete(connection)) return;
    if (pendingBegin.delete(connection)) return;
    await super.rollbackTransaction(connection);
  }
}

class PipelinedDialect extends PostgresDialect {
  readonly #config: ConstructorParameters<typeof PostgresDialect>[0];
  constructor(config: ConstructorParameters<typeof PostgresDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new PipelinedDriver(this.#config);
  }
}

/** `sendAhead` on PostgreSQL: a statement is held, to go with the transaction's next statement. */
function pipelineOf(trx: Trx): Pipeline {
  return {
    async hold(query) {
      let settle!: (outcome: Promise<QueryResult<unknown>>) => void;
      const result = new Promise<QueryResult<unknown>>((resolve) => {
        settle = resolve;
      });
      // Its failure is also the next statement's: a sender that never reads the answer is not told twice.
      result.catch(() => undefined);
      const standIn = CompiledQuery.raw('-- payctl: a statement held for the next one');
      const held: Held = { query, written: false, settle };
      heldStandIns.set(standIn, held);
      await trx.executeQuery(standIn);
      return { result, written: () => held.written };
    },
    async flush() {
      const standIn = CompiledQuery.raw('-- payctl: the held statements, on their own');
      flushStandIns.add(standIn);
      await trx.executeQuery(standIn);
    },
  };
}

/** The statements, then COMMIT, written together (`PipelinedDriver`). */
const commitWithStatements: CommitWith = (trx, queries) => {
  const commit = CompiledQuery.raw('commit');
  statementsBeforeCommit.set(commit, queries);
  return trx.executeQuery(commit).then(() => undefined);
};

/** Statement texts that get a server-side name, at most this many per process (later ones run unnamed). */
const NAMED_STATEMENTS_MAX = 2_000;
/** A statement with more parameters than this (a long multi-row insert) runs unnamed: its text is rarely seen twice. */
const NAMED_PARAMETERS_MAX = 100;
/**
 * Texts whose shape follows the count of values (an IN list of parameters, a multi-row VALUES):
 * each count is a text of its own, so they run unnamed rather than use up the names.
 */
const SHAPED_BY_VALUES = /\bin \(\$\d|\), \(\$\d/i;
/**
 * Texts whose best plan may depend on the values: a range or inequality, a pattern, an order, a
 * limit or an offset, a semi-join (EXISTS, IN a subquery, ANY or ALL). They run unnamed, planned
 * for their values every time. A named statement may be run on one generic plan after five runs
 * (PostgreSQL's plan cache, `plan_cache_mode = auto`): right for what is left (inserts, and reads,
 * updates and upserts on equalities), and it saves planning on every run (a join such as the token
 * lookup costs more to plan than to run). Planned blind to its values, the webhook delivery claim
 * (an ORDER BY and LIMIT over a NOT EXISTS) once ran into the statement timeout under load.
 */
const PLANNED_BY_VALUES = /[<>~]|!=|\b(?:order\s+by|limit|offset|i?like|similar\s+to|between|exists|any|all)\b|\bin\s*\(\s*select\b/i;
const statementNames = new Map<string, string>();
/** A text of more than one statement (a `;` before more text): pg's simple protocol runs it, not a batch. */
const SEVERAL_STATEMENTS = /;\s*\S/;

function statementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined || statementNames.size >= NAMED_STATEMENTS_MAX || SHAPED_BY_VALUES.test(text) || PLANNED_BY_VALUES.test(text)) return known;
  const name = `payctl_${statementNames.size + 1}`;
  statementNames.set(text, name);
  return name;
}

interface PgUtils {
  prepareValue(value: unknown): string | Buffer | null;
}
/**
 * pg's own encoder of a parameter (what its Bind does with each value): `utils` on the object pg
 * exports, undeclared by its types. Imported as ESM that object is `pg`; in the server bundle
 * (CommonJS interop with pg's chunk, scripts/bundle-server.mjs) it is `pg.default`.
 */
function pgEncoder(): PgUtils['prepareValue'] {
  const main = pg as unknown as { utils?: PgUtils; default?: { utils?: PgUtils } };
  const utils = main.utils ?? main.default?.utils;
  if (utils === undefined) throw new Error("pg's value encoder (pg.utils.prepareValue) was not found");
  return utils.prepareValue;
}
const encodeValue = pgEncoder();

/**
 * A COMMIT PostgreSQL answered with ROLLBACK: a statement of the transaction had failed, and the
 * code that ran it went on (caught the error, or never saw it: an unanswered write's error goes to
 * the statement after it). The transaction is not committed, so the caller must not be told it was.
 */
function refuseRolledBack(result: pg.QueryResult): pg.QueryResult {
  if (result.command !== 'ROLLBACK') return result;
  throw transactionAborted('the transaction was rolled back at its COMMIT: one of its statements had failed');
}

/**
 * The pool's client:
 * - each statement with parameters is prepared once per connection under a name, so PostgreSQL
 *   parses it once and later only binds and runs it (Kysely passes text and values), not those
 *   whose plan follows their values (PLANNED_BY_VALUES) or whose text follows their count;
 *   a schema change that alters a prepared statement's columns makes the connection prepare every
 *   statement again under new names (the failed transaction is retried, retry.ts; a statement
 *   outside a transaction is run again at once);
 * - what is asked for in one turn of the event loop is written at its end as one batch with one
 *   Sync (BEGIN and the first statement; the before-commit statements and COMMIT): one system call
 *   each way, where a Sync per statement cost PostgreSQL a write and this process a wake-up per
 *   statement (pg-batch.ts);
 * - a transaction with a statement that could not be written (a value pg cannot encode, found
 *   before anything of it is sent) is never committed: PostgreSQL never saw that statement fail,
 *   and the COMMIT written behind it would commit the rest. Its later statements are refused
 *   unsent, and its COMMIT is sent as a ROLLBACK and refused (25P02), as a statement PostgreSQL
 *   refused makes it do.
 */
class PayctlClient extends pg.Client {
  readonly #named: boolean;
  /** Bumped when PostgreSQL refused a prepared statement as stale: the names of the next round. */
  #round = 0;
  /** Between a BEGIN and its COMMIT or ROLLBACK, as written to the server. */
  #inTransaction = false;
  /** A statement of the open transaction could not be written: the transaction must not commit. */
  #unwritten: Error | undefined;
  /** Statements asked for in this turn of the event loop, written together at its end (pg-batch.ts). */
  #batch: BatchStatement[] | undefined;
  readonly #names = new PreparedNames();
  readonly #typeParser = (oid: number, format: 'text' | 'binary') =>
    (this as unknown as { getTypeParser(oid: number, format: string): (value: string) => unknown }).getTypeParser(oid, format);

  constructor(config?: pg.ClientConfig & { namedStatements?: boolean }) {
    super(config);
    this.#named = config?.namedStatements !== false;
  }

  override query(...args: unknown[]): never {
    const [text, given] = args;
    if (typeof text !== 'string' || args.length > 2 || (given !== undefined && !Array.isArray(given)) || SEVERAL_STATEMENTS.test(text)) {
      // pg's own path (a config object, a callback, several statements in one text), after what waits.
      this.#write();
      return (super.query as (...given: unknown[]) => never).apply(this, args);
    }
    const ending = this.#transactionEdge(text);
    if (ending !== undefined) return ending as never;
    if (this.#unwritten !== undefined) return Promise.reject(transactionAborted('the transaction is aborted: one of its statements could not be written', this.#unwritten)) as never;
    let values: unknown[] = [];
    if (Array.isArray(given) && given.length > 0) {
      try {
        // What pg's Bind would do with each value, done before anything is written.
        values = given.map(encodeValue);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        if (this.#inTransaction) this.#unwritten = failure;
        return Promise.reject(failure) as never;
      }
    }
    const base = this.#named && values.length > 0 && values.length <= NAMED_PARAMETERS_MAX ? statementName(text) : undefined;
    if (base === undefined) return this.#enqueue(text, values) as never;
    // Sent under the name of the current round; refused as stale, the connection's names move on.
    const send = (): Promise<pg.QueryResult> => {
      const round = this.#round;
      return this.#enqueue(text, values, round === 0 ? base : `${base}_${round}`).catch((error: unknown) => {
        if (isStalePreparedStatement(error) && this.#round === round) this.#round += 1;
        throw error;
      });
    };
    // Refused before it ran: outside a transaction it is prepared again and run once more here (a
    // transaction's is retried whole, retry.ts).
    if (this.#inTransaction) return send() as never;
    return send().catch((error: unknown) => (isStalePreparedStatement(error) ? send() : Promise.reject(error))) as never;
  }

  /** A statement for this turn's batch; the first of a turn has the batch written at its end. */
  #enqueue(text: string, values: unknown[], name?: string): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const statement: BatchStatement = {
        text,
        values,
        ...(name !== undefined ? { name } : {}),
        resolve,
        reject: (error) => {
          // Not sent at all: as a value that cannot be encoded, the transaction must not commit.
          if (error instanceof UnwrittenStatement && this.#inTransaction) this.#unwritten ??= error;
          // The caller's stack, as pg's own promise gives it, rather than the socket's.
          Error.captureStackTrace(error);
          reject(error);
        },
      };
      if (this.#batch !== undefined) {
        this.#batch.push(statement);
        return;
      }
      this.#batch = [statement];
      process.nextTick(() => this.#write());
    });
  }

  #write(): void {
    const statements = this.#batch;
    if (statements === undefined) return;
    this.#batch = undefined;
    (super.query as (submittable: unknown) => unknown).call(this, new StatementBatch(statements, this.#names, this.#typeParser));
  }

  /**
   * BEGIN, COMMIT and ROLLBACK as the driver writes them: tracks the transaction; a COMMIT of one
   * with an unwritten statement goes out as a ROLLBACK and is refused. A COMMIT written after a
   * statement that failed in its batch is not run (PostgreSQL skips to the batch's end), so the
   * transaction is rolled back here and the COMMIT refused, as PostgreSQL itself answers a COMMIT
   * of a failed transaction. Undefined for other texts.
   */
  #transactionEdge(text: string): Promise<pg.QueryResult> | undefined {
    if (text.startsWith('start transaction') || text === 'begin') {
      this.#inTransaction = true;
      this.#unwritten = undefined;
      return this.#enqueue(text, []);
    }
    if (text !== 'commit' && text !== 'rollback') return undefined;
    this.#inTransaction = false;
    const unwritten = this.#unwritten;
    this.#unwritten = undefined;
    // A ROLLBACK goes out as asked, and its caller's own error stands.
    if (text === 'rollback') return this.#rollback();
    if (unwritten !== undefined) return this.#rollBackAndRefuse(transactionAborted('the transaction was rolled back: one of its statements could not be written', unwritten));
    return this.#enqueue(text, []).then(refuseRolledBack, (error: unknown) => {
      if (!(error instanceof SkippedStatement)) throw error;
      return this.#rollBackAndRefuse(transactionAborted('the transaction was rolled back at its COMMIT: one of its statements had failed'));
    });
  }

  /** A COMMIT refused: the transaction rolled back, then `refused` given, once the connection is ready for its next user. */
  #rollBackAndRefuse(refused: Error): Promise<never> {
    return this.#rollback().then(
      () => Promise.reject(refused),
      () => Promise.reject(refused),
    );
  }

  /**
   * A ROLLBACK in a batch of its own (what waits is written first): behind a statement that fails
   * in the same batch, PostgreSQL would skip it and leave the transaction open, failed.
   */
  #rollback(): Promise<pg.QueryResult> {
    this.#write();
    return this.#enqueue('rollback', []);
  }
}

export interface PostgresStorageOptions {
  /** Connections in the pool (--db-pool-size). */
  poolSize?: number;
  /**
   * Statements with parameters prepared under names, once per connection (default true; false
   * behind a pooler in transaction mode that cannot keep them: --no-db-prepared-statements).
   */
  preparedStatements?: boolean;
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
    Client: PayctlClient,
    // Read by PayctlClient (pg hands the pool's options to each client it makes).
    namedStatements: options.preparedStatements !== false,
  } as pg.PoolConfig & { namedStatements: boolean });
  pool.on('error', (error) => options.onIdleError?.(error));
  const db: Db = new Kysely<Database>({
    dialect: new PipelinedDialect({
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
        openPipeline(trx, pipelineOf(trx));
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
