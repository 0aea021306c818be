// Customer disputes and the files (evidence, messages, acknowledgements) attached to them.

import type { Migration } from './types.js';

export const disputesMigration: Migration = {
  id: 5,
  name: 'disputes',
  statements: [
    `CREATE TABLE disputes (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      capture_id TEXT NOT NULL,
      reason TEXT NOT NULL,
      status TEXT NOT NULL,
      stage TEXT NOT NULL,
      dispute_state TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount_minor INTEGER NOT NULL,
      outcome TEXT,
      seller_due TEXT,
      buyer_due TEXT,
      deadline_at TEXT,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL,
      details TEXT NOT NULL
    )`,
    `CREATE INDEX disputes_account_created ON disputes(account_id, create_time, id)`,
    `CREATE INDEX disputes_account_state ON disputes(account_id, dispute_state, create_time, id)`,
    `CREATE INDEX disputes_account_capture ON disputes(account_id, capture_id, create_time, id)`,
    `CREATE INDEX disputes_account_deadline ON disputes(account_id, deadline_at)`,
    `CREATE TABLE dispute_documents (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      dispute_id TEXT NOT NULL REFERENCES disputes(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      content_type TEXT NOT NULL,
      size_bytes INTEGER NOT NULL,
      sha256 TEXT NOT NULL,
      content BLOB NOT NULL,
      create_time TEXT NOT NULL
    )`,
    `CREATE INDEX dispute_documents_dispute ON dispute_documents(account_id, dispute_id)`,
  ],
};
