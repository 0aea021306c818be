// Group commit: mutating requests that arrive while a commit is under way share the next one.
// Each request runs in its own savepoint inside one transaction, so a refused request leaves no
// trace while the others keep their changes; every request is answered only after the shared
// COMMIT (one fsync for the batch). With one request in flight this is a plain transaction.

import { CompiledQuery } from 'kysely';
import { markTransactionScope, runNowInTransaction } from './driver.js';
import type { Db, Trx } from './schema.js';
import { discardBeforeCommit, openBeforeCommit, runBeforeCommit, runTransactionBody } from './storage.js';

export type TransactionWork<T> = (trx: Trx) => Promise<T>;

interface Pending {
  work: TransactionWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface Committer {
  run<T>(work: TransactionWork<T>): Promise<T>;
  /** Transactions committed, and requests run in them (refused ones included), for benchmarks. */
  stats(): { batches: number; requests: number };
}

const MAX_BATCH = 256;

// Compiled once, not through Kysely's raw-SQL builder on every request: they run on every write.
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT request');
const RELEASE = CompiledQuery.raw('RELEASE request');
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO request');

/** A savepoint statement: run at once on the open transaction (driver.ts), through Kysely only on another dialect. */
async function run(trx: Trx, query: CompiledQuery): Promise<void> {
  if (runNowInTransaction(trx, query) === undefined) await trx.executeQuery(query);
}

export function createGroupCommitter(db: Db, enabled: boolean): Committer {
  const queue: Pending[] = [];
  let draining = false;
  let batches = 0;
  let requests = 0;

  async function runBatch(batch: Pending[]): Promise<void> {
    const outcomes: Outcome[] = [];
    try {
      await db.transaction().execute((trx) =>
        markTransactionScope(async () => {
          openBeforeCommit(trx);
          for (const item of batch) {
            await run(trx, SAVEPOINT);
            try {
              const value = await item.work(trx);
              // The request's own before-commit steps, inside its savepoint: a step that fails
              // refuses this request alone.
              const steps = runBeforeCommit(trx);
              if (steps !== undefined) await steps;
              await run(trx, RELEASE);
              outcomes.push({ ok: true, value });
            } catch (error) {
              discardBeforeCommit(trx);
              await run(trx, ROLLBACK_TO);
              await run(trx, RELEASE);
              outcomes.push({ ok: false, error });
            }
          }
        }),
      );
    } catch (commitError) {
      // Nothing of the batch is durable: nobody may be told otherwise.
      batch.forEach((item, index) => {
        const outcome = outcomes[index];
        item.reject(outcome && !outcome.ok ? outcome.error : commitError);
      });
      return;
    }
    batches += 1;
    requests += batch.length;
    batch.forEach((item, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome ? outcome.error : new Error('request was not run'));
    });
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) await runBatch(queue.splice(0, MAX_BATCH));
    } finally {
      draining = false;
    }
  }

  return {
    run<T>(work: TransactionWork<T>): Promise<T> {
      if (!enabled) {
        requests += 1;
        return db.transaction().execute((trx) => runTransactionBody(trx, work)).then((value) => {
          batches += 1;
          return value;
        });
      }
      return new Promise<T>((resolve, reject) => {
        queue.push({ work: work as TransactionWork<unknown>, resolve: resolve as (value: unknown) => void, reject });
        if (!draining) {
          // Start the batch after this turn's I/O: every request parsed from the sockets that
          // were readable together joins it. Starting at once would commit each alone, since a
          // request's work runs to its COMMIT in microtasks, before the next socket is read.
          draining = true;
          setImmediate(() => void drain());
        }
      });
    },
    stats: () => ({ batches, requests }),
  };
}
