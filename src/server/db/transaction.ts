// One transaction with the root-handle guard on: the way jobs and services should open one.

import type { Db, Trx } from './schema.js';
import { markTransactionScope } from './driver.js';

export function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => markTransactionScope(() => work(trx)));
}
