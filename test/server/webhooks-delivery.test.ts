// Delivery: retries on the account clock, the 25-attempt schedule, 410, Retry-After, isolation of a
// dead receiver, per-resource order, and events surviving a restart. Bounded in real time.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeEvent } from '../../src/server/core/events.js';
import { cryptoIds } from '../../src/server/core/ids.js';
import { createWebhook } from '../../src/server/notifications/service.js';
import { startServer } from '../../src/server/index.js';
import { MAX_IN_FLIGHT, PER_RECEIVER_IN_FLIGHT } from '../../src/server/notifications/dispatcher.js';
import { guardedLookup } from '../../src/server/notifications/url-guard.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS, retryAfterSeconds } from '../../src/server/notifications/retry-schedule.js';
import { openStorageAt } from '../helpers/postgres.js';
import { httpRequest, startTestServer, type TestServer } from '../helpers/server.js';
import {
  deliveries,
  emitEvent,
  freePort,
  retryBarrier,
  startReceiver,
  subscribe,
  tokenAt,
  waitForDelivery,
  waitUntil,
  type Receiver,
} from './webhooks-support.js';

let t: TestServer;
const receivers: Receiver[] = [];

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterEach(async () => {
  for (const hook of (await t.request('GET', '/v1/notifications/webhooks')).body.webhooks) {
    await t.request('DELETE', `/v1/notifications/webhooks/${hook.id}`);
  }
  while (receivers.length > 0) await receivers.pop()?.close();
});
afterAll(async () => t.close());

const capture = (id: string, eventType = 'PAYMENT.CAPTURE.COMPLETED') =>
  emitEvent(t, { eventType, resourceType: 'capture', resourceId: id });

const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

describe('the retry schedule', () => {
  it('is 25 attempts spread over exactly 3 days', () => {
    expect(MAX_ATTEMPTS).toBe(25);
    expect(RETRY_DELAYS_SECONDS).toEqual([
      60, 240, 600, 900, 1800, 3600, 3600, 3600, 7200, 7200, 7200, 7200, 10800, 10800, 10800, 10800, 21600, 21600, 21600,
      21600, 21600, 21600, 21600, 21600,
    ]);
    expect(RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0)).toBe(3 * 86_400);
  });

  it.each([
    ['120', 120],
    ['0', 1],
    ['999999999', 86_400],
    ['soon', undefined],
    [undefined, undefined],
  ])('reads Retry-After %s as %s seconds', (header, expected) => {
    expect(retryAfterSeconds(header, Date.now())).toBe(expected);
  });

  it('reads an HTTP-date Retry-After relative to now', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(retryAfterSeconds('Tue, 01 Jan 2030 00:05:00 GMT', now)).toBe(300);
  });

  it('makes attempt N+1 exactly the scheduled delay after attempt N, 25 in all, then gives up', async () => {
    // A server whose clock moves only when the test moves it: "one second short of the delay" is
    // exact, however long the machine takes between two steps.
    const startedAt = Date.now();
    const still = await startTestServer({ memory: true, now: () => startedAt });
    try {
      const always500 = await receiver(() => ({ status: 500 }));
      await subscribe(still, always500.url, ['PAYMENT.CAPTURE.COMPLETED']);
      const barrier = await retryBarrier(still, { retryAfterSeconds: 1 });
      receivers.push(barrier.receiver);
      const event = await emitEvent(still, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'SCHEDULE0000000001' });
      let delivery = await waitForDelivery(still, event.id, (d) => d.attempt_count === 1);
      for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
        const delay = RETRY_DELAYS_SECONDS[attempt - 1] as number;
        const last = delivery.attempts.at(-1);
        expect(last?.status_code).toBe(500);
        expect(delivery.status).toBe('PENDING');
        expect(seconds(last?.time as string, delivery.next_attempt_time as string)).toBe(delay);
        if (attempt <= 3 || attempt === MAX_ATTEMPTS - 1) {
          // One second short of the delay nothing happens, while a control due 1 s after the last
          // attempt is retried.
          const passed = await barrier.arm();
          await still.advanceClock(delay - 1);
          await passed();
          expect((await deliveries(still, `event_id=${event.id}`))[0]?.attempt_count).toBe(attempt);
          await still.advanceClock(1);
        } else {
          await still.advanceClock(delay);
        }
        delivery = await waitForDelivery(still, event.id, (d) => d.attempt_count === attempt + 1);
        expect(seconds(delivery.attempts[attempt - 1]?.time as string, delivery.attempts[attempt]?.time as string)).toBe(delay);
      }
      expect(delivery.status).toBe('FAILED');
      expect(delivery.next_attempt_time).toBeNull();
      expect(delivery.attempts.map((a) => a.number)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(seconds(delivery.attempts[0]?.time as string, delivery.attempts[24]?.time as string)).toBe(3 * 86_400);
      // Given up: a week later, once a control due meanwhile was retried, there is still no 26th.
      const passed = await barrier.arm();
      await still.advanceClock(7 * 86_400);
      await passed();
      expect(always500.received).toHaveLength(25);
      expect(new Set(always500.received.map((r) => JSON.parse(r.body).id))).toEqual(new Set([event.id]));
      expect((await deliveries(still, `event_id=${event.id}`))[0]).toMatchObject({ status: 'FAILED', attempt_count: 25 });
    } finally {
      await still.close();
    }
  }, 60_000);
});

