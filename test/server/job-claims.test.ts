// Migration 0012 (the fan-out cursor becomes a flag per event) and the job leases every adapter shares.

import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BetterSqliteDialect } from '../../src/server/db/driver.js';
import { jobLeaseRunner } from '../../src/server/db/job-leases.js';
import { migrate } from '../../src/server/db/migrate.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import type { Database } from '../../src/server/db/schema.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';

const opened: BetterSqlite3.Database[] = [];
afterEach(() => {
  for (const sqlite of opened.splice(0)) sqlite.close();
});

function memoryDb(): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.defaultSafeIntegers(true);
  opened.push(sqlite);
  return sqlite;
}

describe('migration 0012', () => {
  it('marks the events up to the old cursor fanned out and the later ones not, so none is delivered twice or lost', () => {
    const sqlite = memoryDb();
    for (const migration of MIGRATIONS.filter((m) => m.id < 12)) for (const statement of migration.statements) sqlite.exec(statement);
    sqlite.exec("INSERT INTO accounts (id, email, is_default, clock_offset_ms, kyc_status, created_at) VALUES ('A1', 'a@example.com', 1, 0, 'VERIFIED', '2026-01-01')");
    const insert = sqlite.prepare("INSERT INTO events (id, account_id, event_type, resource_type, resource_id, create_time, body) VALUES (?, 'A1', 'X', 'x', 'R', '2026-01-01', '{}')");
    for (let i = 1; i <= 5; i += 1) insert.run(`WH-${i}`);
    sqlite.exec("UPDATE webhook_dispatch_cursor SET last_seq = 3 WHERE name = 'events'");
    const migration = MIGRATIONS.find((m) => m.id === 12)!;
    for (const statement of migration.statements) sqlite.exec(statement);
    const rows = sqlite.prepare('SELECT id, fanned_out FROM events ORDER BY seq').all() as Array<{ id: string; fanned_out: bigint }>;
    expect(rows.map((row) => [row.id, Number(row.fanned_out)])).toEqual([
      ['WH-1', 1],
      ['WH-2', 1],
      ['WH-3', 1],
      ['WH-4', 0],
      ['WH-5', 0],
    ]);
    // A new event waits for its fan-out without naming the column.
    insert.run('WH-6');
    expect(Number((sqlite.prepare("SELECT fanned_out FROM events WHERE id = 'WH-6'").get() as { fanned_out: bigint }).fanned_out)).toBe(0);
    expect(sqlite.prepare("SELECT name FROM sqlite_master WHERE name = 'webhook_dispatch_cursor'").get()).toBeUndefined();
  });
});

describe('job leases', () => {
  function storageOf(sqlite: BetterSqlite3.Database) {
    migrate(sqlite, '2026-01-01T00:00:00Z');
    const db = new Kysely<Database>({ dialect: new BetterSqliteDialect(sqlite) });
    return createSqliteStorage(db, { groupCommit: false });
  }

  it('runs a pass on one holder only, until its lease runs out; then another takes it over', async () => {
    const storage = storageOf(memoryDb());
    const first = jobLeaseRunner('server-1');
    const second = jobLeaseRunner('server-2');
    const runs: string[] = [];
    const pass = (who: string) => async () => {
      runs.push(who);
    };
    expect(await first(storage, 'purge', 60_000, pass('1'))).toBe(true);
    expect(await second(storage, 'purge', 60_000, pass('2'))).toBe(false);
    expect(await first(storage, 'purge', 60_000, pass('1'))).toBe(true);
    // Another job's lease is its own.
    expect(await second(storage, 'other', 60_000, pass('2-other'))).toBe(true);
    expect(runs).toEqual(['1', '1', '2-other']);
    // The holder stops renewing (it died): once the lease is past, the other takes it.
    await storage.db.updateTable('job_leases').set({ until: BigInt(Date.now() - 1) }).where('name', '=', 'purge').execute();
    expect(await second(storage, 'purge', 60_000, pass('2'))).toBe(true);
    expect(await first(storage, 'purge', 60_000, pass('1'))).toBe(false);
    expect(runs).toEqual(['1', '1', '2-other', '2']);
  });

  it('storage.withJobLease runs the pass and holds the lease for this server', async () => {
    const storage = storageOf(memoryDb());
    let ran = 0;
    expect(await storage.withJobLease('purge', 60_000, async () => void (ran += 1))).toBe(true);
    expect(ran).toBe(1);
    expect(await jobLeaseRunner('someone-else')(storage, 'purge', 60_000, async () => void (ran += 1))).toBe(false);
    expect(ran).toBe(1);
  });
});
