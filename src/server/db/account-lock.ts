// The per-account lock: serializes, within one merchant, what no row lock can cover (a check that
// no row exists yet, then its insert: invoice_id uniqueness, count limits, sender_batch_id reuse).

import { prepared } from './prepared.js';
import type { Queryable } from './schema.js';

const accountRow = prepared<{ id: string }>((db, arg) => db.selectFrom('accounts').select('id').where('id', '=', arg('id')).forUpdate());

/** Per dialect (the adapter object): whether its compiler keeps FOR UPDATE at all. */
const lockingDialects = new WeakMap<object, boolean>();

function locksRows(db: Queryable): boolean {
  const adapter = db.getExecutor().adapter;
  let locking = lockingDialects.get(adapter);
  if (locking === undefined) {
    locking = /\bfor update\b/i.test(db.selectFrom('accounts').select('id').forUpdate().compile().sql);
    lockingDialects.set(adapter, locking);
  }
  return locking;
}

/**
 * `SELECT id FROM accounts WHERE id = ? FOR UPDATE` in the caller's transaction: first in the lock
 * order (db/storage.ts). Nothing at all where the dialect drops row locks (SQLite, whose one
 * writer already holds the whole file), so it costs SQLite no statement.
 */
export async function lockAccount(db: Queryable, accountId: string): Promise<void> {
  if (locksRows(db)) await accountRow.execute(db, { id: accountId });
}
