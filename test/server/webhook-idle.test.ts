// The webhook dispatcher with nothing to send: it asks whether any delivery is due (one read, from
// the index of pending deliveries by due time, however many retries wait days ahead) and opens no
// claim transaction until the answer is yes.

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/server/db/storage.js';
import { anyDeliveryDueQuery } from '../../src/server/notifications/store.js';
import { onPostgres } from '../helpers/postgres.js';
import { postgresPlan, sqlitePlan } from '../helpers/query-plan.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emitEvent, startReceiver, subscribe, waitForDelivery } from './webhooks-support.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** The names of the transactions `storage` opens while `work` runs. */
async function transactionsDuring(storage: Storage, work: () => Promise<void>): Promise<string[]> {
  const names: string[] = [];
  const original = storage.transaction;
  const bound = original.bind(storage);
  storage.transaction = (options, run) => {
    names.push(options.name);
    return bound(options, run);
  };
  try {
    await work();
  } finally {
    storage.transaction = original;
  }
  return names;
}

describe('webhook dispatch with nothing to send', () => {
  // SQLite's query planner (EXPLAIN QUERY PLAN on the file), without statistics, as a new file has.
  it.skipIf(onPostgres)('asks whether a delivery is due through webhook_deliveries_pending_due', () => {
    const plan = sqlitePlan(t.dbPath, anyDeliveryDueQuery(t.server.db, '2026-11-27T00:00:00.000Z'));
    expect(plan).toMatch(/USING (COVERING )?INDEX webhook_deliveries_pending_due \(status=\? AND next_attempt_at<\?\)/);
  });

  // PostgreSQL's planner picks a sequential scan of a small table; priced out, the plan shows the
  // index answers the statement (a predicate or column it does not cover would leave a scan).
  it.runIf(onPostgres)('can ask PostgreSQL the same through webhook_deliveries_pending_due', async () => {
    const plan = await postgresPlan(t.dbPath, anyDeliveryDueQuery(t.server.db, '2026-11-27T00:00:00.000Z'));
    expect(plan).toMatch(/Index (Only )?Scan using webhook_deliveries_pending_due on webhook_deliveries/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('opens no claim transaction while nothing is due, and claims as soon as a delivery is', async () => {
    const storage = t.server.deps.storage;
    // The dispatcher passes ten times a second; its first read after the start claims per account.
    await sleep(500);
    const idle = await transactionsDuring(storage, () => sleep(1_500));
    expect(idle.filter((name) => name === 'webhooks.claim')).toEqual([]);

    const receiver = await startReceiver();
    try {
      const busy = await transactionsDuring(storage, async () => {
        await subscribe(t, receiver.url, ['PAYMENT.CAPTURE.COMPLETED']);
        const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'IDLE00000000000001' });
        await waitForDelivery(t, event.id, (delivery) => delivery.status === 'DELIVERED');
      });
      expect(busy).toContain('webhooks.claim');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
