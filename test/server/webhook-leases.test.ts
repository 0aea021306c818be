// Delivery leases are short and renewed: an attempt that lasts longer than LEASE_MS keeps its lease
// until it is recorded, and a delivery whose lease another server took over is abandoned, not recorded.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS } from '../../src/server/notifications/attempt.js';
import { LEASE_MS } from '../../src/server/notifications/dispatcher.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emitEvent, subscribe, waitForDelivery, waitUntil } from './webhooks-support.js';

/** A receiver that answers only when told to, and sees a request given up by the sender. */
async function heldReceiver() {
  const waiting: Array<{ response: ServerResponse; closed: boolean }> = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const entry = { response, closed: false };
    request.resume();
    response.on('close', () => {
      entry.closed = !response.writableEnded;
    });
    waiting.push(entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    waiting,
    answer(index: number, status = 204) {
      waiting[index]?.response.writeHead(status).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => t.close());

let webhookId = '';
const row = (eventId: string) =>
  t.server.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'lease_owner', 'lease_until', 'attempt_count', 'status'])
    .where('event_id', '=', eventId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();

describe('webhook delivery leases', () => {
  it('is shorter than an attempt', () => {
    expect(LEASE_MS).toBeLessThan(ATTEMPT_TIMEOUT_MS);
  });

  it('renews the lease of an attempt in flight past LEASE_MS, then records it and gives the lease back', async () => {
    const receiver = await heldReceiver();
    try {
      webhookId = await subscribe(t, receiver.url, ['*']);
      const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'LEASE0000000000001' });
      await waitUntil(() => receiver.waiting.length === 1, 10_000, 'the attempt at the receiver');
      const first = await row(event.id);
      expect(first.lease_owner).not.toBeNull();
      const claimedUntil = Number(first.lease_until);
      // Held past the lease it was claimed with: renewed meanwhile, never run out.
      await waitUntil(async () => {
        const now = await row(event.id);
        expect(Number(now.lease_until), 'the lease ran out during the attempt').toBeGreaterThan(Date.now());
        return Date.now() > claimedUntil + 500;
      }, 3 * LEASE_MS, 'the claimed lease to have ended');
      const renewed = await row(event.id);
      expect(renewed.lease_owner).toBe(first.lease_owner);
      expect(Number(renewed.lease_until)).toBeGreaterThan(claimedUntil);
      receiver.answer(0);
      const delivery = await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
      expect(delivery.attempts.map((a) => a.status_code)).toEqual([204]);
      expect(receiver.waiting).toHaveLength(1);
      expect((await row(event.id)).lease_owner).toBeNull();
    } finally {
      await t.request('DELETE', `/v1/notifications/webhooks/${webhookId}`);
      await receiver.close();
    }
  }, 30_000);

  it('abandons an attempt whose lease another server took over, and does not record it', async () => {
    const receiver = await heldReceiver();
    try {
      webhookId = await subscribe(t, receiver.url, ['*']);
      const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'LEASE0000000000002' });
      await waitUntil(() => receiver.waiting.length === 1, 10_000, 'the attempt at the receiver');
      const { id } = await row(event.id);
      // As if this server had stalled past its lease and another one claimed the delivery.
      await t.server.db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: 'another-server', lease_until: BigInt(Date.now() + 60_000) })
        .where('id', '=', id)
        .execute();
      // Well before the attempt's own deadline would end it.
      await waitUntil(() => receiver.waiting[0]?.closed === true, ATTEMPT_TIMEOUT_MS - 3_000, 'the attempt to be abandoned');
      const after = await row(event.id);
      expect(after.lease_owner).toBe('another-server');
      expect(after.attempt_count).toBe(0n);
      expect(after.status).toBe('PENDING');
      const attempts = await t.server.db.selectFrom('webhook_attempts').select('delivery_id').where('delivery_id', '=', id).execute();
      expect(attempts).toHaveLength(0);
      // Cleanup: the "other server" gives it back.
      await t.server.db.deleteFrom('webhook_deliveries').where('id', '=', id).execute();
    } finally {
      await t.request('DELETE', `/v1/notifications/webhooks/${webhookId}`);
      await receiver.close();
    }
  }, 30_000);
});
