// Orders after creation: JSON Patch, confirm-payment-source, and shipment tracking (track, trackers PATCH).

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { FULL, outbox } from './payments-helpers.js';

let t: TestServer;
let other: Merchant;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant('other-orders@example.com');
});
afterAll(async () => {
  await t.close();
});

const m = (value: string, currency_code = 'USD') => ({ currency_code, value });
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } };

async function newOrder(intent: 'CAPTURE' | 'AUTHORIZE' = 'CAPTURE', unit: Record<string, unknown> = {}): Promise<string> {
  const created = await t.request('POST', '/v2/checkout/orders', {
    body: {
      intent,
      purchase_units: [
        {
          amount: { ...m('30.00'), breakdown: { item_total: m('25.00'), shipping: m('5.00') } },
          items: [{ name: 'Boot', sku: 'BOOT-1', quantity: '1', unit_amount: m('25.00') }],
          ...unit,
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

const patch = (id: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
  t.request('PATCH', `/v2/checkout/orders/${id}`, { body, headers, ...(token ? { token } : {}) });
const get = (id: string) => t.request('GET', `/v2/checkout/orders/${id}`);
const approve = (id: string) => t.request('POST', `/_payctl/orders/${id}/approve`, { body: {} });
const UNIT = "/purchase_units/@reference_id=='default'";

async function capturedOrder(): Promise<{ id: string; captureId: string }> {
  const id = await newOrder();
  await approve(id);
  const captured = await t.request('POST', `/v2/checkout/orders/${id}/capture`, { headers: FULL });
  expect(captured.status, captured.text).toBe(201);
  return { id, captureId: captured.body.purchase_units[0].payments.captures[0].id as string };
}

describe('PATCH /v2/checkout/orders/{id}', () => {
  it('replaces, adds and removes the allowed fields, answering 204, and the order shows them', async () => {
    const id = await newOrder('CAPTURE', { custom_id: 'old', description: 'Boots' });
    const result = await patch(id, [
      { op: 'replace', path: `${UNIT}/custom_id`, value: 'new-custom' },
      { op: 'add', path: `${UNIT}/invoice_id`, value: 'INV-PATCH-1' },
      { op: 'remove', path: `${UNIT}/description` },
      { op: 'add', path: `${UNIT}/shipping/address`, value: { address_line_1: '1 Main St', admin_area_2: 'Springfield', postal_code: '12345', country_code: 'US' } },
    ]);
    expect(result.status, result.text).toBe(204);
    expect(result.text).toBe('');
    const unit = (await get(id)).body.purchase_units[0];
    expect(unit.custom_id).toBe('new-custom');
    expect(unit.invoice_id).toBe('INV-PATCH-1');
    expect(unit.description).toBeUndefined();
    expect(unit.shipping.address.address_line_1).toBe('1 Main St');
  });

  it('replaces the amount when it agrees with its breakdown, and the capture takes the new amount', async () => {
    const id = await newOrder();
    const result = await patch(id, [
      { op: 'replace', path: `${UNIT}/amount`, value: { ...m('32.50'), breakdown: { item_total: m('25.00'), shipping: m('7.50') } } },
    ]);
    expect(result.status, result.text).toBe(204);
    await approve(id);
    const captured = await t.request('POST', `/v2/checkout/orders/${id}/capture`, { headers: FULL });
    expect(captured.body.purchase_units[0].payments.captures[0].amount).toMatchObject(m('32.50'));
  });

  it('refuses an amount that disagrees with its items, changing nothing', async () => {
    const id = await newOrder();
    const result = await patch(id, [
      { op: 'add', path: `${UNIT}/custom_id`, value: 'would-change' },
      { op: 'replace', path: `${UNIT}/amount`, value: { ...m('40.00'), breakdown: { item_total: m('40.00') } } },
    ]);
    expect(result.status).toBe(422);
    // Named where the request carries it: in the value of the second operation.
    expect(result.body.details[0]).toMatchObject({ issue: 'ITEM_TOTAL_MISMATCH', field: '/1/value/breakdown/item_total/value', location: 'body' });
    const unit = (await get(id)).body.purchase_units[0];
    expect(unit.amount.value).toBe('30.00');
    expect(unit.custom_id).toBeUndefined();
  });

  it('accepts the index form of a purchase unit path and an intent change', async () => {
    const id = await newOrder();
    // soft_descriptor takes replace or remove only: the whole patch is refused, the intent too.
    expect((await patch(id, [{ op: 'replace', path: '/intent', value: 'AUTHORIZE' }, { op: 'add', path: '/purchase_units/0/soft_descriptor', value: 'X' }])).status).toBe(400);
    expect((await get(id)).body.intent).toBe('CAPTURE');
    const ok = await patch(id, [{ op: 'replace', path: '/intent', value: 'AUTHORIZE' }]);
    expect(ok.status, ok.text).toBe(204);
    expect((await get(id)).body.intent).toBe('AUTHORIZE');
  });

  it('replaces the purchase units as a whole, with the creation rules (one unit for AUTHORIZE)', async () => {
    const units = [
      { reference_id: 'a', amount: m('10.00') },
      { reference_id: 'b', amount: m('5.50') },
    ];
    const id = await newOrder();
    expect((await patch(id, [{ op: 'replace', path: '/purchase_units', value: units }])).status).toBe(204);
    await approve(id);
    const captured = await t.request('POST', `/v2/checkout/orders/${id}/capture`, { headers: FULL });
    expect(captured.body.purchase_units.map((unit: any) => [unit.reference_id, unit.payments.captures[0].amount.value])).toEqual([
      ['a', '10.00'],
      ['b', '5.50'],
    ]);
    const single = await newOrder('AUTHORIZE');
    const refused = await patch(single, [{ op: 'replace', path: '/purchase_units', value: units }]);
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('UNSUPPORTED_INTENT');
    const unnamed = await patch(await newOrder(), [{ op: 'replace', path: '/purchase_units', value: [{ amount: m('1.00') }, { amount: m('2.00') }] }]);
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.details[0]).toMatchObject({ issue: 'REFERENCE_ID_REQUIRED', field: '/0/value/0/reference_id' });
  });

  const refusals: Array<[string, unknown, number, string, string]> = [
    ['a path that cannot be patched', [{ op: 'replace', path: '/status', value: 'COMPLETED' }], 422, 'NOT_PATCHABLE', '/0/path'],
    ['an unknown unit field', [{ op: 'replace', path: `${UNIT}/payments`, value: {} }], 422, 'NOT_PATCHABLE', '/0/path'],
    ['a path that is not a JSON pointer', [{ op: 'replace', path: 'intent', value: 'CAPTURE' }], 422, 'INVALID_JSON_POINTER_FORMAT', '/0/path'],
    ['an unknown reference id', [{ op: 'replace', path: "/purchase_units/@reference_id=='nope'/custom_id", value: 'x' }], 422, 'REFERENCE_ID_NOT_FOUND', '/0/path'],
    ['no path', [{ op: 'replace', value: 'x' }], 422, 'PATCH_PATH_REQUIRED', '/0/path'],
    ['no value', [{ op: 'replace', path: '/intent' }], 422, 'PATCH_VALUE_REQUIRED', '/0/value'],
    ['an operation the path does not allow', [{ op: 'remove', path: `${UNIT}/amount` }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['replace of an absent field', [{ op: 'replace', path: `${UNIT}/invoice_id`, value: 'I-1' }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['add of a present field', [{ op: 'add', path: `${UNIT}/items`, value: [] }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['a move', [{ op: 'move', from: '/intent', path: `${UNIT}/custom_id` }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['a value of the wrong form', [{ op: 'replace', path: '/intent', value: 'SELL' }], 400, 'INVALID_PARAMETER_VALUE', '/0/value'],
    ['a custom_id too long', [{ op: 'add', path: `${UNIT}/custom_id`, value: 'x'.repeat(128) }], 400, 'INVALID_STRING_MAX_LENGTH', '/0/value'],
    ['another payee', [{ op: 'replace', path: `${UNIT}/payee/email_address`, value: 'someone@example.com' }], 422, 'PAYEE_ACCOUNT_INVALID', '/0/value'],
    ['an empty patch', [], 400, 'INVALID_ARRAY_MIN_ITEMS', '/'],
  ];
  it.each(refusals)('refuses %s', async (_what, body, status, issue, field) => {
    const id = await newOrder();
    const result = await patch(id, body);
    expect(result.status, result.text).toBe(status);
    expect(result.body.details[0]).toMatchObject({ issue, field });
  });

  it.each([
    ['COMPLETED', 'ORDER_ALREADY_COMPLETED'],
    ['PAYER_ACTION_REQUIRED', 'NOT_PATCHABLE'],
  ])('refuses an order that is %s', async (status, issue) => {
    let id: string;
    if (status === 'COMPLETED') id = (await capturedOrder()).id;
    else {
      id = await newOrder();
      await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: { paypal: {} } } });
    }
    expect((await get(id)).body.status).toBe(status);
    const result = await patch(id, [{ op: 'add', path: `${UNIT}/custom_id`, value: 'late' }]);
    expect(result.status).toBe(422);
    expect(result.body.details[0].issue).toBe(issue);
  });

  it('patches an APPROVED order', async () => {
    const id = await newOrder();
    const approved = await approve(id);
    expect(approved.body.links).toContainEqual({ href: `${t.url}/v2/checkout/orders/${id}`, rel: 'update', method: 'PATCH' });
    expect((await patch(id, [{ op: 'add', path: `${UNIT}/custom_id`, value: 'approved-change' }])).status).toBe(204);
    expect((await get(id)).body.purchase_units[0].custom_id).toBe('approved-change');
  });

  it("is another merchant's 404", async () => {
    const id = await newOrder();
    const result = await patch(id, [{ op: 'add', path: `${UNIT}/custom_id`, value: 'x' }], {}, other.token);
    expect(result.status).toBe(404);
    expect((await get(id)).body.purchase_units[0].custom_id).toBeUndefined();
  });

  it('replays the same request id with 204 and refuses it with other content', async () => {
    const id = await newOrder();
    const key = randomUUID();
    const body = [{ op: 'add', path: `${UNIT}/custom_id`, value: 'once' }];
    expect((await patch(id, body, { 'service-request-id': key })).status).toBe(204);
    const replay = await patch(id, body, { 'service-request-id': key });
    expect(replay.status).toBe(204);
    const changed = await patch(id, [{ op: 'replace', path: `${UNIT}/custom_id`, value: 'twice' }], { 'service-request-id': key });
    expect(changed.status).toBe(422);
    expect(changed.body.details[0].issue).toBe('DUPLICATE_REQUEST_ID');
    expect((await get(id)).body.purchase_units[0].custom_id).toBe('once');
  });
});

describe('POST /v2/checkout/orders/{id}/confirm-payment-source', () => {
  it('approves with a card (200, minimal by default), emits CHECKOUT.ORDER.APPROVED, and the order can be captured', async () => {
    const id = await newOrder();
    const before = (await outbox(t)).length;
    const result = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: CARD } });
    expect(result.status, result.text).toBe(200);
    expect(Object.keys(result.body)).toEqual(['id', 'status', 'links']);
    expect(result.body.status).toBe('APPROVED');
    const events = (await outbox(t)).slice(before);
    expect(events.map((row) => [row.event_type, row.resource_id])).toEqual([['CHECKOUT.ORDER.APPROVED', id]]);
    const full = await get(id);
    expect(full.body.payment_source.card).toMatchObject({ last_digits: '1111', brand: 'VISA' });
    expect(full.body.payment_source.card.number).toBeUndefined();
    expect((await t.request('POST', `/v2/checkout/orders/${id}/capture`, { headers: FULL })).status).toBe(201);
  });

  it('waits for the payer with a wallet: PAYER_ACTION_REQUIRED with a payer-action link, no event', async () => {
    const id = await newOrder();
    const before = (await outbox(t)).length;
    const result = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, {
      body: { payment_source: { paypal: { email_address: 'payer@example.com' } } },
      headers: FULL,
    });
    expect(result.status, result.text).toBe(200);
    expect(result.body.status).toBe('PAYER_ACTION_REQUIRED');
    expect(result.body.links.map((l: { rel: string }) => l.rel)).toContain('payer-action');
    expect(result.body.links.map((l: { rel: string }) => l.rel)).not.toContain('update');
    expect(result.body.payment_source.paypal.email_address).toBe('payer@example.com');
    expect((await outbox(t)).length).toBe(before);
    // The payer then approves; the order is APPROVED with its event.
    expect((await approve(id)).body.status).toBe('APPROVED');
    expect((await outbox(t)).slice(before).map((row) => row.event_type)).toEqual(['CHECKOUT.ORDER.APPROVED']);
  });

  it.each([
    ['APPROVED', 'PAYMENT_ALREADY_APPROVED'],
    ['COMPLETED', 'ORDER_CANNOT_BE_CONFIRMED'],
  ])('refuses an order that is %s', async (status, issue) => {
    const id = status === 'COMPLETED' ? (await capturedOrder()).id : await newOrder();
    if (status === 'APPROVED') await approve(id);
    const result = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: CARD } });
    expect(result.status).toBe(422);
    expect(result.body.details[0].issue).toBe(issue);
  });

  it('refuses no payment source (400) and an expired card (422), leaving the order CREATED', async () => {
    const id = await newOrder();
    const missing = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details[0]).toMatchObject({ field: '/payment_source', issue: 'MISSING_REQUIRED_PARAMETER' });
    const expired = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, {
      body: { payment_source: { card: { number: '4111111111111111', expiry: '2001-01' } } },
    });
    expect(expired.status).toBe(422);
    expect(expired.body.details[0]).toMatchObject({ issue: 'CARD_EXPIRED', field: '/payment_source/card/expiry' });
    expect((await get(id)).body.status).toBe('CREATED');
  });

  it("is another merchant's 404, and a replay answers the same with one event", async () => {
    const id = await newOrder();
    const denied = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: CARD }, token: other.token });
    expect(denied.status).toBe(404);
    const key = randomUUID();
    const before = (await outbox(t)).length;
    const first = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: CARD }, headers: { 'service-request-id': key } });
    const again = await t.request('POST', `/v2/checkout/orders/${id}/confirm-payment-source`, { body: { payment_source: CARD }, headers: { 'service-request-id': key } });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await outbox(t)).length).toBe(before + 1);
  });
});

