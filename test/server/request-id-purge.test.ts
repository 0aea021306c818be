// Request ids are dropped past their retention on the account's clock, by an index, not a scan.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiredRequestIds } from '../../src/server/http/idempotency.js';
import { onPostgres } from '../helpers/postgres.js';
import { postgresPlan, sqlitePlan } from '../helpers/query-plan.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, capture, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const DAY = 86_400;
const keysOf = (accountId: string) =>
  t.server.db.selectFrom('idempotency_keys').select(['request_key', 'expires_at']).where('account_id', '=', accountId).orderBy('request_key').execute();

describe('request id retention', () => {
  it('drops the ids of one account past their retention and keeps the others', async () => {
    const merchant = await t.createMerchant();
    const other = await t.createMerchant();
    const mine = await authorize(t, '50.00', 'USD', { token: merchant.token });
    const theirs = await authorize(t, '50.00', 'USD', { token: other.token });
    expect((await capture(t, mine, usd('1.00'), { 'service-request-id': 'old-key' }, merchant.token)).status).toBe(200);
    expect((await capture(t, theirs, usd('1.00'), { 'service-request-id': 'their-key' }, other.token)).status).toBe(200);
    expect((await keysOf(merchant.payer_id)).map((row) => row.request_key)).toContain('old-key');

    // Payments keep a request id 45 days: at 44 it is still there, and a reuse with other content is refused.
    await t.advanceClock(44 * DAY, merchant.token);
    merchant.token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    // (The order's own id, kept 6 hours, is gone by now.)
    expect((await keysOf(merchant.payer_id)).map((row) => row.request_key)).toEqual(['old-key']);
    // (A new authorization: the first one expired at 29 days.)
    const reused = await capture(t, await authorize(t, '50.00', 'USD', { token: merchant.token }), usd('2.00'), { 'service-request-id': 'old-key' }, merchant.token);
    expect(reused.status).toBe(422);
    expect(reused.body.details[0].issue).toBe('DUPLICATE_REQUEST_ID');

    await t.advanceClock(2 * DAY, merchant.token);
    merchant.token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    expect(await keysOf(merchant.payer_id)).toEqual([]);
    // The other account's clock did not move: its ids are all there.
    expect((await keysOf(other.payer_id)).map((row) => row.request_key)).toContain('their-key');
    expect(await keysOf(other.payer_id)).toHaveLength(2);
    // The id is free again: the same key with other content is a new request.
    expect((await capture(t, await authorize(t, '50.00', 'USD', { token: merchant.token }), usd('2.00'), { 'service-request-id': 'old-key' }, merchant.token)).status).toBe(200);
  });

  // SQLite's query planner (EXPLAIN QUERY PLAN on the file).
  it.skipIf(onPostgres)('finds an account’s expired ids through the (account_id, expires_at) index', async () => {
    const plan = sqlitePlan(t.dbPath, expiredRequestIds(t.server.db, t.merchant.payer_id, new Date()).compile());
    expect(plan).toMatch(/USING (COVERING )?INDEX idempotency_keys_account_expiry \(account_id=\? AND expires_at<\?\)/);
  });

  // PostgreSQL's, with sequential scans priced out (its tables here are too small to need an index).
  it.runIf(onPostgres)('can find them on PostgreSQL through the same index', async () => {
    const plan = await postgresPlan(t.dbPath, expiredRequestIds(t.server.db, t.merchant.payer_id, new Date()).compile());
    expect(plan).toMatch(/Index (Only )?Scan using idempotency_keys_account_expiry on idempotency_keys/);
    expect(plan).toMatch(/Index Cond: \(\(account_id = .*\) AND \(expires_at <=? .*\)\)/);
  });
});
