// The storage layer: the one way the server opens a transaction, whatever the database. Stores
// (`<domain>/store.ts`) take a `Queryable` and do not know the dialect; whatever is fast only on one
// database lives in that database's adapter (sqlite-storage.ts, postgres-storage.ts).
//
// Lock order, for every transaction that locks more than one row (`SELECT ... FOR UPDATE`, a no-op
// on SQLite where a writer holds the whole file): account, order, authorization (the original
// before its renewal), dispute, capture, invoice, payout batch, balance rows (by currency). Fault
// rules are the exception: their rows are deleted before their account's count is moved. A
// deadlock is retried, but should not happen when every path takes its locks in this order.

import type { CompiledQuery, QueryResult } from 'kysely';
import { markTransactionScope } from './driver.js';
import type { PreparedStatement } from './prepared.js';
import type { Db, Queryable, Trx } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Rows a process cache is built from, for `Storage.generation(of)`:
 * - 'invoice-list': which invoices exist (inserts and deletes; an update moves no row in the list);
 * - 'tokens': what a token lookup reads (tokens deleted, apps changed, accounts' clock offsets);
 * - 'elsewhere': nothing this process writes, only other connections' commits (for a cache whose
 *   owner notes its own process's writes, faults/service.ts).
 */
export type WatchedRows = 'invoice-list' | 'tokens' | 'elsewhere';

export interface TxOptions {
  /** What the transaction is for ('request', 'payouts.chunk', ...): for logs and retry metrics. */
  name: string;
  /** Join group commit with the other requests in flight (a mutating request's transaction; SQLite only, ignored elsewhere). */
  batch?: boolean;
  /**
   * Serialize with every other holder of this key, in any process: SQLite takes the write lock at
   * BEGIN (IMMEDIATE), PostgreSQL a transaction-scoped advisory lock on the key. For a read-then-insert
   * that no row lock can cover (the first start's bootstrap).
   */
  exclusive?: string;
}

/** One of the database engine's own checks, as the audit reports it. */
export interface EngineCheckResult {
  name: string;
  description: string;
  violations: Array<Record<string, string>>;
}

/** What the ledger audit (audit/service.ts) needs to know of the database itself. */
export interface AuditEngine {
  readonly dialect: DialectName;
  /** The tables that exist (a check on a table that does not is skipped). */
  tables(db: Queryable): Promise<Set<string>>;
  /** The engine's own consistency checks over the whole database (SQLite: integrity and foreign keys). */
  engineChecks(db: Queryable): Promise<EngineCheckResult[]>;
}

export interface Storage {
  readonly dialect: DialectName;
  /** Root handle: autocommit reads only (under the guard, a query on it inside a transaction fails). */
  readonly db: Db;
  /**
   * The one way to open a transaction: commits when `work` resolves, rolls back when it throws.
   * `work` may run more than once (a serialization failure or deadlock is retried), so it must have
   * no effect outside `trx`.
   */
  transaction<T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T>;
  /**
   * Runs `work` unless another process holds the lease `name` (then false): background passes that
   * must run once whichever replica runs them. A holder that dies loses the lease after `ttlMs`.
   */
  withJobLease(name: string, ttlMs: number, work: () => Promise<void>): Promise<boolean>;
  /**
   * Changes whenever a read could answer differently, whoever wrote; undefined where no such cheap
   * value exists (then process-local caches are off). With `of`, changes whenever those rows may
   * have changed, whoever wrote: the adapter notices the writes itself, so no caller reports them.
   */
  readonly generation: ((of?: WatchedRows) => string) | undefined;
  /**
   * Whether caches kept in this process's memory (tokens, expiry times, page indexes) may be used,
   * each checked against `generation` before every use. False where other processes' writes cannot
   * be noticed cheaply (PostgreSQL): then every read goes to the database.
   */
  readonly processCaches: boolean;
  /** Transactions committed and requests run in them by group commit, for benchmarks. */
  stats(): { batches: number; requests: number };
  readonly audit: AuditEngine;
  /**
   * Rewrites rows that held a secret in the clear, in one transaction, leaving as little of the old
   * values behind as the database allows: SQLite zeroes freed cells (secure_delete) and checkpoints
   * the WAL after; PostgreSQL runs a plain transaction (old row versions go at the next vacuum).
   */
  secureRewrite<T>(name: string, work: (trx: Trx) => Promise<T>): Promise<T>;
  /** Closes the database (SQLite: checkpoints the WAL first; PostgreSQL: ends the pool). */
  close(): Promise<void>;
}

/**
 * Work a store defers to the end of its transaction: it runs after the request's own work (after the
 * stored answer, right before COMMIT; under SQLite's group commit at the end of the request's own
 * savepoint), so a row it updates stays locked only from there to the COMMIT. A store that reads what
 * it deferred first takes the step back (`takeBeforeCommit`) and runs it itself.
 */
export interface BeforeCommitStep {
  run(trx: Trx): Promise<void>;
  /**
   * Runs after the steps without it: a step that locks rows every transaction of a merchant waits
   * for (the balance), so that they are held from it to the COMMIT with as little as possible between.
   */
  readonly last?: boolean;
  /**
   * The same work as statements, when nothing of it must be read back: PostgreSQL writes the
   * statements of the steps left at the end with the COMMIT, without waiting for their answers, so a
   * row they lock is released without a round trip to this process in between. Undefined: run it
   * with `run`.
   */
  commitQueries?(): readonly CompiledQuery[] | undefined;
}

// Keyed by the transaction handle: group commit's requests share one, but run one after another, and
// each request's steps are run or discarded before the next starts.
const beforeCommitSteps = new WeakMap<object, Map<object, BeforeCommitStep>>();

/** Adapters: `trx` is a transaction opened by `Storage.transaction`, which runs its before-commit steps. */
export function openBeforeCommit(trx: Trx): void {
  if (!beforeCommitSteps.has(trx)) beforeCommitSteps.set(trx, new Map());
}

/**
 * The step of `kind` registered on `db`'s transaction, made by `create` if there is none yet; undefined
 * when `db` is no transaction of `Storage.transaction` (the root handle, a test's own transaction):
 * then the caller does the work at once.
 */
export function beforeCommitStep<S extends BeforeCommitStep>(db: Queryable, kind: object, create: () => S): S | undefined {
  const steps = beforeCommitSteps.get(db);
  if (steps === undefined) return undefined;
  let step = steps.get(kind) as S | undefined;
  if (step === undefined) {
    step = create();
    steps.set(kind, step);
  }
  return step;
}

/** Removes and returns the step of `kind` registered on `db`'s transaction, if any: its owner runs it now. */
export function takeBeforeCommit(db: Queryable, kind: object): BeforeCommitStep | undefined {
  const steps = beforeCommitSteps.get(db);
  const step = steps?.get(kind);
  if (step !== undefined) steps!.delete(kind);
  return step;
}

/**
 * Adapters: runs (and removes) every step registered on `trx`, in registration order, until none is
 * left; undefined when there is none (no promise to wait for: group commit's hot path).
 */
export function runBeforeCommit(trx: Trx, commitWith?: CommitWith): Promise<void> | undefined {
  const steps = beforeCommitSteps.get(trx);
  if (steps === undefined || steps.size === 0) return undefined;
  return runSteps(trx, steps, commitWith);
}

/**
 * Adapters: the body of a transaction `Storage.transaction` opened: `work` in the transaction's
 * scope, then the before-commit steps it registered (sent with the COMMIT through `commitWith`, if
 * given and they allow it).
 */
export function runTransactionBody<T>(trx: Trx, work: (trx: Trx) => Promise<T>, commitWith?: CommitWith): Promise<T> {
  openBeforeCommit(trx);
  return markTransactionScope(async () => {
    const result = await work(trx);
    const steps = runBeforeCommit(trx, commitWith);
    if (steps !== undefined) await steps;
    return result;
  });
}

/**
 * An adapter's way to send statements and the COMMIT together, without waiting for one answer before
 * writing the next: the promise of their outcome (the first error, the transaction then rolled back).
 */
export type CommitWith = (trx: Trx, queries: readonly CompiledQuery[]) => Promise<void>;

/** The steps in the order they run: as registered, the `last` ones after the others. */
function inRunOrder(steps: Map<object, BeforeCommitStep>): Array<[object, BeforeCommitStep]> {
  const all = [...steps.entries()];
  return [...all.filter(([, step]) => step.last !== true), ...all.filter(([, step]) => step.last === true)];
}

async function runSteps(trx: Trx, steps: Map<object, BeforeCommitStep>, commitWith: CommitWith | undefined): Promise<void> {
  while (steps.size > 0) {
    const ordered = inRunOrder(steps);
    if (commitWith !== undefined) {
      const queries: CompiledQuery[] = [];
      for (const [, step] of ordered) {
        const own = step.commitQueries?.();
        if (own === undefined) {
          queries.length = 0;
          break;
        }
        queries.push(...own);
      }
      if (queries.length > 0) {
        steps.clear();
        return commitWith(trx, queries);
      }
    }
    const [kind, step] = ordered[0]!;
    steps.delete(kind);
    await step.run(trx);
  }
}

/**
 * Runs `statement` at the end of `db`'s transaction, after the request's own work (on PostgreSQL
 * written with the COMMIT): for a write whose outcome nothing in the transaction reads or checks, such
 * as a stored answer. Outside a transaction of `Storage.transaction` it runs at once.
 */
export async function writeBeforeCommit<A extends Record<string, unknown>>(db: Queryable, statement: PreparedStatement<A, unknown>, args: A): Promise<void> {
  const kind = {};
  const step = beforeCommitStep(db, kind, () => ({
    async run(trx: Trx) {
      const ran = statement.run(trx, args);
      if (ran instanceof Promise) await ran;
    },
    commitQueries: () => [statement.bind(db, args)],
  }));
  if (step === undefined) {
    const ran = statement.run(db, args);
    if (ran instanceof Promise) await ran;
  }
}

/**
 * Adapters: how a transaction sends a statement without waiting for its answer. `hold` keeps it to
 * be written right before the transaction's next statement (or its COMMIT), and gives the promise
 * of its result; `flush` writes what is held on its own.
 */
export interface Pipeline {
  hold(query: CompiledQuery): Promise<{ result: Promise<QueryResult<unknown>>; written(): boolean }>;
  flush(): Promise<void>;
}

const pipelines = new WeakMap<object, Pipeline>();

/** Adapters: `trx` sends the statements of `sendAhead` and `writeUnanswered` through `pipeline`. */
export function openPipeline(trx: Trx, pipeline: Pipeline): void {
  pipelines.set(trx, pipeline);
}

/** A statement sent ahead (`sendAhead`). */
export interface SentAhead<R> {
  /** Its result, when the database answered at once (SQLite, or outside a transaction). */
  readonly answered: QueryResult<R> | undefined;
  /** Its result; the statement is written on its own first if no later statement has carried it. */
  answer(): Promise<QueryResult<R>>;
}

/**
 * Sends a statement whose answer the caller needs later, not now. On PostgreSQL it is written with
 * the transaction's next statement (or its COMMIT), without a round trip of its own: it runs before
 * that statement, which sees its effect, and its failure fails that statement and the transaction.
 * Elsewhere (SQLite, or outside a transaction) it runs at once, and `answered` has its result.
 */
export async function sendAhead<A extends Record<string, unknown>, R>(db: Queryable, statement: PreparedStatement<A, R>, args: A): Promise<SentAhead<R>> {
  const pipeline = pipelines.get(db);
  if (pipeline === undefined) {
    const ran = statement.run(db, args);
    const result = ran instanceof Promise ? await ran : ran;
    return { answered: result, answer: async () => result };
  }
  const { result, written } = await pipeline.hold(statement.bind(db, args));
  return {
    answered: undefined,
    async answer() {
      // Statements held after it stay held: they go with the next statement, as their senders expect.
      if (!written()) await pipeline.flush();
      return (await result) as QueryResult<R>;
    },
  };
}

/**
 * Runs a write whose answer the caller does not need (no rows, no count) and whose failure it does
 * not handle itself (`sendAhead`, its answer never read): on PostgreSQL it goes with the
 * transaction's next statement, so every later read of the transaction sees it, and its failure
 * fails that statement and the transaction. Elsewhere it runs at once.
 */
export async function writeUnanswered<A extends Record<string, unknown>>(db: Queryable, statement: PreparedStatement<A, unknown>, args: A): Promise<void> {
  await sendAhead(db, statement, args);
}

/** Adapters: drops the steps of work that was rolled back (group commit's savepoint). */
export function discardBeforeCommit(trx: Trx): void {
  beforeCommitSteps.get(trx)?.clear();
}

/** Whether `--db` names a PostgreSQL server rather than a SQLite file. */
export { isPostgresUrl } from '../../lib/database-url.js';
