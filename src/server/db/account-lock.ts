// The per-account lock: serializes, within one merchant, what no row lock can cover (a check that
// no row exists yet, then its insert: invoice_id uniqueness, count limits, sender_batch_id reuse).

import { prepared } from './prepared.js';
import type { Queryable } from './schema.js';

// FOR NO KEY UPDATE, not FOR UPDATE: a request has often written a row that references its account
// already (its request-id claim, an event), and that foreign key holds FOR KEY SHARE on the account
// row, which FOR UPDATE waits for: two such requests would deadlock. NO KEY UPDATE leaves key-share
// locks alone and still excludes every other holder of this lock.
const accountRow = prepared<{ id: string }>((db, arg) => db.selectFrom('accounts').select('id').where('id', '=', arg('id')).forNoKeyUpdate());

/** Per dialect (the adapter object): whether its compiler keeps FOR UPDATE at all. */
const lockingDialects = new WeakMap<object, boolean>();

function locksRows(db: Queryable): boolean {
  const adapter = db.getExecutor().adapter;
  let locking = lockingDialects.get(adapter);
  if (locking === undefined) {
    locking = /\bfor no key update\b/i.test(db.selectFrom('accounts').select('id').forNoKeyUpdate().compile().sql);
    lockingDialects.set(adapter, locking);
  }
  return locking;
}

/**
 * `SELECT id FROM accounts WHERE id = ? FOR NO KEY UPDATE` in the caller's transaction: first in the lock
 * order (db/storage.ts). Nothing at all where the dialect drops row locks (SQLite, whose one
 * writer already holds the whole file), so it costs SQLite no statement.
 */
export async function lockAccount(db: Queryable, accountId: string): Promise<void> {
  if (locksRows(db)) await accountRow.execute(db, { id: accountId });
}
