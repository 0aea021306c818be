// Storage on SQLite: group commit for request transactions, BEGIN IMMEDIATE for exclusive ones.

import type BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { dataGeneration } from './generation.js';
import { createGroupCommitter } from './group-commit.js';
import { jobLeaseRunner, newLeaseOwner } from './job-leases.js';
import { DEFAULT_RETRY_POLICY, withTransactionRetry, type RetryPolicy } from './retry.js';
import type { Db, Trx } from './schema.js';
import { runTransactionBody, type AuditEngine, type Storage, type TxOptions } from './storage.js';

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

/** Values as text, so that bigint amounts survive JSON. */
const printable = (row: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? 'null' : String(value)]));

export const sqliteAudit: AuditEngine = {
  dialect: 'sqlite',
  async tables(db) {
    const rows = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db);
    return new Set(rows.rows.map((row) => row.name));
  },
  async engineChecks(db) {
    const integrity = (await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)).rows.map((row) => ({ result: String(row.integrity_check) }));
    const integrityOk = integrity.length === 1 && integrity[0]?.result === 'ok';
    const foreignKeys = (await sql<Record<string, unknown>>`PRAGMA foreign_key_check`.execute(db)).rows.map(printable);
    return [
      { name: 'sqlite-integrity', description: 'PRAGMA integrity_check is ok', violations: integrityOk ? [] : integrity },
      { name: 'foreign-keys', description: 'PRAGMA foreign_key_check finds nothing', violations: foreignKeys },
    ];
  },
};

export function createSqliteStorage(db: Db, options: SqliteStorageOptions): Storage {
  const committer = createGroupCommitter(db, options.groupCommit);
  const generation = options.sqlite === undefined ? undefined : dataGeneration(options.sqlite);
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const withLease = jobLeaseRunner(newLeaseOwner());
  const storage: Storage = {
    dialect: 'sqlite',
    db,
    audit: sqliteAudit,
    // secure_delete zeroes the cells the old values leave free; the checkpoint moves the new pages
    // into the main file and truncates the WAL, which held the old page images.
    async secureRewrite<T>(name: string, work: (trx: Trx) => Promise<T>): Promise<T> {
      await sql`PRAGMA secure_delete = ON`.execute(db);
      let result: T;
      try {
        result = await storage.transaction({ name }, work);
      } finally {
        await sql`PRAGMA secure_delete = OFF`.execute(db);
      }
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db).catch(() => undefined);
      return result;
    },
    transaction<T>(opts: TxOptions, work: (trx: Trx) => Promise<T>): Promise<T> {
      // Returned as is: a request pays no promise hop over group commit's own path. Not retried: a
      // batch's commit error rejects every request in it (group-commit.ts). With one process on the
      // file its batches never contend; with several, a batch that read before another process's
      // commit fails with SQLITE_BUSY_SNAPSHOT and its requests answer 500 (a known limit of
      // sharing one SQLite file between processes: PostgreSQL is the backend for replicas).
      if (opts.batch === true) {
        // A batch is one deferred transaction shared by many requests; none of them can make it IMMEDIATE.
        if (opts.exclusive !== undefined) return Promise.reject(new Error(`transaction ${opts.name}: batch and exclusive cannot be combined`));
        return committer.run(work);
      }
      // The driver maps `serializable` to BEGIN IMMEDIATE (driver.ts beginTransaction).
      const run = () => {
        const builder = opts.exclusive !== undefined ? db.transaction().setIsolationLevel('serializable') : db.transaction();
        return builder.execute((trx) => runTransactionBody(trx, work));
      };
      // SQLITE_BUSY (another process held the write lock past busy_timeout) or BUSY_SNAPSHOT (a
      // deferred transaction's read snapshot went stale before it wrote): a fresh try can succeed.
      return withTransactionRetry('sqlite', run, retry);
    },
    // Other processes may serve the same file: the lease is a row (db/job-leases.ts).
    withJobLease(name, ttlMs, work) {
      return withLease(storage, name, ttlMs, work);
    },
    generation,
    // Every write through this connection and every other connection's commit moves `generation`.
    processCaches: generation !== undefined,
    stats: () => committer.stats(),
    close: options.close ?? (() => db.destroy()),
  };
  return storage;
}