describe('retries', () => {
  it('delivers to a receiver that answers 500 for a while once it recovers, with the same event id', async () => {
    let healthy = false;
    const flaky = await receiver(() => ({ status: healthy ? 204 : 500 }));
    await subscribe(t, `${flaky.url}/wh`, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture('FLAKY000000000001');
    await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    await t.advanceClock(60);
    await waitForDelivery(t, event.id, (d) => d.attempt_count === 2);
    healthy = true;
    await t.advanceClock(240);
    const delivery = await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([500, 500, 204]);
    expect(delivery.attempts.every((a) => a.url === `${flaky.url}/wh/captures/FLAKY000000000001`)).toBe(true);
    expect(delivery.attempts.every((a) => a.duration_ms >= 0 && a.error === null)).toBe(true);
    expect(flaky.received.map((r) => JSON.parse(r.body).id)).toEqual([event.id, event.id, event.id]);
    // Each attempt is its own transmission.
    expect(new Set(flaky.received.map((r) => r.headers['paypal-transmission-id'])).size).toBe(3);
    expect(new Set(delivery.attempts.map((a) => a.transmission_id))).toEqual(
      new Set(flaky.received.map((r) => r.headers['paypal-transmission-id'])),
    );
  });

  it('delivers to a host name (resolved through the guarded lookup)', async () => {
    const named = await receiver();
    await subscribe(t, `http://localhost:${named.port}/named`, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture('LOCALHOST00000001');
    const delivery = await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
    expect(delivery.attempts[0]?.url).toBe(`http://localhost:${named.port}/named/captures/LOCALHOST00000001`);
  });

  it('refuses to connect to a forbidden name at delivery time', async () => {
    const result = await new Promise<{ code?: string }>((resolve) =>
      guardedLookup('metadata.google.internal', {}, (error) => resolve({ code: (error as { code?: string } | null)?.code })),
    );
    expect(result.code).toBe('EFORBIDDEN');
    const local = await new Promise<string | undefined>((resolve) =>
      guardedLookup('localhost', { all: true }, (error, addresses) => resolve(error ? undefined : JSON.stringify(addresses))),
    );
    expect(local).toMatch(/127\.0\.0\.1|::1/);
  });

  it('records a network error when nothing listens, and retries', async () => {
    const port = await freePort();
    await subscribe(t, `http://127.0.0.1:${port}/down`, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture('DOWN0000000000001');
    const delivery = await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    expect(delivery.status).toBe('PENDING');
    expect(delivery.attempts[0]?.status_code).toBeNull();
    expect(delivery.attempts[0]?.error).toMatch(/ECONNREFUSED/);
    expect(delivery.last_error).toMatch(/ECONNREFUSED/);
  });

  it('stops at 410 Gone', async () => {
    const gone = await receiver(() => ({ status: 410 }));
    await subscribe(t, gone.url, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture('GONE0000000000001');
    const delivery = await waitForDelivery(t, event.id, (d) => d.status === 'GONE');
    expect(delivery.attempt_count).toBe(1);
    expect(delivery.next_attempt_time).toBeNull();
    const barrier = await retryBarrier(t);
    receivers.push(barrier.receiver);
    const passed = await barrier.arm();
    await t.advanceClock(4 * 86_400);
    await passed();
    expect(gone.received).toHaveLength(1);
    expect((await deliveries(t, `event_id=${event.id}`))[0]?.attempt_count).toBe(1);
  });

  it.each([
    [{ 'retry-after': '120' }, 120],
    [{}, 60],
  ])('on 429 with %j waits %i seconds', async (headers, wait) => {
    const limited = await receiver((_request, index) => (index === 0 ? { status: 429, headers } : { status: 200 }));
    await subscribe(t, limited.url, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture(`LIMITED${wait}00000000`);
    const first = await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    expect(first.last_status_code).toBe(429);
    expect(seconds(first.attempts[0]?.time as string, first.next_attempt_time as string)).toBe(wait);
    await t.advanceClock(wait);
    await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
  });

  it.each([[301], [400], [404], [503]])('treats %i as a failure to retry', async (status) => {
    const headers: Record<string, string> = status === 301 ? { location: 'http://169.254.169.254/' } : {};
    const refusing = await receiver(() => ({ status, headers }));
    await subscribe(t, refusing.url, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await capture(`REFUSE${status}00000000`);
    const delivery = await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    expect(delivery.status).toBe('PENDING');
    expect(delivery.last_status_code).toBe(status);
    expect(refusing.received).toHaveLength(1);
  });
});

describe('isolation and order', () => {
  it('delivers to a healthy receiver while a hanging and a dead one have attempts outstanding', async () => {
    const hanging = await receiver(() => ({ status: 200, hang: true }));
    const port = await freePort();
    const healthy = await receiver();
    await subscribe(t, hanging.url, ['PAYMENT.CAPTURE.COMPLETED']);
    await subscribe(t, `http://127.0.0.1:${port}/`, ['PAYMENT.CAPTURE.COMPLETED']);
    await subscribe(t, healthy.url, ['PAYMENT.CAPTURE.REFUNDED']);
    for (let i = 0; i < 3 * MAX_IN_FLIGHT; i += 1) await capture(`HANG${String(i).padStart(13, '0')}`);
    // The hanging receiver holds attempts before the healthy one's event exists (on a loaded machine
    // its first request can arrive later than the healthy delivery would otherwise take).
    await hanging.waitFor(1, 5_000);
    const started = Date.now();
    const refund = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.REFUNDED', resourceType: 'refund', resourceId: 'REFUNDHEALTHY0001' });
    await healthy.waitFor(1, 3_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(JSON.parse(healthy.received[0]?.body as string).id).toBe(refund.id);
    // The hanging receiver holds at most its share of the attempt slots.
    expect(hanging.received.length).toBeGreaterThanOrEqual(1);
    expect(hanging.received.length).toBeLessThanOrEqual(PER_RECEIVER_IN_FLIGHT);
  });

  it('sends events for one resource in commit order', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 40 }));
    await subscribe(t, slow.url, ['*']);
    const types = ['PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED'];
    const ids: string[] = [];
    for (const eventType of types) ids.push((await emitEvent(t, { eventType, resourceType: 'capture', resourceId: 'ORDERED0000000001' })).id);
    await slow.waitFor(4);
    expect(slow.received.map((r) => JSON.parse(r.body).id)).toEqual(ids);
    // Each one went out only after the previous one was answered.
    for (let i = 1; i < 4; i += 1) {
      expect(slow.received[i]?.at).toBeGreaterThanOrEqual(slow.received[i - 1]?.respondedAt ?? Number.POSITIVE_INFINITY);
    }
    expect(slow.received.map((r) => r.path)).toEqual([
      '/captures/ORDERED0000000001/pending',
      '/captures/ORDERED0000000001',
      '/captures/ORDERED0000000001/refunds',
      '/captures/ORDERED0000000001/reversed',
    ]);
  });

  it('delivers each event once to every matching subscription and only to those', async () => {
    const a = await receiver();
    const b = await receiver();
    const c = await receiver();
    await subscribe(t, a.url, ['*']);
    await subscribe(t, b.url, ['PAYMENT.CAPTURE.DECLINED']);
    await subscribe(t, c.url, ['CUSTOMER.DISPUTE.CREATED']);
    const declined = await capture('DECLINED000000001', 'PAYMENT.CAPTURE.DECLINED');
    // The control: an event for c about the same resource, committed after. Events fan out in commit
    // order and a resource's first attempts per subscription follow it, so once c has this one, the
    // declined event was fanned out (all its deliveries exist) and any delivery of it to c was made.
    const control = await emitEvent(t, { eventType: 'CUSTOMER.DISPUTE.CREATED', resourceType: 'capture', resourceId: 'DECLINED000000001' });
    await c.waitFor(1);
    await a.waitFor(2);
    await b.waitFor(1);
    expect(c.received.map((r) => JSON.parse(r.body).id)).toEqual([control.id]);
    expect(a.received.map((r) => JSON.parse(r.body).id)).toEqual([declined.id, control.id]);
    expect(b.received.map((r) => JSON.parse(r.body).id)).toEqual([declined.id]);
    expect(b.received[0]?.path).toBe('/captures/DECLINED000000001/declined');
    const rows = await deliveries(t, `event_id=${declined.id}`);
    expect(rows.map((d) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);
    expect(new Set(rows.map((d) => d.url))).toEqual(new Set([a.url, b.url].map((url) => `${url}/captures/DECLINED000000001/declined`)));
  });

  it("does not send another merchant's events", async () => {
    const mine = await receiver();
    await subscribe(t, mine.url, ['*']);
    const other = await t.createMerchant();
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'OTHER000000000001', accountId: other.payer_id });
    // The control: my own event, committed after, arrives; events fan out in commit order, so the
    // other merchant's was fanned out by then and every delivery it will ever have exists.
    const control = await capture('MINE0000000000001');
    await mine.waitFor(1);
    expect(mine.received.map((r) => JSON.parse(r.body).id)).toEqual([control.id]);
    expect(await deliveries(t, `event_id=${event.id}`, other.token)).toEqual([]);
    expect(await deliveries(t, `event_id=${event.id}`)).toEqual([]);
  });

  it('does not send a new subscription the events committed before it, fanned out or not', async () => {
    const late = await receiver();
    const fannedOut = await receiver();
    await subscribe(t, fannedOut.url, ['*']);
    const before = await capture('BEFORE00000000001');
    await fannedOut.waitFor(1);
    // An event not fanned out yet when the subscription commits: written in the subscription's own
    // transaction, just before it (over HTTP the dispatcher nearly always fans an event out before
    // the next request, so that case would pass even with the subscription taking every event).
    const deps = t.server.deps;
    const accountId = t.merchant.payer_id;
    const app = await t.server.db.selectFrom('apps').select('id').where('client_id', '=', t.merchant.client_id).executeTakeFirstOrThrow();
    const unfanned = await deps.storage.transaction({ name: 'test' }, async (trx) => {
      const now = deps.clock.now(accountId);
      const event = await writeEvent(
        trx,
        { ids: deps.ids, now, baseUrl: t.url },
        { accountId, eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'BEFORE00000000002', resource: { id: 'BEFORE00000000002' }, summary: 'in the same transaction' },
      );
      await createWebhook({ db: trx, deps, accountId, now, baseUrl: t.url }, app.id, { url: late.url, event_types: [{ name: '*' }] });
      return event;
    });
    const after = await capture('AFTER000000000001');
    // `after` fans out no earlier than the others (commit order), so once it is here they have been
    // fanned out: a delivery of theirs that does not exist now never will.
    await late.waitFor(1);
    await fannedOut.waitFor(3);
    expect(await deliveries(t, `event_id=${unfanned.id}`)).toHaveLength(1);
    expect(await deliveries(t, `event_id=${before.id}`)).toHaveLength(1);
    expect(late.received.map((r) => JSON.parse(r.body).id)).toEqual([after.id]);
  });

  it('cancels waiting deliveries when their subscription is deleted', async () => {
    const failing = await receiver(() => ({ status: 500 }));
    const id = await subscribe(t, failing.url, ['*']);
    const event = await capture('CANCEL00000000001');
    await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    expect((await t.request('DELETE', `/v1/notifications/webhooks/${id}`)).status).toBe(204);
    const cancelled = await waitForDelivery(t, event.id, (d) => d.status === 'CANCELLED');
    expect(cancelled.next_attempt_time).toBeNull();
    const barrier = await retryBarrier(t);
    receivers.push(barrier.receiver);
    const passed = await barrier.arm();
    await t.advanceClock(3_600);
    await passed();
    expect(failing.received).toHaveLength(1);
    expect((await deliveries(t, `event_id=${event.id}`))[0]).toMatchObject({ status: 'CANCELLED', attempt_count: 1 });
  });
});

describe('durability', () => {
  it('delivers after a restart what was pending or never queued when the server stopped', async () => {
    const port = await freePort();
    const first = await startTestServer();
    const dbPath = first.dbPath;
    let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
    let up: Receiver | undefined;
    try {
      await subscribe(first, `http://127.0.0.1:${port}/after`, ['*']);
      const pending = await emitEvent(first, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'RESTART0000000001' });
      await waitForDelivery(first, pending.id, (d) => d.attempt_count === 1 && /ECONNREFUSED/.test(d.last_error ?? ''));
      await first.server.close();

      // An event committed while no dispatcher ran (as if the server died right after the commit).
      const storage = await openStorageAt(dbPath);
      const unqueued = await storage.transaction({ name: 'test' }, (trx) =>
        writeEvent(
          trx,
          { ids: cryptoIds, now: new Date(), baseUrl: first.url },
          {
            accountId: first.merchant.payer_id,
            eventType: 'PAYMENT.AUTHORIZATION.VOIDED',
            resourceType: 'authorization',
            resourceId: 'RESTART0000000002',
            resource: { id: 'RESTART0000000002', status: 'VOIDED' },
            summary: 'voided while down',
          },
        ),
      );
      await storage.close();

      up = await startReceiver(() => ({ status: 200 }), port);
      restarted = await startServer({ dbPath, logLevel: 'silent' });
      const token = await tokenAt(restarted.url, restarted.defaultCredentials.client_id, restarted.defaultCredentials.client_secret);
      // The never-queued event goes out at once; the pending one when its retry is due.
      await up.waitFor(1);
      expect(up.received.map((r) => JSON.parse(r.body).id)).toEqual([unqueued.id]);
      expect(up.received[0]?.path).toBe('/after/authorizations/RESTART0000000002/void');
      const advanced = await httpRequest(`${restarted.url}/_payctl/clock`, 'POST', { token, body: { advance_seconds: 60 } });
      expect(advanced.status).toBe(200);
      await up.waitFor(2);
      expect(up.received.map((r) => JSON.parse(r.body).id)).toEqual([unqueued.id, pending.id]);
      const attemptsOf = async () =>
        (await httpRequest(`${restarted!.url}/_payctl/deliveries?event_id=${pending.id}`, 'GET', { token })).body.deliveries[0].attempts.map(
          (a: { status_code: number | null }) => a.status_code,
        );
      await waitUntil(async () => (await attemptsOf()).length === 2, 5_000, 'the second attempt to be recorded');
      expect(await attemptsOf()).toEqual([null, 200]);
    } finally {
      await restarted?.close();
      await up?.close();
      await first.close().catch(() => undefined);
    }
  });
});
