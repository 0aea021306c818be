// `payctl serve` on a database file that another connection is writing: start-up waits for the write
// lock (busy_timeout) instead of failing. A start that changes a stored setting (a new --admin-key)
// must not read first and then write in one deferred transaction: SQLite refuses that upgrade at once
// ("database is locked") when another connection holds the lock or committed in between.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CREDENTIALS, startServe, tempDir, type ServeProcess } from './support/serve-process.js';

const dir = tempDir('shared-file');
const dbPath = join(dir, 'payctl.db');

beforeAll(async () => {
  // The schema and the default merchant, made by a first start.
  const first = await startServe({ dbPath });
  await first.kill('SIGTERM');
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a database another connection is writing', () => {
  it('starts eight times in a row, each with a new admin key, while commits land every few milliseconds', async () => {
    const other = new Database(dbPath);
    other.pragma('busy_timeout = 5000');
    const write = other.prepare("INSERT INTO settings (key, value) VALUES ('shared-file-test', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    let commits = 0;
    // A write transaction holding the lock for 5 ms every 7 ms: a start meets the lock held most of the
    // time, and commits land between its statements.
    const timer = setInterval(() => {
      other.transaction(() => {
        write.run(String(commits));
        const until = performance.now() + 5;
        while (performance.now() < until) {
          // hold the write lock
        }
      })();
      commits += 1;
    }, 7);
    const failures: string[] = [];
    try {
      for (let round = 0; round < 8; round += 1) {
        let served: ServeProcess | undefined;
        try {
          served = await startServe({ dbPath, credentials: { ...DEFAULT_CREDENTIALS, adminKey: `shared-file-admin-${round}` } });
          const audit = await fetch(`${served.url}/_payctl/audit`, { headers: { authorization: `Bearer shared-file-admin-${round}` } });
          if (audit.status !== 200) failures.push(`round ${round}: the new admin key was refused (${audit.status})`);
        } catch (error) {
          failures.push(`round ${round}: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
        } finally {
          await served?.kill('SIGTERM');
        }
      }
    } finally {
      clearInterval(timer);
      other.close();
    }
    console.log(`shared file: 8 starts with new admin keys while another connection committed ${commits} times`);
    expect(commits).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  }, 120_000);
});
