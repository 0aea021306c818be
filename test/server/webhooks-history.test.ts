// Event history (list, show, resend), simulated events, the delivery log, receiver paths, reset.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { receiverPath, joinReceiverUrl } from '../../src/server/notifications/receiver-paths.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { deliveries, emitEvent, startReceiver, subscribe, verificationRequest, waitForDelivery, waitUntil, type Receiver } from './webhooks-support.js';

let t: TestServer;
let other: Merchant;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant();
});
afterEach(async () => {
  for (const hook of (await t.request('GET', '/v1/notifications/webhooks')).body.webhooks) {
    await t.request('DELETE', `/v1/notifications/webhooks/${hook.id}`);
  }
  while (receivers.length > 0) await receivers.pop()?.close();
});
afterAll(async () => t.close());

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

describe('receiver paths', () => {
  const refund = { id: 'R1', links: [{ href: 'http://x/v2/payments/captures/CAP9', rel: 'up', method: 'GET' }] };
  it.each([
    ['PAYMENT.CAPTURE.COMPLETED', 'capture', 'CAP1', {}, 'captures/CAP1'],
    ['PAYMENT.CAPTURE.DECLINED', 'capture', 'CAP1', {}, 'captures/CAP1/declined'],
    ['PAYMENT.CAPTURE.PENDING', 'capture', 'CAP1', {}, 'captures/CAP1/pending'],
    ['PAYMENT.AUTHORIZATION.VOIDED', 'authorization', 'AUTH1', { status: 'VOIDED' }, 'authorizations/AUTH1/void'],
    ['PAYMENT.AUTHORIZATION.VOIDED', 'authorization', 'AUTH1', { status_details: { reason: 'EXPIRED' } }, 'authorizations/AUTH1/void-expired'],
    ['PAYMENT.CAPTURE.REFUNDED', 'refund', 'R1', refund, 'captures/CAP9/refunds'],
    ['PAYMENT.CAPTURE.REFUNDED', 'refund', 'CAP2', {}, 'captures/CAP2/refunds'],
    ['PAYMENT.AUTHORIZATION.CREATED', 'authorization', 'AUTH1', {}, 'authorizations/AUTH1'],
    ['CUSTOMER.DISPUTE.CREATED', 'dispute', 'PP-D-1', {}, 'disputes/PP-D-1'],
    ['PAYMENT.PAYOUTSBATCH.SUCCESS', 'payouts', 'B1', {}, 'payouts/B1'],
    ['PAYMENT.PAYOUTS-ITEM.CANCELED', 'payouts_item', 'I1', {}, 'payouts-items/I1'],
    ['INVOICING.INVOICE.PAID', 'invoices', 'INV2-A', {}, 'invoices/INV2-A'],
    ['CHECKOUT.ORDER.APPROVED', 'checkout-order', 'O1', {}, 'orders/O1'],
    ['SOMETHING.NEW.HAPPENED', 'Widget', 'W/1', {}, 'widget/W%2F1'],
  ])('%s on %s %s goes to %s', (eventType, resourceType, id, resource, expected) => {
    expect(receiverPath(eventType, resourceType, id, resource)).toBe(expected);
  });

  it.each([
    ['http://127.0.0.1:3000', 'captures/A', 'http://127.0.0.1:3000/captures/A'],
    ['http://127.0.0.1:3000/', 'captures/A', 'http://127.0.0.1:3000/captures/A'],
    ['http://127.0.0.1:3000/hooks/', 'captures/A', 'http://127.0.0.1:3000/hooks/captures/A'],
    ['https://example.com/wh?token=abc', 'captures/A/pending', 'https://example.com/wh/captures/A/pending?token=abc'],
  ])('joins %s and %s', (base, path, expected) => {
    expect(joinReceiverUrl(base, path)).toBe(expected);
  });
});

