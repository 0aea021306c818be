// The webhook dispatcher's question while it has nothing to send (is any delivery due?) is answered
// from the index of pending deliveries by due time, however many retries wait days ahead.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyDeliveryDueQuery } from '../../src/server/notifications/store.js';
import { onPostgres } from '../helpers/postgres.js';
import { sqlitePlan } from '../helpers/sqlite-plan.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('webhook dispatch with nothing to send', () => {
  // SQLite's query planner (EXPLAIN QUERY PLAN on the file), without statistics, as a new file has.
  it.skipIf(onPostgres)('asks whether a delivery is due through webhook_deliveries_pending_due', () => {
    const plan = sqlitePlan(t.dbPath, anyDeliveryDueQuery(t.server.db, '2026-11-27T00:00:00.000Z'));
    expect(plan).toMatch(/USING (COVERING )?INDEX webhook_deliveries_pending_due \(status=\? AND next_attempt_at<\?\)/);
  });
});
