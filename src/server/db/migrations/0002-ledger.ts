// The merchant balance and its movements.

import type { Migration } from './types.js';

export const ledgerMigration: Migration = {
  id: 2,
  name: 'ledger',
  statements: [
    `CREATE TABLE balance_movements (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      currency TEXT NOT NULL,
      amount_minor INTEGER NOT NULL,
      kind TEXT NOT NULL,
      reference_id TEXT NOT NULL,
      create_time TEXT NOT NULL
    )`,
    `CREATE INDEX balance_movements_account ON balance_movements(account_id, currency)`,
    `CREATE TABLE balances (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      currency TEXT NOT NULL,
      available_minor INTEGER NOT NULL,
      PRIMARY KEY (account_id, currency)
    )`,
  ],
};