describe('event history', () => {
  it('lists newest first with filters and pages, and shows one event', async () => {
    const written = [];
    for (let i = 0; i < 5; i += 1) {
      written.push(
        await emitEvent(t, {
          eventType: i % 2 === 0 ? 'PAYMENT.CAPTURE.COMPLETED' : 'PAYMENT.CAPTURE.REFUNDED',
          resourceType: i % 2 === 0 ? 'capture' : 'refund',
          resourceId: `HIST${i}`,
        }),
      );
    }
    const all = await t.request('GET', '/v1/notifications/webhooks-events?page_size=300');
    expect(all.status).toBe(200);
    const ids = all.body.events.map((event: { id: string }) => event.id);
    expect(ids.slice(0, 5)).toEqual(written.map((event) => event.id).reverse());

    const page1 = await t.request('GET', '/v1/notifications/webhooks-events?page_size=2');
    expect(page1.body.count).toBe(2);
    expect(page1.body.events.map((event: { id: string }) => event.id)).toEqual([written[4]?.id, written[3]?.id]);
    const next = page1.body.links.find((l: { rel: string }) => l.rel === 'next');
    expect(next.href).toContain('next_page_token=');
    const page2 = await t.request('GET', next.href.slice(t.url.length));
    expect(page2.body.events.map((event: { id: string }) => event.id)).toEqual([written[2]?.id, written[1]?.id]);

    const refunds = await t.request('GET', '/v1/notifications/webhooks-events?event_type=PAYMENT.CAPTURE.REFUNDED&page_size=300');
    expect(refunds.body.events.every((event: { event_type: string }) => event.event_type === 'PAYMENT.CAPTURE.REFUNDED')).toBe(true);
    expect(refunds.body.events.map((event: { id: string }) => event.id)).toEqual(expect.arrayContaining([written[1]?.id, written[3]?.id]));

    const one = await t.request('GET', '/v1/notifications/webhooks-events?transaction_id=HIST2');
    expect(one.body.events.map((event: { id: string }) => event.id)).toEqual([written[2]?.id]);

    const future = new Date(Date.now() + 10 * 365 * 86_400_000).toISOString();
    const none = await t.request('GET', `/v1/notifications/webhooks-events?start_time=${future}`);
    expect(none.body).toMatchObject({ events: [], count: 0 });

    const shown = await t.request('GET', `/v1/notifications/webhooks-events/${written[0]?.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(written[0]);
    expect(shown.body.links).toEqual([
      { href: `${t.url}/v1/notifications/webhooks-events/${written[0]?.id}`, rel: 'self', method: 'GET' },
      { href: `${t.url}/v1/notifications/webhooks-events/${written[0]?.id}/resend`, rel: 'resend', method: 'POST' },
    ]);
  });

  it('takes a leap second (23:59:60) in start_time and end_time as a well-formed time', async () => {
    const result = await t.request('GET', '/v1/notifications/webhooks-events?start_time=2016-12-31T23:59:60Z&end_time=2099-12-31T23:59:60.5Z');
    expect(result.status, result.text).toBe(200);
    expect(result.body.count).toBeGreaterThan(0);
  });

  it.each([
    ['start_time=2023-02-29T00:00:00Z', 'start_time', 'INVALID_PARAMETER_SYNTAX'],
    ['page_size=0', 'page_size', 'INVALID_INTEGER_MIN_VALUE'],
    ['page_size=301', 'page_size', 'INVALID_INTEGER_MAX_VALUE'],
    ['start_time=yesterday', 'start_time', 'INVALID_PARAMETER_SYNTAX'],
    ['start_time=2030-01-02T00:00:00Z&end_time=2030-01-01T00:00:00Z', 'end_time', 'INVALID_PARAMETER_VALUE'],
    ['next_page_token=bm9wZQ', 'next_page_token', 'INVALID_PARAMETER_VALUE'],
  ])('refuses ?%s', async (query, field, issue) => {
    const result = await t.request('GET', `/v1/notifications/webhooks-events?${query}`);
    expect(result.status).toBe(400);
    expect(result.body.details[0]).toMatchObject({ field: expect.stringContaining(field), issue, location: 'query' });
  });

  it("shows nothing of another merchant's events", async () => {
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'MINEONLY' });
    expect((await t.request('GET', `/v1/notifications/webhooks-events/${event.id}`, { token: other.token })).status).toBe(404);
    const list = await t.request('GET', '/v1/notifications/webhooks-events?transaction_id=MINEONLY', { token: other.token });
    expect(list.body.events).toEqual([]);
    const resend = await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { token: other.token, body: {} });
    expect(resend.status).toBe(404);
  });
});

describe('resend', () => {
  it('sends a delivered event again, with the same id, to the webhooks named or to every subscriber', async () => {
    const a = await receiver();
    const b = await receiver();
    const hookA = await subscribe(t, a.url, ['PAYMENT.CAPTURE.COMPLETED']);
    await subscribe(t, b.url, ['*']);
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'RESEND01' });
    await a.waitFor(1);
    await b.waitFor(1);
    // A delivery still pending is not resent: wait until both are recorded as delivered.
    await waitUntil(async () => (await deliveries(t, `event_id=${event.id}`)).every((d) => d.status === 'DELIVERED'));

    const named = await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { body: { webhook_ids: [hookA] } });
    expect(named.status).toBe(202);
    expect(named.body).toEqual(event);
    await a.waitFor(2);
    expect(a.received.map((r) => JSON.parse(r.body).id)).toEqual([event.id, event.id]);
    expect(a.received[1]?.body).toBe(a.received[0]?.body);

    await waitUntil(async () => (await deliveries(t, `event_id=${event.id}`)).every((d) => d.status === 'DELIVERED'));
    await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { body: {} });
    await a.waitFor(3);
    await b.waitFor(2);
    const kinds = (await deliveries(t, `event_id=${event.id}`)).map((d) => d.kind).sort();
    expect(kinds).toEqual(['EVENT', 'EVENT', 'RESEND', 'RESEND', 'RESEND']);
  });

  it('does not queue a second delivery while one is still waiting, and refuses unknown webhooks', async () => {
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'RESEND02' });
    const failing = await startReceiver(() => ({ status: 500 }));
    receivers.push(failing);
    const hook = await subscribe(t, failing.url, ['*']);
    const resent = await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { body: { webhook_ids: [hook] } });
    expect(resent.status).toBe(202);
    await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
    await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { body: { webhook_ids: [hook] } });
    expect(await deliveries(t, `event_id=${event.id}`)).toHaveLength(1);
    const unknown = await t.request('POST', `/v1/notifications/webhooks-events/${event.id}/resend`, { body: { webhook_ids: ['NOSUCHHOOK'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.details[0]).toMatchObject({ issue: 'INVALID_RESOURCE_ID', value: 'NOSUCHHOOK', location: 'body' });
    expect((await t.request('POST', '/v1/notifications/webhooks-events/WH-NOPE/resend', { body: {} })).status).toBe(404);
  });
});

describe('simulate-event', () => {
  it('sends a sample to one webhook, signed with its id, at the callback path, outside the history', async () => {
    const target = await receiver();
    const bystander = await receiver();
    const hook = await subscribe(t, `${target.url}/sim`, ['PAYMENT.CAPTURE.COMPLETED']);
    const bystanderHook = await subscribe(t, bystander.url, ['*']);
    const simulated = await t.request('POST', '/v1/notifications/simulate-event', {
      body: { webhook_id: hook, event_type: 'PAYMENT.CAPTURE.DECLINED' },
    });
    expect(simulated.status).toBe(202);
    expect(simulated.body).toMatchObject({
      event_type: 'PAYMENT.CAPTURE.DECLINED',
      resource_type: 'capture',
      event_version: '1.0',
      resource_version: '2.0',
      resource: { status: 'DECLINED' },
    });
    expect(simulated.body.id).toMatch(/^WH-/);
    const [received] = await target.waitFor(1);
    expect(received?.path).toBe(`/sim/captures/${simulated.body.resource.id}/declined`);
    expect(JSON.parse(received?.body as string)).toEqual(simulated.body);
    const verified = await t.request('POST', '/v1/notifications/verify-webhook-signature', { body: verificationRequest(received!, hook) });
    expect(verified.body.verification_status).toBe('SUCCESS');
    expect((await t.request('GET', `/v1/notifications/webhooks-events/${simulated.body.id}`)).status).toBe(404);
    // The simulate call writes every delivery of its event itself: this list is final, so the
    // bystander has no delivery of it to receive, now or later.
    expect(await deliveries(t, `event_id=${simulated.body.id}`)).toHaveLength(1);
    const delivery = await waitForDelivery(t, simulated.body.id, (d) => d.status !== 'PENDING');
    expect(delivery).toMatchObject({ kind: 'SIMULATED', status: 'DELIVERED', webhook_id: hook });
    // The control: a simulation addressed to the bystander does reach it (and only that one).
    const control = await t.request('POST', '/v1/notifications/simulate-event', { body: { webhook_id: bystanderHook, event_type: 'PAYMENT.CAPTURE.DECLINED' } });
    expect(control.status).toBe(202);
    await bystander.waitFor(1);
    expect(bystander.received.map((r) => JSON.parse(r.body).id)).toEqual([control.body.id]);
    expect(target.received).toHaveLength(1);
  });

  it('sends a sample to a bare URL signed with the webhook id WEBHOOK_ID', async () => {
    const target = await receiver();
    const simulated = await t.request('POST', '/v1/notifications/simulate-event', {
      body: { url: target.url, event_type: 'PAYMENT.CAPTURE.REFUNDED' },
    });
    expect(simulated.status).toBe(202);
    const [received] = await target.waitFor(1);
    const captureId = /captures\/([A-Z0-9]+)$/.exec(simulated.body.resource.links[1].href)?.[1];
    expect(received?.path).toBe(`/captures/${captureId}/refunds`);
    const verify = (webhookId: string) =>
      t.request('POST', '/v1/notifications/verify-webhook-signature', { body: verificationRequest(received!, webhookId) });
    expect((await verify('WEBHOOK_ID')).body.verification_status).toBe('SUCCESS');
    expect((await verify('SOMETHINGELSE')).body.verification_status).toBe('FAILURE');
  });

  it.each([
    ['PAYMENT.AUTHORIZATION.VOIDED', /^\/authorizations\/[A-Z0-9]{17}\/void$/],
    ['PAYMENT.CAPTURE.PENDING', /^\/captures\/[A-Z0-9]{17}\/pending$/],
    ['CUSTOMER.DISPUTE.CREATED', /^\/disputes\/PP-D-[A-Z0-9]{5}$/],
    ['PAYMENT.PAYOUTSBATCH.SUCCESS', /^\/payouts\/[A-Z0-9]{13}$/],
    ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', /^\/payouts-items\/[A-Z0-9]{13}$/],
    ['INVOICING.INVOICE.PAID', /^\/invoices\/INV2-[A-Z0-9-]{19}$/],
    ['CHECKOUT.ORDER.APPROVED', /^\/orders\/[A-Z0-9]{17}$/],
  ])('simulates %s at a path like %s', async (eventType, path) => {
    const target = await receiver();
    expect((await t.request('POST', '/v1/notifications/simulate-event', { body: { url: target.url, event_type: eventType } })).status).toBe(202);
    const [received] = await target.waitFor(1);
    expect(received?.path).toMatch(path);
    expect(JSON.parse(received?.body as string).event_type).toBe(eventType);
  });

  it.each([
    [{ event_type: 'PAYMENT.CAPTURE.COMPLETED' }, '/webhook_id', 'MISSING_REQUIRED_PARAMETER', 400],
    [{ url: 'http://127.0.0.1:9/', event_type: 'NOPE.NOPE' }, '/event_type', 'INVALID_PARAMETER_VALUE', 400],
    [{ url: 'http://169.254.169.254/', event_type: 'PAYMENT.CAPTURE.COMPLETED' }, '/url', 'INVALID_PARAMETER_VALUE', 400],
    [{ webhook_id: 'NOSUCHHOOK', event_type: 'PAYMENT.CAPTURE.COMPLETED' }, 'webhook_id', 'INVALID_RESOURCE_ID', 404],
  ])('refuses %j', async (body, field, issue, status) => {
    const result = await t.request('POST', '/v1/notifications/simulate-event', { body });
    expect(result.status).toBe(status);
    expect(result.body.details[0]).toMatchObject({ field, issue });
  });
});

describe('the delivery log and reset', () => {
  it('filters by event, webhook and status, per account', async () => {
    const ok = await receiver();
    const hook = await subscribe(t, ok.url, ['PAYMENT.CAPTURE.COMPLETED']);
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'LOG01' });
    await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
    const byHook = await deliveries(t, `webhook_id=${hook}`);
    expect(byHook.map((d) => d.event_id)).toEqual([event.id]);
    expect(byHook[0]).toMatchObject({ webhook_id: hook, url: `${ok.url}/captures/LOG01`, attempt_count: 1, last_status_code: 200 });
    expect((await deliveries(t, `webhook_id=${hook}&status=PENDING`)).length).toBe(0);
    expect((await deliveries(t, `webhook_id=${hook}&status=DELIVERED`)).length).toBe(1);
    expect(await deliveries(t, `event_id=${event.id}`, other.token)).toEqual([]);
    const bad = await t.request('GET', '/_payctl/deliveries?status=LOST');
    expect(bad.status).toBe(400);
  });

  it('forgets deliveries on reset and keeps the subscriptions', async () => {
    const ok = await receiver();
    const hook = await subscribe(t, ok.url, ['*']);
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'RESET01' });
    await waitForDelivery(t, event.id, (d) => d.status === 'DELIVERED');
    expect((await t.request('POST', '/_payctl/reset', { body: {} })).status).toBe(200);
    expect(await deliveries(t)).toEqual([]);
    expect((await t.request('GET', `/v1/notifications/webhooks/${hook}`)).status).toBe(200);
    const after = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'RESET02' });
    await waitForDelivery(t, after.id, (d) => d.status === 'DELIVERED');
  });
});
