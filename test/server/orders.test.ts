// Checkout orders: creation rules, approval, authorize and capture, every status x operation.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, createOrder, refund } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

const m = (value: string, currency_code = 'USD') => ({ currency_code, value });
const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.request('POST', path, { headers: { ...FULL, ...headers }, ...(body !== undefined ? { body } : {}) });

function order(intent: 'AUTHORIZE' | 'CAPTURE', units: unknown[]) {
  return post('/v2/checkout/orders', { intent, purchase_units: units });
}

describe('create', () => {
  it('answers 201 minimal by default, with self, approve, update and action links', async () => {
    const created = await t.request('POST', '/v2/checkout/orders', {
      body: { intent: 'AUTHORIZE', purchase_units: [{ amount: m('10.00') }] },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['id', 'status', 'links']);
    expect(created.body.id).toMatch(/^[A-Z0-9]{17}$/);
    expect(created.body.status).toBe('CREATED');
    expect(created.body.links).toEqual([
      { href: `${t.url}/v2/checkout/orders/${created.body.id}`, rel: 'self', method: 'GET' },
      { href: `${t.url}/checkoutnow?token=${created.body.id}`, rel: 'approve', method: 'GET' },
      { href: `${t.url}/v2/checkout/orders/${created.body.id}`, rel: 'update', method: 'PATCH' },
      { href: `${t.url}/v2/checkout/orders/${created.body.id}/authorize`, rel: 'authorize', method: 'POST' },
    ]);
  });

  it('keeps a full breakdown with items, taxes and discounts, amounts normalised', async () => {
    const created = await order('CAPTURE', [
      {
        reference_id: 'shoes',
        amount: {
          ...m('23.5'),
          breakdown: { item_total: m('20.00'), tax_total: m('2.00'), shipping: m('3.00'), gratuity: m('0.50'), discount: m('2.00') },
        },
        items: [
          { name: 'Sock', quantity: '2', unit_amount: m('5.00'), tax: m('0.50') },
          { name: 'Lace', quantity: '1', unit_amount: m('10'), tax: m('1.00') },
        ],
        invoice_id: 'ORD-INV-1',
        custom_id: 'cust-1',
        soft_descriptor: 'SHOES',
        description: 'Shoes',
      },
    ]);
    expect(created.status, created.text).toBe(201);
    const unit = created.body.purchase_units[0];
    expect(unit.amount.value).toBe('23.50');
    expect(unit.amount.breakdown.item_total).toEqual(m('20.00'));
    expect(unit.items[1].unit_amount).toEqual(m('10.00'));
    expect(unit.payee).toEqual({ email_address: t.merchant.email, merchant_id: t.merchant.payer_id });
    expect(unit).toMatchObject({ reference_id: 'shoes', invoice_id: 'ORD-INV-1', custom_id: 'cust-1', soft_descriptor: 'SHOES' });
  });

  const item = (quantity: string, value: string, tax?: string) => ({ name: 'Thing', quantity, unit_amount: m(value), ...(tax ? { tax: m(tax) } : {}) });
  const refusals: Array<[string, string, unknown[], number, string, string?]> = [
    ['amount not matching its breakdown', 'CAPTURE', [{ amount: { ...m('10.00'), breakdown: { item_total: m('9.00') } } }], 422, 'AMOUNT_MISMATCH', '/purchase_units/0/amount/value'],
    ['items without item_total', 'CAPTURE', [{ amount: m('10.00'), items: [item('1', '10.00')] }], 422, 'ITEM_TOTAL_REQUIRED'],
    ['item_total not matching items', 'CAPTURE', [{ amount: { ...m('10.00'), breakdown: { item_total: m('10.00') } }, items: [item('3', '3.00')] }], 422, 'ITEM_TOTAL_MISMATCH'],
    ['item taxes without tax_total', 'CAPTURE', [{ amount: { ...m('10.00'), breakdown: { item_total: m('10.00') } }, items: [item('1', '10.00', '1.00')] }], 422, 'TAX_TOTAL_REQUIRED'],
    [
      'tax_total not matching item taxes',
      'CAPTURE',
      [{ amount: { ...m('11.00'), breakdown: { item_total: m('10.00'), tax_total: m('1.00') } }, items: [item('2', '5.00', '1.00')] }],
      422,
      'TAX_TOTAL_MISMATCH',
    ],
    ['units in two currencies', 'CAPTURE', [{ reference_id: 'a', amount: m('1.00') }, { reference_id: 'b', amount: m('1.00', 'EUR') }], 422, 'MULTI_CURRENCY_ORDER'],
    ['several units without reference_id', 'CAPTURE', [{ amount: m('1.00') }, { reference_id: 'b', amount: m('1.00') }], 422, 'REFERENCE_ID_REQUIRED'],
    ['duplicate reference_id', 'CAPTURE', [{ reference_id: 'a', amount: m('1.00') }, { reference_id: 'a', amount: m('1.00') }], 422, 'DUPLICATE_REFERENCE_ID'],
    ['AUTHORIZE with two units', 'AUTHORIZE', [{ reference_id: 'a', amount: m('1.00') }, { reference_id: 'b', amount: m('1.00') }], 422, 'UNSUPPORTED_INTENT'],
    ['a zero amount', 'CAPTURE', [{ amount: m('0.00') }], 422, 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['a negative discount', 'CAPTURE', [{ amount: { ...m('1.00'), breakdown: { item_total: m('2.00'), discount: m('-1.00') } } }], 422, 'CANNOT_BE_NEGATIVE'],
    ['16 integer digits', 'CAPTURE', [{ amount: m('1000000000000000') }], 422, 'MAX_VALUE_EXCEEDED'],
    ['JPY with decimals', 'CAPTURE', [{ amount: m('1.50', 'JPY') }], 422, 'DECIMALS_NOT_SUPPORTED'],
    ['an unknown currency', 'CAPTURE', [{ amount: m('1.00', 'XYZ') }], 422, 'INVALID_CURRENCY_CODE', '/purchase_units/0/amount/currency_code'],
    ['no purchase unit', 'CAPTURE', [], 400, 'INVALID_ARRAY_MIN_ITEMS', '/purchase_units'],
    ['a quantity of 0', 'CAPTURE', [{ amount: { ...m('1.00'), breakdown: { item_total: m('1.00') } }, items: [item('0', '1.00')] }], 400, 'INVALID_PARAMETER_SYNTAX'],
    ['a soft_descriptor of 23', 'CAPTURE', [{ amount: m('1.00'), soft_descriptor: 'x'.repeat(23) }], 400, 'INVALID_STRING_MAX_LENGTH'],
  ];
  it.each(refusals)('refuses %s', async (_name, intent, units, status, issue, field) => {
    const result = await order(intent as 'CAPTURE', units);
    expect(result.status, result.text).toBe(status);
    expect(result.body.details[0].issue).toBe(issue);
    if (field) expect(result.body.details[0].field).toBe(field);
  });

  it('refuses a missing intent, malformed JSON, and a payment_source without a request id', async () => {
    const missing = await post('/v2/checkout/orders', { purchase_units: [{ amount: m('1.00') }] });
    expect(missing.body.details[0]).toMatchObject({ issue: 'MISSING_REQUIRED_PARAMETER', field: '/intent', location: 'body' });
    const malformed = await t.request('POST', '/v2/checkout/orders', { raw: '{"intent":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details[0].issue).toBe('MALFORMED_REQUEST_JSON');
    const noId = await post('/v2/checkout/orders', {
      intent: 'CAPTURE',
      purchase_units: [{ amount: m('1.00') }],
      payment_source: { card: { number: '4111111111111111', expiry: '2030-01' } },
    });
    expect(noId.status).toBe(400);
    expect(noId.body.details[0].issue).toBe('PAYPAL_REQUEST_ID_REQUIRED');
  });

  it('replays a create with the same request id (200, same order)', async () => {
    const key = randomUUID();
    const body = { intent: 'CAPTURE', purchase_units: [{ amount: m('3.00') }] };
    const first = await post('/v2/checkout/orders', body, { 'service-request-id': key });
    const second = await post('/v2/checkout/orders', body, { 'service-request-id': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
  });
});

describe('approval', () => {
  it('a card order is approved at once, never stores the card number', async () => {
    const created = await createOrder(t, 'CAPTURE', '5.00');
    expect(created.body.status).toBe('APPROVED');
    expect(created.body.payment_source.card).toEqual({ last_digits: '1111', brand: 'VISA', type: 'CREDIT', expiry: '2030-12' });
    const row = await t.server.db.selectFrom('orders').select('details').where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.details).not.toContain('4111111111111111');
  });

  it('a wallet order needs payer action; the approve page approves it', async () => {
    const created = await post(
      '/v2/checkout/orders',
      { intent: 'CAPTURE', purchase_units: [{ amount: m('7.00') }], payment_source: { paypal: {} } },
      { 'service-request-id': randomUUID() },
    );
    expect(created.body.status).toBe('PAYER_ACTION_REQUIRED');
    const payerAction = created.body.links.find((link: { rel: string }) => link.rel === 'payer-action');
    const page = await fetch(payerAction.href);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('7.00 USD');
    const approved = await fetch(`${t.url}/checkoutnow`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${created.body.id}`,
    });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('approved');
    const got = await t.request('GET', `/v2/checkout/orders/${created.body.id}`);
    expect(got.body.status).toBe('APPROVED');
    expect((await fetch(`${t.url}/checkoutnow?token=NOPE`)).status).toBe(404);
  });

  it('a card given at authorize approves the order', async () => {
    const created = await order('AUTHORIZE', [{ amount: m('9.00') }]);
    const authorized = await post(`/v2/checkout/orders/${created.body.id}/authorize`, {
      payment_source: { card: { number: '5555555555554444', expiry: '2031-01' } },
    });
    expect(authorized.status).toBe(201);
    expect(authorized.body.payment_source.card.brand).toBe('MASTERCARD');
    expect(authorized.body.purchase_units[0].payments.authorizations[0].status).toBe('CREATED');
  });
});

describe('order status x operation', () => {
  type Intent = 'AUTHORIZE' | 'CAPTURE';
  async function orderIn(status: string, intent: Intent): Promise<string> {
    const created = await order(intent, [{ amount: m('10.00') }]);
    const id = created.body.id as string;
    if (status === 'CREATED') return id;
    expect((await post(`/_payctl/orders/${id}/approve`)).status).toBe(200);
    if (status === 'APPROVED') return id;
    expect((await post(`/v2/checkout/orders/${id}/${intent === 'AUTHORIZE' ? 'authorize' : 'capture'}`)).status).toBe(201);
    return id;
  }
  const table: Array<[string, Intent, Record<'approve' | 'authorize' | 'capture', number | string>]> = [
    ['CREATED', 'AUTHORIZE', { approve: 200, authorize: 'ORDER_NOT_APPROVED', capture: 'ACTION_DOES_NOT_MATCH_INTENT' }],
    ['APPROVED', 'AUTHORIZE', { approve: 200, authorize: 201, capture: 'ACTION_DOES_NOT_MATCH_INTENT' }],
    ['COMPLETED', 'AUTHORIZE', { approve: 'ORDER_COMPLETED_OR_VOIDED', authorize: 'ORDER_ALREADY_AUTHORIZED', capture: 'ACTION_DOES_NOT_MATCH_INTENT' }],
    ['CREATED', 'CAPTURE', { approve: 200, authorize: 'ACTION_DOES_NOT_MATCH_INTENT', capture: 'ORDER_NOT_APPROVED' }],
    ['APPROVED', 'CAPTURE', { approve: 200, authorize: 'ACTION_DOES_NOT_MATCH_INTENT', capture: 201 }],
    ['COMPLETED', 'CAPTURE', { approve: 'ORDER_COMPLETED_OR_VOIDED', authorize: 'ACTION_DOES_NOT_MATCH_INTENT', capture: 'ORDER_ALREADY_CAPTURED' }],
  ];
  const cases = table.flatMap(([status, intent, row]) =>
    (Object.keys(row) as Array<keyof typeof row>).map((operation) => ({ status, intent, operation, expected: row[operation] })),
  );
  it.each(cases)('$intent order $status: $operation', async ({ status, intent, operation, expected }) => {
    const id = await orderIn(status, intent);
    const path = operation === 'approve' ? `/_payctl/orders/${id}/approve` : `/v2/checkout/orders/${id}/${operation}`;
    const before = (await t.request('GET', `/v2/checkout/orders/${id}`)).body;
    const result = await post(path);
    if (typeof expected === 'number') {
      expect(result.status, result.text).toBe(expected);
      const after = (await t.request('GET', `/v2/checkout/orders/${id}`)).body;
      expect(after.status).toBe(operation === 'approve' ? 'APPROVED' : 'COMPLETED');
    } else {
      expect(result.status).toBe(422);
      expect(result.body.details[0].issue).toBe(expected);
      expect((await t.request('GET', `/v2/checkout/orders/${id}`)).body).toEqual(before);
    }
  });
});

describe('capture and the order view', () => {
  it('captures every purchase unit and shows captures and refunds under their unit', async () => {
    const created = await order('CAPTURE', [
      { reference_id: 'a', amount: m('10.00') },
      { reference_id: 'b', amount: m('2.50') },
    ]);
    await post(`/_payctl/orders/${created.body.id}/approve`);
    const key = randomUUID();
    const captured = await post(`/v2/checkout/orders/${created.body.id}/capture`, {}, { 'service-request-id': key });
    expect(captured.status).toBe(201);
    const [a, b] = captured.body.purchase_units;
    expect(a.payments.captures[0]).toMatchObject({ status: 'COMPLETED', amount: m('10.00'), final_capture: true });
    expect(b.payments.captures[0].amount).toEqual(m('2.50'));
    expect(a.payments.captures[0].links.at(-1)).toEqual({ href: `${t.url}/v2/checkout/orders/${created.body.id}`, rel: 'up', method: 'GET' });
    const replay = await post(`/v2/checkout/orders/${created.body.id}/capture`, {}, { 'service-request-id': key });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(captured.body);
    await refund(t, b.payments.captures[0].id, { amount: m('1.00') });
    const view = (await t.request('GET', `/v2/checkout/orders/${created.body.id}`)).body;
    expect(view.purchase_units[1].payments.refunds[0].amount).toEqual(m('1.00'));
    expect(view.purchase_units[0].payments.refunds).toBeUndefined();
    expect(view.links.map((link: { rel: string }) => link.rel)).toEqual(['self']);
  });

  it('refuses an order invoice_id already captured', async () => {
    const first = await createOrder(t, 'CAPTURE', '1.00', 'USD', { invoiceId: 'ORDER-INV-DUP' });
    expect((await post(`/v2/checkout/orders/${first.body.id}/capture`)).status).toBe(201);
    const second = await createOrder(t, 'CAPTURE', '1.00', 'USD', { invoiceId: 'ORDER-INV-DUP' });
    const refused = await post(`/v2/checkout/orders/${second.body.id}/capture`);
    expect(refused.body.details[0].issue).toBe('DUPLICATE_INVOICE_ID');
    expect((await t.request('GET', `/v2/checkout/orders/${second.body.id}`)).body.status).toBe('APPROVED');
  });

  it('unknown orders are RESOURCE_NOT_FOUND; malformed ids are INVALID_REQUEST', async () => {
    const missing = await t.request('GET', '/v2/checkout/orders/NOSUCHORDER1');
    expect(missing.status).toBe(404);
    const malformed = await t.request('GET', '/v2/checkout/orders/bad-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details[0]).toMatchObject({ location: 'path', field: '/id' });
  });
});

describe('processor_response of card payments (spec 2.3: direct card transactions)', () => {
  const card = (extra: Record<string, unknown> = {}) => ({ card: { number: '4111111111111111', expiry: '2030-12', ...extra } });
  const orderWith = (intent: 'AUTHORIZE' | 'CAPTURE', source: unknown, value = '20.00') =>
    post('/v2/checkout/orders', { intent, purchase_units: [{ amount: m(value) }], payment_source: source }, { 'service-request-id': randomUUID() });

  it('an order captured by card: the capture carries the card checks and the approval code', async () => {
    const created = await orderWith('CAPTURE', card({ security_code: '123', billing_address: { country_code: 'US', postal_code: '95131' } }));
    const captured = await post(`/v2/checkout/orders/${created.body.id}/capture`);
    const captureId = captured.body.purchase_units[0].payments.captures[0].id;
    expect(captured.body.purchase_units[0].payments.captures[0].processor_response).toEqual({ avs_code: 'Y', cvv_code: 'M', response_code: '0000' });
    const read = await t.request('GET', `/v2/payments/captures/${captureId}`);
    expect(read.body.processor_response).toEqual({ avs_code: 'Y', cvv_code: 'M', response_code: '0000' });
  });

  it('captures of an authorization paid by card carry it; a simulated decline carries the decline code', async () => {
    const created = await orderWith('AUTHORIZE', card());
    const authorized = await post(`/v2/checkout/orders/${created.body.id}/authorize`);
    const authId = authorized.body.purchase_units[0].payments.authorizations[0].id;
    const declined = await post(`/v2/payments/authorizations/${authId}/capture`, { amount: m('5.00') }, {
      'service-mock-response': '{"mock_application_codes":"INSTRUMENT_DECLINED"}',
    });
    expect(declined.body).toMatchObject({ status: 'DECLINED', processor_response: { avs_code: 'U', cvv_code: 'P', response_code: '0500' } });
    const approved = await post(`/v2/payments/authorizations/${authId}/capture`, { amount: m('5.00') });
    expect(approved.body).toMatchObject({ status: 'COMPLETED', processor_response: { avs_code: 'U', cvv_code: 'P', response_code: '0000' } });
  });

  it('a PayPal-wallet payment has no processor_response (positive control: the card one above has)', async () => {
    const created = await order('CAPTURE', [{ amount: m('3.00') }]);
    await post(`/_payctl/orders/${created.body.id}/approve`);
    const captured = await post(`/v2/checkout/orders/${created.body.id}/capture`);
    expect(captured.body.purchase_units[0].payments.captures[0].status).toBe('COMPLETED');
    expect(captured.body.purchase_units[0].payments.captures[0].processor_response).toBeUndefined();
  });
});
