// The ledger audit finds what is wrong, and only that.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordMovement } from '../../src/server/ledger/store.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /_payctl/audit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const failing = (body: { checks: Array<{ name: string; violations: unknown[] }> }) =>
    body.checks.filter((check) => check.violations.length > 0).map((check) => check.name);

  it('is clean on a consistent ledger, for the account and for all (with SQLite checks)', async () => {
    const db = t.server.db;
    await db.transaction().execute(async (trx) => {
      for (const amount of [1000n, 250n, -300n]) {
        await recordMovement(trx, { accountId: t.merchant.payer_id, currency: 'USD', amountMinor: amount, kind: 'TOP_UP', referenceId: 'x', createTime: '2026-01-01T00:00:00Z' });
      }
    });
    const mine = await t.request('GET', '/_payctl/audit');
    expect(mine.status).toBe(200);
    expect(mine.body.ok).toBe(true);
    expect(mine.body.scope).toBe('account');
    expect(mine.body.checks.map((check: { name: string }) => check.name)).toContain('balances-match-movements');
    const all = await t.request('GET', '/_payctl/audit', { token: t.adminKey });
    expect(all.body.ok).toBe(true);
    expect(all.body.checks.map((check: { name: string }) => check.name)).toEqual(expect.arrayContaining(['sqlite-integrity', 'foreign-keys']));
  });

  it('reports a balance that differs from its movements, to its owner and to the admin only', async () => {
    await sql`UPDATE balances SET available_minor = available_minor + 1 WHERE account_id = ${t.merchant.payer_id}`.execute(t.server.db);
    const mine = await t.request('GET', '/_payctl/audit');
    expect(mine.body.ok).toBe(false);
    expect(failing(mine.body)).toEqual(['balances-match-movements']);
    expect(mine.body.checks.find((check: { name: string }) => check.name === 'balances-match-movements').violations[0]).toMatchObject({
      account_id: t.merchant.payer_id,
      currency: 'USD',
      balance: '951',
      movements: '950',
    });
    const other = await t.createMerchant();
    const theirs = await t.request('GET', '/_payctl/audit', { token: other.token });
    expect(theirs.body.ok).toBe(true);
    expect(failing((await t.request('GET', '/_payctl/audit', { token: t.adminKey })).body)).toEqual(['balances-match-movements']);
  });
});
