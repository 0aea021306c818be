// Baseline: the capture transaction shape done directly on better-sqlite3 with the server's pragmas.
// Read the authorization, insert the capture, update the authorization, insert the outbox row,
// insert the idempotency record; one durable commit each.

import BetterSqlite3 from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

export function rawCaptureTransactionsPerSecond(dir: string, seconds: number): { perSecond: number; transactions: number } {
  const sqlite = new BetterSqlite3(join(dir, 'raw.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.exec(`
    CREATE TABLE authorizations (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, amount_minor INTEGER NOT NULL, captured_minor INTEGER NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL);
    CREATE TABLE captures (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, authorization_id TEXT NOT NULL REFERENCES authorizations(id), amount_minor INTEGER NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL, create_time TEXT NOT NULL);
    CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, account_id TEXT NOT NULL, event_type TEXT NOT NULL, resource_id TEXT NOT NULL, body TEXT NOT NULL);
    CREATE TABLE idempotency_keys (account_id TEXT NOT NULL, operation TEXT NOT NULL, request_key TEXT NOT NULL, request_hash TEXT NOT NULL, status_code INTEGER NOT NULL, response_body TEXT NOT NULL, PRIMARY KEY (account_id, operation, request_key));
  `);
  const body = JSON.stringify({ amount: { currency_code: 'USD', value: '0.01' }, links: Array.from({ length: 3 }, (_, i) => ({ href: `http://127.0.0.1/v2/payments/captures/X${i}`, rel: 'self', method: 'GET' })) });
  sqlite.prepare('INSERT INTO authorizations VALUES (?, ?, ?, 0, ?, ?)').run('AUTH', 'ACCT', 100_000_000_000, 'CREATED', body);
  const readAuth = sqlite.prepare('SELECT * FROM authorizations WHERE id = ? AND account_id = ?');
  const insertCapture = sqlite.prepare('INSERT INTO captures VALUES (?, ?, ?, ?, ?, ?, ?)');
  const updateAuth = sqlite.prepare('UPDATE authorizations SET captured_minor = captured_minor + ?, status = ? WHERE id = ?');
  const insertEvent = sqlite.prepare('INSERT INTO events (id, account_id, event_type, resource_id, body) VALUES (?, ?, ?, ?, ?)');
  const insertKey = sqlite.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?)');
  const capture = sqlite.transaction((key: string) => {
    readAuth.get('AUTH', 'ACCT');
    const id = randomUUID();
    insertCapture.run(id, 'ACCT', 'AUTH', 1, 'COMPLETED', body, new Date().toISOString());
    updateAuth.run(1, 'PARTIALLY_CAPTURED', 'AUTH');
    insertEvent.run(`WH-${id}`, 'ACCT', 'PAYMENT.CAPTURE.COMPLETED', id, body);
    insertKey.run('ACCT', 'capture', key, 'hash', 200, body);
  });
  const deadline = performance.now() + seconds * 1000;
  let transactions = 0;
  const started = performance.now();
  while (performance.now() < deadline) {
    capture(randomUUID());
    transactions += 1;
  }
  const elapsed = (performance.now() - started) / 1000;
  sqlite.close();
  return { perSecond: transactions / elapsed, transactions };
}
