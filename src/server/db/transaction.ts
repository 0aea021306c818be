// One transaction with the root-handle guard on: the way jobs and services should open one.

import type { Db, Trx } from './schema.js';
import { markTransactionScope } from './driver.js';

export function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => markTransactionScope(() => work(trx)));
}

/**
 * The same, holding the write lock from its first statement (SQLite: BEGIN IMMEDIATE; the driver
 * maps `serializable` to it): for a read-then-insert that another process may run at the same
 * moment, such as two servers' first start on one new database.
 */
export function inSerializableTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db
    .transaction()
    .setIsolationLevel('serializable')
    .execute((trx) => markTransactionScope(() => work(trx)));
}
