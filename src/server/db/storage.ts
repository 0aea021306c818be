// The storage layer: the one way the server opens a transaction, whatever the database.

import type { Db, Trx } from './schema.js';

export type DialectName = 'sqlite';

export interface TxOptions {
  /** What the transaction is for ('request', 'payouts.chunk', ...): for logs and, later, retry metrics. */
  name: string;
  /** Join group commit with the other requests in flight (a mutating request's transaction). */
  batch?: boolean;
  /** Hold the write lock from the first statement: for a read-then-insert another process may run at once. */
  exclusive?: boolean;
}

export interface Storage {
  readonly dialect: DialectName;
  /** Root handle: autocommit reads only (under the guard, a query on it inside a transaction fails). */
  readonly db: Db;
  /** The one way to open a transaction: commits when `work` resolves, rolls back when it throws. */
  transaction<T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T>;
  /** Transactions committed and requests run in them by group commit, for benchmarks. */
  stats(): { batches: number; requests: number };
}
