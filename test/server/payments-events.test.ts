// Outbox events of each state change, pending captures (identity verification), negative testing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { FULL, authorize, capture, createOrder, outbox, refund, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

const mock = (issue: string, header = 'service-mock-response') => ({ [header]: JSON.stringify({ mock_application_codes: issue }) });

describe('outbox', () => {
  it('writes one event per state change with the full envelope', async () => {
    const merchant = await t.createMerchant();
    const authId = await authorize(t, '80.00', 'USD', { token: merchant.token });
    const captured = await capture(t, authId, usd('30.00'), {}, merchant.token);
    const refunded = await refund(t, captured.body.id, usd('10.00'), {}, merchant.token);
    await t.request('POST', `/v2/payments/authorizations/${authId}/void`, { token: merchant.token });
    const rows = await outbox(t, merchant.payer_id);
    expect(rows.map((row) => [row.event_type, row.resource_type])).toEqual([
      ['CHECKOUT.ORDER.APPROVED', 'checkout-order'],
      ['PAYMENT.AUTHORIZATION.CREATED', 'authorization'],
      ['CHECKOUT.ORDER.COMPLETED', 'checkout-order'],
      ['PAYMENT.CAPTURE.COMPLETED', 'capture'],
      ['PAYMENT.CAPTURE.REFUNDED', 'refund'],
      ['PAYMENT.AUTHORIZATION.VOIDED', 'authorization'],
    ]);
    for (const row of rows) {
      const envelope = row.envelope;
      expect(Object.keys(envelope).sort()).toEqual(
        ['create_time', 'event_type', 'event_version', 'id', 'links', 'resource', 'resource_type', 'resource_version', 'summary'].sort(),
      );
      expect(envelope.id).toBe(row.id);
      expect(envelope.id).toMatch(/^WH-[A-Z0-9]{20}$/);
      expect(envelope.event_version).toBe('1.0');
      expect(envelope.resource_version).toBe('2.0');
      expect(envelope.summary.length).toBeGreaterThan(0);
      expect(envelope.summary.length).toBeLessThanOrEqual(500);
      expect(envelope.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'resend']);
      expect(envelope.resource.id).toBe(row.resource_id);
    }
    const byType = (type: string) => rows.find((row) => row.event_type === type)?.envelope;
    expect(byType('PAYMENT.CAPTURE.COMPLETED')?.resource).toMatchObject({ id: captured.body.id, status: 'COMPLETED', amount: { value: '30.00' } });
    expect(byType('PAYMENT.CAPTURE.COMPLETED')?.resource.seller_receivable_breakdown.net_amount.value).toBe('28.46');
    expect(byType('PAYMENT.CAPTURE.REFUNDED')?.resource).toMatchObject({ id: refunded.body.id, amount: { value: '10.00' } });
    expect(byType('PAYMENT.CAPTURE.REFUNDED')?.summary).toBe('A 10.00 USD refund was issued');
    expect(byType('PAYMENT.AUTHORIZATION.VOIDED')?.resource).toMatchObject({ id: authId, status: 'VOIDED' });
  });

  it('a refused request writes no event', async () => {
    const merchant = await t.createMerchant();
    const authId = await authorize(t, '10.00', 'USD', { token: merchant.token });
    const before = (await outbox(t, merchant.payer_id)).length;
    expect((await capture(t, authId, usd('50.00'), {}, merchant.token)).status).toBe(422);
    expect((await outbox(t, merchant.payer_id)).length).toBe(before);
  });
});

describe('captures pending identity verification', () => {
  let merchant: Merchant;
  beforeAll(async () => {
    merchant = await t.createMerchant();
    const kyc = await t.request('POST', '/_payctl/accounts/kyc', { token: merchant.token, body: { status: 'PENDING' } });
    expect(kyc.body).toEqual({ payer_id: merchant.payer_id, kyc_status: 'PENDING' });
  });

  it('are PENDING (VERIFICATION_REQUIRED) without a breakdown, then complete with fee, ledger and event', async () => {
    const authId = await authorize(t, '100.00', 'USD', { token: merchant.token });
    const held = await capture(t, authId, usd('40.00'), {}, merchant.token);
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ status: 'PENDING', status_details: { reason: 'VERIFICATION_REQUIRED' } });
    expect(held.body.seller_receivable_breakdown).toBeUndefined();
    expect(held.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'up']);
    const movementsBefore = await t.server.db.selectFrom('balance_movements').select('seq').where('reference_id', '=', held.body.id).execute();
    expect(movementsBefore).toHaveLength(0);

    const completed = await t.request('POST', `/_payctl/captures/${held.body.id}/complete`, { token: merchant.token });
    expect(completed.status).toBe(200);
    expect(completed.body.status).toBe('COMPLETED');
    expect(completed.body.status_details).toBeUndefined();
    expect(completed.body.seller_receivable_breakdown.paypal_fee.value).toBe('1.89');
    const movements = await t.server.db.selectFrom('balance_movements').select(['kind', 'amount_minor']).where('reference_id', '=', held.body.id).execute();
    expect(movements).toEqual([{ kind: 'CAPTURE', amount_minor: 3811n }]);
    const types = (await outbox(t, merchant.payer_id)).filter((row) => row.resource_id === held.body.id).map((row) => row.event_type);
    expect(types).toEqual(['PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.COMPLETED']);
  });

  it('a declined pending capture frees its amount on the authorization', async () => {
    const authId = await authorize(t, '100.00', 'USD', { token: merchant.token });
    const held = await capture(t, authId, usd('100.00'), {}, merchant.token);
    const declined = await t.request('POST', `/_payctl/captures/${held.body.id}/decline`, { token: merchant.token });
    expect(declined.body.status).toBe('DECLINED');
    const types = (await outbox(t, merchant.payer_id)).filter((row) => row.resource_id === held.body.id).map((row) => row.event_type);
    expect(types).toEqual(['PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.DECLINED']);
    const stored = await t.server.db.selectFrom('authorizations').select('captured_minor').where('id', '=', authId).executeTakeFirstOrThrow();
    expect(stored.captured_minor).toBe(0n);
  });

  it('order captures are held too; VERIFIED makes new captures complete', async () => {
    const order = await createOrder(t, 'CAPTURE', '12.00', 'USD', { token: merchant.token });
    const captured = await t.request('POST', `/v2/checkout/orders/${order.body.id}/capture`, { token: merchant.token, headers: FULL });
    expect(captured.body.purchase_units[0].payments.captures[0].status).toBe('PENDING');
    await t.request('POST', '/_payctl/accounts/kyc', { token: merchant.token, body: { status: 'VERIFIED' } });
    const authId = await authorize(t, '5.00', 'USD', { token: merchant.token });
    expect((await capture(t, authId, {}, {}, merchant.token)).body.status).toBe('COMPLETED');
    const invalid = await t.request('POST', '/_payctl/accounts/kyc', { token: merchant.token, body: { status: 'MAYBE' } });
    expect(invalid.status).toBe(400);
  });
});

