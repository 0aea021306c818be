// The purge of expired request ids runs per account (`account_id = ? AND expires_at <= ?`). With an
// index on expires_at alone SQLite chose the primary key's account_id prefix and read every key
// the account has: ~4 ms a second at 16,000 keys during a capture load, growing with the table.
// An index on both columns finds the expired ones directly; it replaces the one on expires_at,
// which nothing else used, so each new key still costs one secondary index entry.

import type { Migration } from './types.js';

export const requestIdExpiryMigration: Migration = {
  id: 9,
  name: 'request-id-expiry',
  statements: [
    `DROP INDEX idempotency_keys_expiry`,
    `CREATE INDEX idempotency_keys_account_expiry ON idempotency_keys(account_id, expires_at)`,
  ],
};
