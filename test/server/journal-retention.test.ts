// The request journal's retention by the count kept beside its entries (migration 0016): exact with
// two servers writing one merchant's entries at once, started again after a clear, mended when the
// count has drifted, and filled in for a journal written before the count existed. Runs on SQLite
// and, in the PostgreSQL run, on PostgreSQL.

import { describe, expect, it } from 'vitest';
import { runAudit } from '../../src/server/audit/service.js';
import { migrateBelow, migrationStatements, openMigrationTarget } from '../helpers/migration-target.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const KEEP = 5;

/** The merchant's journal as stored: its entries' paths, oldest first, and its count. */
async function stored(t: TestServer, accountId: string) {
  // Listing writes what this server still holds (journal/service.ts), before it reads.
  expect((await t.request('GET', '/_payctl/requests?page_size=1')).status).toBe(200);
  const entries = await t.server.db.selectFrom('request_journal').select(['seq', 'path']).where('account_id', '=', accountId).orderBy('seq').execute();
  const count = await t.server.db.selectFrom('request_journal_counts').select('entries').where('account_id', '=', accountId).executeTakeFirst();
  return { paths: entries.map((entry) => entry.path), seqs: entries.map((entry) => entry.seq), counted: count === undefined ? undefined : Number(count.entries) };
}

async function auditFailures(t: TestServer): Promise<string[]> {
  const result = await runAudit(t.server.db, t.server.deps.storage.audit, null);
  return result.checks.filter((check) => check.violations.length > 0).map((check) => check.name);
}

