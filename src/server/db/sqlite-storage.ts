// Storage on SQLite: group commit for request transactions, BEGIN IMMEDIATE for exclusive ones.

import type BetterSqlite3 from 'better-sqlite3';
import { markTransactionScope } from './driver.js';
import { dataGeneration } from './generation.js';
import { createGroupCommitter } from './group-commit.js';
import { jobLeaseRunner, newLeaseOwner } from './job-leases.js';
import { DEFAULT_RETRY_POLICY, withTransactionRetry, type RetryPolicy } from './retry.js';
import type { Db, Trx } from './schema.js';
import type { Storage, TxOptions } from './storage.js';

export interface SqliteStorageOptions {
  groupCommit: boolean;
  /**
   * The connection `db` runs on, migrated: its change counters (generation.ts) keep process caches
   * correct. Without it `generation` is undefined and those caches are off.
   */
  sqlite?: BetterSqlite3.Database;
  /** Closes the file (connection.ts closeDatabase); without it close() only destroys the Kysely handle. */
  close?: () => Promise<void>;
  /** Retries of a transaction another process's write lock or commit failed (tests inject their own). */
  retry?: RetryPolicy;
}

export function createSqliteStorage(db: Db, options: SqliteStorageOptions): Storage {
  const committer = createGroupCommitter(db, options.groupCommit);
  const withLease = jobLeaseRunner(newLeaseOwner());
  const generation = options.sqlite === undefined ? undefined : dataGeneration(options.sqlite);
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  return {
    dialect: 'sqlite',
    db,
    transaction<T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T> {
      // Returned as is: a request pays no promise hop over group commit's own path. Not retried: a
      // batch's commit error rejects every request in it (group-commit.ts), and one process's
      // batches never contend with each other.
      if (opts.batch === true) {
        // A batch is one deferred transaction shared by many requests; none of them can make it IMMEDIATE.
        if (opts.exclusive !== undefined) return Promise.reject(new Error(`transaction ${opts.name}: batch and exclusive cannot be combined`));
        return committer.run(work);
      }
      // The driver maps `serializable` to BEGIN IMMEDIATE (driver.ts beginTransaction).
      const run = () => {
        const builder = opts.exclusive !== undefined ? db.transaction().setIsolationLevel('serializable') : db.transaction();
        return builder.execute((trx) => markTransactionScope(() => work(trx)));
      };
      // SQLITE_BUSY (another process held the write lock past busy_timeout) or BUSY_SNAPSHOT (a
      // deferred transaction's read snapshot went stale before it wrote): a fresh try can succeed.
      return withTransactionRetry('sqlite', run, retry);
    },
    // Other processes may serve the same file: the lease is a row (db/job-leases.ts).
    withJobLease(name, ttlMs, work) {
      return withLease(this, name, ttlMs, work);
    },
    generation,
    // Every write through this connection and every other connection's commit moves `generation`.
    processCaches: generation !== undefined,
    stats: () => committer.stats(),
    close: options.close ?? (() => db.destroy()),
  };
}