describe('shipment tracking', () => {
  const track = (id: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
    t.request('POST', `/v2/checkout/orders/${id}/track`, { body, headers, ...(token ? { token } : {}) });
  const patchTracker = (id: string, trackerId: string, body: unknown, token?: string) =>
    t.request('PATCH', `/v2/checkout/orders/${id}/trackers/${encodeURIComponent(trackerId)}`, { body, ...(token ? { token } : {}) });

  it('adds a tracker to a completed capture (201 with the order), shown under the unit shipping', async () => {
    const { id, captureId } = await capturedOrder();
    const result = await track(id, { capture_id: captureId, tracking_number: '443844607820', carrier: 'FEDEX', items: [{ sku: 'BOOT-1', quantity: '1' }] });
    expect(result.status, result.text).toBe(201);
    const tracker = result.body.purchase_units[0].shipping.trackers[0];
    expect(tracker).toMatchObject({ id: `${captureId}-443844607820`, status: 'SHIPPED', items: [{ sku: 'BOOT-1', quantity: '1' }] });
    expect(tracker.links).toEqual([
      { href: `${t.url}/v2/checkout/orders/${id}`, rel: 'up', method: 'GET' },
      { href: `${t.url}/v2/checkout/orders/${id}/trackers/${captureId}-443844607820`, rel: 'update', method: 'PATCH' },
    ]);
    expect((await get(id)).body.purchase_units[0].shipping.trackers).toEqual([tracker]);
  });

  it('replays the same request id with 200 and one tracker; a second add of the number is refused', async () => {
    const { id, captureId } = await capturedOrder();
    const key = randomUUID();
    const body = { capture_id: captureId, tracking_number: 'TRK1', carrier: 'UPS' };
    expect((await track(id, body, { 'service-request-id': key })).status).toBe(201);
    const replay = await track(id, body, { 'service-request-id': key });
    expect(replay.status).toBe(200);
    expect(replay.body.purchase_units[0].shipping.trackers).toHaveLength(1);
    const again = await track(id, body);
    expect(again.status).toBe(422);
    expect(again.body.details[0]).toMatchObject({ issue: 'TRACKER_ALREADY_EXISTS', field: '/tracking_number' });
  });

  const refusals: Array<[string, (captureId: string) => unknown, number, string, string | undefined]> = [
    ['no capture id', () => ({ tracking_number: 'T', carrier: 'UPS' }), 400, 'MISSING_REQUIRED_PARAMETER', '/capture_id'],
    ['no tracking number', (c) => ({ capture_id: c, carrier: 'UPS' }), 400, 'MISSING_REQUIRED_PARAMETER', '/tracking_number'],
    ['a carrier of the wrong form', (c) => ({ capture_id: c, tracking_number: 'T', carrier: 'ups ground' }), 400, 'INVALID_PARAMETER_SYNTAX', '/carrier'],
    ['OTHER without its name', (c) => ({ capture_id: c, tracking_number: 'T', carrier: 'OTHER' }), 400, 'MISSING_REQUIRED_PARAMETER', '/carrier_name_other'],
    ['a new CANCELLED tracker', (c) => ({ capture_id: c, tracking_number: 'T', carrier: 'UPS', status: 'CANCELLED' }), 400, 'INVALID_PARAMETER_VALUE', '/status'],
    ['a capture of another order', () => ({ capture_id: 'ABCDEF0123456789X', tracking_number: 'T', carrier: 'UPS' }), 422, 'CAPTURE_ID_NOT_FOUND', '/capture_id'],
    ['a shipment date that is not on the calendar', (c) => ({ capture_id: c, tracking_number: 'T', carrier: 'UPS', shipment_date: '2026-02-30' }), 400, 'INVALID_PARAMETER_SYNTAX', '/shipment_date'],
    ['an item sku the order does not have', (c) => ({ capture_id: c, tracking_number: 'T', carrier: 'UPS', items: [{ sku: 'HAT' }] }), 422, 'ITEM_SKU_MISMATCH', '/items/0/sku'],
  ];
  it.each(refusals)('refuses %s', async (_what, body, status, issue, field) => {
    const { id, captureId } = await capturedOrder();
    const result = await track(id, body(captureId));
    expect(result.status, result.text).toBe(status);
    expect(result.body.details[0]).toMatchObject({ issue, ...(field ? { field } : {}) });
    expect((await get(id)).body.purchase_units[0].shipping?.trackers).toBeUndefined();
  });

  it('keeps a shipment date that is on the calendar (29 February of a leap year)', async () => {
    const { id, captureId } = await capturedOrder();
    const result = await track(id, { capture_id: captureId, tracking_number: 'LEAP', carrier: 'UPS', shipment_date: '2028-02-29' });
    expect(result.status, result.text).toBe(201);
  });

  it('refuses a capture that is not COMPLETED', async () => {
    const { id, captureId } = await capturedOrder();
    const refunded = await t.request('POST', `/v2/payments/captures/${captureId}/refund`, { body: {}, headers: FULL });
    expect(refunded.body.status).toBe('COMPLETED');
    const result = await track(id, { capture_id: captureId, tracking_number: 'T', carrier: 'UPS' });
    expect(result.status).toBe(422);
    expect(result.body.details[0].issue).toBe('CAPTURE_STATUS_NOT_VALID');
  });

  it("is another merchant's 404", async () => {
    const { id, captureId } = await capturedOrder();
    expect((await track(id, { capture_id: captureId, tracking_number: 'T', carrier: 'UPS' }, {}, other.token)).status).toBe(404);
    expect((await track(id, { capture_id: captureId, tracking_number: 'T', carrier: 'UPS' })).status).toBe(201);
    const trackerId = `${captureId}-T`;
    const denied = await patchTracker(id, trackerId, [{ op: 'replace', path: '/status', value: 'CANCELLED' }], other.token);
    expect(denied.status).toBe(404);
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0].status).toBe('SHIPPED');
  });

  it('patches items and notify_payer, cancels, and then refuses further changes', async () => {
    const { id, captureId } = await capturedOrder();
    await track(id, { capture_id: captureId, tracking_number: 'PATCHME', carrier: 'DHL' });
    const trackerId = `${captureId}-PATCHME`;
    const items = await patchTracker(id, trackerId, [
      { op: 'replace', path: '/items', value: [{ sku: 'BOOT-1', name: 'Boot', quantity: '1' }] },
      { op: 'add', path: '/notify_payer', value: true },
    ]);
    expect(items.status, items.text).toBe(204);
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0].items).toEqual([{ sku: 'BOOT-1', name: 'Boot', quantity: '1' }]);
    const cancelled = await patchTracker(id, trackerId, [{ op: 'replace', path: '/status', value: 'CANCELLED' }]);
    expect(cancelled.status).toBe(204);
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0].status).toBe('CANCELLED');
    const after = await patchTracker(id, trackerId, [{ op: 'add', path: '/notify_payer', value: false }]);
    expect(after.status).toBe(422);
    expect(after.body.details[0].issue).toBe('NOT_PATCHABLE');
    // A cancelled tracking number can be added again.
    expect((await track(id, { capture_id: captureId, tracking_number: 'PATCHME', carrier: 'DHL' })).status).toBe(201);
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0].status).toBe('SHIPPED');
  });

  const patchRefusals: Array<[string, unknown, number, string, string]> = [
    ['a status other than CANCELLED', [{ op: 'replace', path: '/status', value: 'DELIVERED' }], 400, 'INVALID_PARAMETER_VALUE', '/0/value'],
    ['a path that cannot be patched', [{ op: 'replace', path: '/carrier', value: 'UPS' }], 422, 'NOT_PATCHABLE', '/0/path'],
    ['an operation the path does not allow', [{ op: 'remove', path: '/items' }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['no value', [{ op: 'replace', path: '/notify_payer' }], 422, 'PATCH_VALUE_REQUIRED', '/0/value'],
    ['a notify_payer that is not a boolean', [{ op: 'replace', path: '/notify_payer', value: 'yes' }], 400, 'INVALID_PARAMETER_SYNTAX', '/0/value'],
    ['an item sku the order does not have', [{ op: 'replace', path: '/items', value: [{ sku: 'HAT' }] }], 422, 'ITEM_SKU_MISMATCH', '/0/value/0/sku'],
  ];
  it.each(patchRefusals)('refuses a tracker patch with %s', async (_what, body, status, issue, field) => {
    const { id, captureId } = await capturedOrder();
    await track(id, { capture_id: captureId, tracking_number: 'R1', carrier: 'UPS' });
    const result = await patchTracker(id, `${captureId}-R1`, body);
    expect(result.status, result.text).toBe(status);
    expect(result.body.details[0]).toMatchObject({ issue, field });
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0]).toMatchObject({ status: 'SHIPPED' });
  });

  it('takes any tracking number: the tracker id is escaped in links and found again in the path', async () => {
    const { id, captureId } = await capturedOrder();
    const number = 'AB 12/ü?#';
    const added = await track(id, { capture_id: captureId, tracking_number: number, carrier: 'OTHER', carrier_name_other: 'Post' });
    expect(added.status, added.text).toBe(201);
    const tracker = added.body.purchase_units[0].shipping.trackers[0];
    expect(tracker.id).toBe(`${captureId}-${number}`);
    const update = tracker.links.find((l: { rel: string }) => l.rel === 'update').href as string;
    expect(update).toBe(`${t.url}/v2/checkout/orders/${id}/trackers/${encodeURIComponent(tracker.id)}`);
    const cancelled = await t.request('PATCH', update.slice(t.url.length), { body: [{ op: 'replace', path: '/status', value: 'CANCELLED' }] });
    expect(cancelled.status, cancelled.text).toBe(204);
    expect((await get(id)).body.purchase_units[0].shipping.trackers[0].status).toBe('CANCELLED');
  });

  it('answers 404 TRACKER_ID_NOT_FOUND for an unknown tracker', async () => {
    const { id } = await capturedOrder();
    const result = await patchTracker(id, 'NOPE-1', [{ op: 'replace', path: '/status', value: 'CANCELLED' }]);
    expect(result.status).toBe(404);
    expect(result.body.details[0]).toMatchObject({ issue: 'TRACKER_ID_NOT_FOUND', field: 'tracker_id', location: 'path' });
  });
});