describe('request journal retention by count', () => {
  // On SQLite the two servers' flushes take turns anyway (one writer); on PostgreSQL only the
  // journal's advisory lock keeps their counts and deletes in step.
  it('keeps exactly the newest N of one merchant written by two servers at once', async () => {
    const first = await startTestServer({ journalSize: KEEP });
    const second = await startTestServer({ journalSize: KEEP, dbPath: first.dbPath });
    try {
      const token = first.merchant.token;
      for (let round = 0; round < 4; round++) {
        await Promise.all(
          Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? first : second).request('GET', `/v2/payments/captures/R${round}-${index}`, { token })),
        );
        // Each round's batches are written before the next round's requests.
        await stored(second, first.merchant.payer_id);
      }
      const after = await stored(first, first.merchant.payer_id);
      expect(after.paths).toHaveLength(KEEP);
      expect(after.counted).toBe(KEEP);
      // The newest by seq: every entry of the merchant not kept is older than every entry kept.
      expect(after.paths.every((path) => path.startsWith('/v2/payments/captures/R3-'))).toBe(true);
      expect(await auditFailures(first)).toEqual([]);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('counts from nothing after a clear, and mends a count that drifted above the entries', async () => {
    const t = await startTestServer({ journalSize: KEEP });
    try {
      const accountId = t.merchant.payer_id;
      for (let index = 0; index < 3; index++) await t.request('GET', `/v2/payments/captures/A${index}`);
      const before = await stored(t, accountId);
      expect(before.paths.slice(-3)).toEqual(['/v2/payments/captures/A0', '/v2/payments/captures/A1', '/v2/payments/captures/A2']);
      expect(before.counted).toBe(before.paths.length);
      expect((await t.request('DELETE', '/_payctl/requests')).status).toBe(204);
      expect(await stored(t, accountId)).toMatchObject({ paths: [], counted: undefined });
      for (let index = 0; index < 2; index++) await t.request('GET', `/v2/payments/captures/B${index}`);
      expect(await stored(t, accountId)).toMatchObject({ paths: ['/v2/payments/captures/B0', '/v2/payments/captures/B1'], counted: 2 });

      // A count written around the journal says 1,000: the next prune finds fewer entries than the
      // count says are over the limit, counts them, and deletes nothing (3 entries, limit 5).
      await t.server.db.updateTable('request_journal_counts').set({ entries: 1000n }).where('account_id', '=', accountId).execute();
      expect(await auditFailures(t)).toEqual(['journal-counts-match']);
      await t.request('GET', '/v2/payments/captures/C0');
      expect(await stored(t, accountId)).toMatchObject({
        paths: ['/v2/payments/captures/B0', '/v2/payments/captures/B1', '/v2/payments/captures/C0'],
        counted: 3,
      });
      expect(await auditFailures(t)).toEqual([]);
      for (let index = 1; index <= KEEP + 2; index++) await t.request('GET', `/v2/payments/captures/C${index}`);
      expect(await stored(t, accountId)).toMatchObject({
        paths: [3, 4, 5, 6, 7].map((index) => `/v2/payments/captures/C${index}`),
        counted: KEEP,
      });
    } finally {
      await t.close();
    }
  });

  it("counts a merchant's entries at its first flush in a process, mending a count off by less than the limit", async () => {
    const first = await startTestServer({ journalSize: KEEP });
    try {
      const accountId = first.merchant.payer_id;
      expect((await first.request('DELETE', '/_payctl/requests')).status).toBe(204);
      for (let index = 0; index < 3; index++) await first.request('GET', `/v2/payments/captures/D${index}`);
      expect(await stored(first, accountId)).toMatchObject({ counted: 3 });
      // Entries an older payctl wrote without counting them: one more entry than counted.
      const now = new Date().toISOString();
      await first.server.db
        .insertInto('request_journal')
        .values({ account_id: accountId, time: now, account_time: now, method: 'GET', path: '/v2/payments/captures/D3', query: '', status: 404n, duration_us: 1n, request_id: null, fault_id: null, detail: '{}' })
        .execute();
      expect(await stored(first, accountId)).toMatchObject({ counted: 3 });
      expect(await auditFailures(first)).toEqual(['journal-counts-match']);
      // A server started now (a replica after the upgrade) counts the merchant's entries at its
      // first flush of them; the one that has flushed them already adds to its count.
      const second = await startTestServer({ journalSize: KEEP, dbPath: first.dbPath });
      try {
        await second.request('GET', '/v2/payments/captures/D4', { token: first.merchant.token });
        // The newest five of D0-D4 and the second server's own token request (its merchant's too).
        const mended = await stored(second, accountId);
        expect(mended.paths).toHaveLength(KEEP);
        expect(mended.counted).toBe(KEEP);
        expect(mended.paths.filter((path) => path.startsWith('/v2/'))).toEqual([1, 2, 3, 4].map((index) => `/v2/payments/captures/D${index}`));
        expect(await auditFailures(second)).toEqual([]);
        await first.request('GET', '/v2/payments/captures/D5');
        const after = await stored(first, accountId);
        expect(after.counted).toBe(KEEP);
        expect(after.paths.filter((path) => path.startsWith('/v2/'))).toEqual([2, 3, 4, 5].map((index) => `/v2/payments/captures/D${index}`));
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});

describe('migration 0016 (request journal counts)', () => {
  it("counts each merchant's entries of a journal written before it", async () => {
    const target = await openMigrationTarget('mig16');
    try {
      await migrateBelow(target, 16);
      const entry = (account: string, index: number) =>
        `INSERT INTO request_journal (account_id, time, account_time, method, path, query, status, duration_us, request_id, fault_id, detail)
         VALUES ('${account}', '2026-01-01T00:00:0${index}.000Z', '2026-01-01T00:00:0${index}.000Z', 'GET', '/v2/x', '', 200, 1, NULL, NULL, '{}')`;
      for (let index = 0; index < 3; index++) await target.exec(entry('ACC1', index));
      for (let index = 0; index < 2; index++) await target.exec(entry('', index));
      for (const statement of migrationStatements(16)) await target.exec(statement);
      const counts = (await target.rows('SELECT account_id, entries FROM request_journal_counts ORDER BY account_id')).map((row) => [row.account_id, Number(row.entries)]);
      expect(counts).toEqual([
        ['', 2],
        ['ACC1', 3],
      ]);
    } finally {
      await target.close();
    }
  });
});