describe('negative testing header', () => {
  it('INSTRUMENT_DECLINED on capture records a DECLINED capture that takes nothing', async () => {
    const authId = await authorize(t, '10.00');
    const before = (await outbox(t)).length;
    const declined = await capture(t, authId, {}, mock('INSTRUMENT_DECLINED'));
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('DECLINED');
    expect(declined.body.seller_receivable_breakdown).toBeUndefined();
    const events = (await outbox(t)).slice(before).map((row) => row.event_type);
    expect(events).toEqual(['PAYMENT.CAPTURE.DECLINED']);
    const auth = (await t.request('GET', `/v2/payments/authorizations/${authId}`)).body;
    expect(auth.status).toBe('CREATED');
    expect((await capture(t, authId, {})).body.status).toBe('COMPLETED');
  });

  const cases: Array<[string, string, string, unknown, number, string]> = [
    ['capture', 'POST', 'capture', {}, 422, 'PAYER_CANNOT_PAY'],
    ['void', 'POST', 'void', undefined, 422, 'PREVIOUSLY_CAPTURED'],
    ['authorization get', 'GET', '', undefined, 404, 'INVALID_RESOURCE_ID'],
    ['capture', 'POST', 'capture', {}, 403, 'PERMISSION_DENIED'],
    ['capture', 'POST', 'capture', {}, 409, 'PREVIOUS_REQUEST_IN_PROGRESS'],
  ];
  it.each(cases)('%s answers the simulated %s %s', async (_name, method, action, body, status, issue) => {
    const authId = await authorize(t, '10.00');
    const path = `/v2/payments/authorizations/${authId}${action ? `/${action}` : ''}`;
    const result = await t.request(method, path, { headers: mock(issue), ...(body !== undefined ? { body } : {}) });
    expect(result.status).toBe(status);
    expect(result.body.details[0].issue).toBe(issue);
    expect((await t.request('GET', `/v2/payments/authorizations/${authId}`)).body.status).toBe('CREATED');
  });

  it('works on refunds, orders, with the PayPal- alias, and as a 500 without details', async () => {
    const authId = await authorize(t, '10.00');
    const captured = await capture(t, authId, {});
    const refused = await refund(t, captured.body.id, {}, mock('REFUND_NOT_ALLOWED', 'paypal-mock-response'));
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('REFUND_NOT_ALLOWED');
    const order = await t.request('POST', '/v2/checkout/orders', {
      body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '1.00' } }] },
      headers: mock('DUPLICATE_INVOICE_ID'),
    });
    expect(order.body.details[0].issue).toBe('DUPLICATE_INVOICE_ID');
    const broken = await t.request('GET', `/v2/payments/captures/${captured.body.id}`, { headers: mock('INTERNAL_SERVER_ERROR') });
    expect(broken.status).toBe(500);
    expect(broken.body.name).toBe('INTERNAL_SERVER_ERROR');
    expect(broken.body.details).toBeUndefined();
    const garbled = await t.request('GET', `/v2/payments/captures/${captured.body.id}`, { headers: { 'service-mock-response': 'nope' } });
    expect(garbled.status).toBe(400);
    expect(garbled.body.details[0]).toMatchObject({ issue: 'INVALID_PARAMETER_SYNTAX', location: 'header' });
  });

  it('PENDING_REVIEW on order authorize holds the authorization for review', async () => {
    const authId = await authorize(t, '10.00', 'USD', { headers: mock('PENDING_REVIEW') });
    const auth = (await t.request('GET', `/v2/payments/authorizations/${authId}`)).body;
    expect(auth).toMatchObject({ status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' } });
    const approved = await t.request('POST', `/_payctl/authorizations/${authId}/review`, { body: { decision: 'APPROVE' } });
    expect(approved.body.status).toBe('CREATED');
    const again = await t.request('POST', `/_payctl/authorizations/${authId}/review`, { body: { decision: 'DENY' } });
    expect(again.body.details[0].issue).toBe('AUTHORIZATION_NOT_PENDING');
  });
});
