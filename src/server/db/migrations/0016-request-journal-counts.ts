// How many entries the request journal holds for each merchant, kept with the entries themselves:
// retention then removes a flush's worth of the oldest entries, where it used to read past the
// newest `keep` of them on every flush (10,000 index entries and their rows, journal/store.ts).

import type { Migration } from './types.js';

export const requestJournalCountsMigration: Migration = {
  id: 16,
  name: 'request-journal-counts',
  statements: [
    `CREATE TABLE request_journal_counts (
      account_id TEXT PRIMARY KEY,
      entries INTEGER NOT NULL
    )`,
    `INSERT INTO request_journal_counts (account_id, entries)
      SELECT account_id, COUNT(*) FROM request_journal GROUP BY account_id`,
  ],
};
