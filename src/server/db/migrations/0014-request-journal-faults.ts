// The request journal (every API request and its answer, kept per merchant up to a bound) and the
// fault rules (answers the server gives instead of the real one, counted exactly on any replica).

import type { Migration } from './types.js';

export const requestJournalFaultsMigration: Migration = {
  id: 14,
  name: 'request-journal-faults',
  statements: [
    // account_id '' for requests of no merchant (the admin key, an unknown token). seq orders the
    // journal: flushes are serialized across processes, so seq order is commit order. `detail` holds
    // the masked headers and the capped bodies (JSON), read only by the one-entry view.
    `CREATE TABLE request_journal (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL,
      time TEXT NOT NULL,
      account_time TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      query TEXT NOT NULL,
      status INTEGER,
      duration_us INTEGER NOT NULL,
      request_id TEXT,
      fault_id TEXT,
      detail TEXT NOT NULL
    )`,
    `CREATE INDEX request_journal_account ON request_journal(account_id, seq)`,
    // after_calls/times/matched/fired are counts; times NULL = every matching call after the first `after_calls`.
    `CREATE TABLE fault_rules (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      after_calls INTEGER NOT NULL,
      times INTEGER,
      respond TEXT NOT NULL,
      matched INTEGER NOT NULL DEFAULT 0,
      fired INTEGER NOT NULL DEFAULT 0,
      create_time TEXT NOT NULL
    )`,
    `CREATE INDEX fault_rules_account ON fault_rules(account_id, seq)`,
  ],
};
