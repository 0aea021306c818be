// Markers of the SQLite database's content, for process caches: each changes whenever the rows a
// cache was built from may have changed, whoever wrote them (storage.ts `generation`).

import type BetterSqlite3 from 'better-sqlite3';
import type { WatchedRows } from './storage.js';

/**
 * The writes of this connection each row set counts (temporary triggers, so they are part of this
 * connection only and the file's schema is unchanged). Other connections' commits are seen through
 * `PRAGMA data_version` instead.
 */
const WATCHED: Record<Exclude<WatchedRows, 'elsewhere'>, readonly string[]> = {
  'invoice-list': ['AFTER INSERT ON invoices', 'AFTER DELETE ON invoices'],
  tokens: [
    'AFTER DELETE ON access_tokens',
    'AFTER UPDATE ON apps',
    'AFTER DELETE ON apps',
    'AFTER UPDATE OF clock_offset_ms ON accounts',
    'AFTER UPDATE OF fault_rule_count ON accounts',
    'AFTER UPDATE OF kyc_status ON accounts',
    'AFTER UPDATE OF email ON accounts',
    'AFTER DELETE ON accounts',
  ],
};

/** Row changes of tables no cache reads (the request journal and its counts), left out of the whole-database count. */
const UNWATCHED: readonly string[] = [
  'AFTER INSERT ON request_journal',
  'AFTER DELETE ON request_journal',
  'AFTER INSERT ON request_journal_counts',
  'AFTER UPDATE ON request_journal_counts',
  'AFTER DELETE ON request_journal_counts',
];

/**
 * Returns a function whose value changes whenever the database's content may have changed:
 * - without `of`, `total_changes()` counts every row inserted, updated or deleted through this
 *   connection, rolled back or not, so a change made here moves it the moment the statement runs;
 * - with `of`, a counter moved by a temporary trigger on each write of those rows through this
 *   connection (rolled back or not), so other writes (a webhook cursor, a capture) leave it alone;
 * - in both, `PRAGMA data_version` moves when another connection (another process, or another
 *   server on the same file) has committed, checked as the pragma runs.
 * Two equal values mean none of those rows changed between them. The pragma (a read of the WAL
 * index) is the costly part; it is read once per synchronous run (below). Throws once the database is closed. The database must be
 * migrated first (the triggers name its tables).
 */
export function dataGeneration(sqlite: BetterSqlite3.Database): (of?: WatchedRows) => string {
  const changes = sqlite.prepare('SELECT total_changes()').pluck().safeIntegers(false);
  const version = sqlite.prepare('PRAGMA data_version').pluck().safeIntegers(false);
  const counts = { 'invoice-list': 0, tokens: 0 };
  for (const [name, events] of Object.entries(WATCHED) as Array<[keyof typeof counts, readonly string[]]>) {
    const fn = `payctl_rows_changed_${name.replace('-', '_')}`;
    sqlite.function(fn, { deterministic: false }, () => {
      counts[name] += 1;
      return null;
    });
    events.forEach((event, index) => {
      sqlite.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${fn}_${index} ${event} BEGIN SELECT ${fn}(); END`);
    });
  }
  // Rows no process cache is built from: the request journal's, written after every answer. Their
  // changes are taken out of total_changes(), so journaling a request never makes a kept answer stale.
  let unwatched = 0;
  sqlite.function('payctl_rows_changed_unwatched', { deterministic: false }, () => {
    unwatched += 1;
    return null;
  });
  UNWATCHED.forEach((event, index) => {
    sqlite.exec(`CREATE TEMP TRIGGER IF NOT EXISTS payctl_rows_changed_unwatched_${index} ${event} BEGIN SELECT payctl_rows_changed_unwatched(); END`);
  });
  // One read of the pragma per turn of the event loop: a request's checks (token, answer, expiry)
  // share it. A value kept for the rest of one synchronous run is never newer than the database,
  // and a request that arrives later (after another server's acknowledged commit) reads it again.
  let seen: number | undefined;
  const forget = (): void => {
    seen = undefined;
  };
  const otherCommits = (): number => {
    if (seen === undefined) {
      seen = version.get() as number;
      queueMicrotask(forget);
    }
    return seen;
  };
  return (of) => {
    const elsewhere = otherCommits();
    if (of === undefined) return `${(changes.get() as number) - unwatched}:${elsewhere}`;
    return of === 'elsewhere' ? String(elsewhere) : `${counts[of]}:${elsewhere}`;
  };
}
