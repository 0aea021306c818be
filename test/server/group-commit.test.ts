// Group commit: concurrent requests share a commit, yet each one's failure undoes only its own work.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type OpenedDatabase } from '../../src/server/db/connection.js';
import { createGroupCommitter } from '../../src/server/db/group-commit.js';
import { migrate } from '../../src/server/db/migrate.js';
import { onPostgres } from '../helpers/postgres.js';

// SQLite only (the SQLite half runs it): group commit is SQLite's; PostgreSQL ignores batch.
describe.skipIf(onPostgres)('group commit', () => {
  let dir: string;
  let opened: OpenedDatabase;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'payctl-gc-'));
    opened = openDatabase(join(dir, 'gc.db'));
    migrate(opened.sqlite, '2026-01-01T00:00:00Z');
  });
  afterEach(async () => {
    await closeDatabase(opened);
    rmSync(dir, { recursive: true, force: true });
  });

  const insertSetting = (key: string) => async (trx: Parameters<Parameters<ReturnType<typeof createGroupCommitter>['run']>[0]>[0]) => {
    await trx.insertInto('settings').values({ key, value: 'v' }).execute();
    if (key.startsWith('fail')) throw new Error(`refused ${key}`);
    return key;
  };

  it.each([true, false])('commits the successful requests and none of the refused ones (grouping %s)', async (grouping) => {
    const committer = createGroupCommitter(opened.db, grouping);
    const keys = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? `fail-${i}` : `ok-${i}`));
    const outcomes = await Promise.allSettled(keys.map((key) => committer.run(insertSetting(key))));
    outcomes.forEach((outcome, i) => {
      if (keys[i]!.startsWith('fail')) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toContain(`refused ${keys[i]}`);
      } else {
        expect(outcome).toEqual({ status: 'fulfilled', value: keys[i] });
      }
    });
    const stored = (await opened.db.selectFrom('settings').select('key').execute()).map((row) => row.key).sort();
    expect(stored).toEqual(keys.filter((key) => key.startsWith('ok')).sort());
    const stats = committer.stats();
    expect(stats.requests).toBe(keys.length);
    if (grouping) expect(stats.batches).toBeLessThan(keys.length);
    else expect(stats.batches).toBe(keys.filter((key) => key.startsWith('ok')).length);
  });

  it('fails every request of a batch whose commit fails, and keeps none of them', async () => {
    const committer = createGroupCommitter(opened.db, true);
    // A deferred foreign key violation surfaces only at COMMIT, failing the whole batch.
    await sql.raw('PRAGMA defer_foreign_keys = ON').execute(opened.db);
    const breaksAtCommit = async (trx: Parameters<Parameters<typeof committer.run>[0]>[0]) => {
      await sql.raw('PRAGMA defer_foreign_keys = ON').execute(trx);
      await trx.insertInto('apps').values({ id: 'app', account_id: 'nobody', name: 'x', client_id: 'c', secret_hash: 'h', is_default: 0n, created_at: 'now' }).execute();
      return 'app';
    };
    // Hold the first batch open so that the next three requests queue up and share one commit.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = committer.run(async (trx) => {
      await gate;
      return insertSetting('first')(trx);
    });
    // A batch starts on the turn after its first request (setImmediate); let the first one start.
    await new Promise((resolve) => setImmediate(resolve));
    const grouped = Promise.allSettled([committer.run(insertSetting('a')), committer.run(breaksAtCommit), committer.run(insertSetting('b'))]);
    open();
    expect(await first).toBe('first');
    const outcomes = await grouped;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect((await opened.db.selectFrom('settings').select('key').execute()).map((row) => row.key)).toEqual(['first']);
    expect(await opened.db.selectFrom('apps').selectAll().execute()).toEqual([]);
  });
});
