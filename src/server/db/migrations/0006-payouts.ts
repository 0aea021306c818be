// Payout batches and their items.

import type { Migration } from './types.js';

export const payoutsMigration: Migration = {
  id: 6,
  name: 'payouts',
  statements: [
    `CREATE TABLE payout_batches (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      sender_batch_id TEXT,
      status TEXT NOT NULL,
      item_count INTEGER NOT NULL,
      currency TEXT,
      amount_minor INTEGER,
      sender_batch_header TEXT NOT NULL,
      time_created TEXT NOT NULL,
      created_at TEXT NOT NULL,
      time_completed TEXT
    )`,
    `CREATE INDEX payout_batches_sender_id ON payout_batches(account_id, sender_batch_id, created_at)`,
    `CREATE INDEX payout_batches_status ON payout_batches(status, account_id, created_at)`,
    `CREATE TABLE payout_items (
      id TEXT PRIMARY KEY,
      batch_id TEXT NOT NULL REFERENCES payout_batches(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      status TEXT NOT NULL,
      recipient_type TEXT NOT NULL,
      receiver TEXT NOT NULL,
      receiver_key TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount_minor INTEGER NOT NULL,
      fee_minor INTEGER NOT NULL,
      transaction_id TEXT NOT NULL,
      error_name TEXT,
      time_processed TEXT,
      return_due TEXT,
      detail TEXT NOT NULL
    )`,
    `CREATE UNIQUE INDEX payout_items_position ON payout_items(batch_id, position)`,
    `CREATE INDEX payout_items_batch_status ON payout_items(batch_id, status, position)`,
    `CREATE INDEX payout_items_returns ON payout_items(account_id, status, return_due)`,
    `CREATE INDEX payout_items_claims ON payout_items(status, receiver_key)`,
  ],
};
