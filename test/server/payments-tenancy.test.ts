// Tenancy: another merchant can neither see nor act on a merchant's orders and payments; a platform
// with consent acts for the merchant through Service-Auth-Assertion.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { FULL, authorize, capture, refund, usd } from './payments-helpers.js';

let t: TestServer;
let other: Merchant;
let authId: string;
let captureId: string;
let refundId: string;
let orderId: string;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant();
  authId = await authorize(t, '100.00');
  const captured = await capture(t, authId, usd('40.00'));
  captureId = captured.body.id;
  refundId = (await refund(t, captureId, usd('1.00'))).body.id;
  orderId = (await t.request('GET', `/v2/payments/authorizations/${authId}`)).body.supplementary_data.related_ids.order_id;
});
afterAll(async () => {
  await t.close();
});

function assertion(iss: string, payerId: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ iss, payer_id: payerId })}.`;
}

describe('another merchant', () => {
  const reads = () => [
    `/v2/payments/authorizations/${authId}`,
    `/v2/payments/captures/${captureId}`,
    `/v2/payments/refunds/${refundId}`,
    `/v2/checkout/orders/${orderId}`,
  ];
  it('gets RESOURCE_NOT_FOUND for every read and learns nothing', async () => {
    for (const path of reads()) {
      const result = await t.request('GET', path, { token: other.token });
      expect(result.status).toBe(404);
      expect(result.body.name).toBe('RESOURCE_NOT_FOUND');
      expect(result.body.details[0].issue).toBe('INVALID_RESOURCE_ID');
      expect(result.text).not.toContain('100.00');
    }
  });

  it('cannot capture, void, reauthorize, refund, authorize, capture orders or settle captures', async () => {
    const attempts: Array<[string, unknown]> = [
      [`/v2/payments/authorizations/${authId}/capture`, usd('1.00')],
      [`/v2/payments/authorizations/${authId}/void`, undefined],
      [`/v2/payments/authorizations/${authId}/reauthorize`, usd('1.00')],
      [`/v2/payments/captures/${captureId}/refund`, {}],
      [`/v2/checkout/orders/${orderId}/authorize`, {}],
      [`/v2/checkout/orders/${orderId}/capture`, {}],
      [`/_payctl/orders/${orderId}/approve`, {}],
      [`/_payctl/captures/${captureId}/complete`, {}],
      [`/_payctl/authorizations/${authId}/review`, { decision: 'DENY' }],
    ];
    for (const [path, body] of attempts) {
      const result = await t.request('POST', path, { token: other.token, headers: FULL, ...(body !== undefined ? { body } : {}) });
      expect(result.status, path).toBe(404);
      expect(result.body.name).toBe('RESOURCE_NOT_FOUND');
    }
    const auth = (await t.request('GET', `/v2/payments/authorizations/${authId}`)).body;
    expect(auth.status).toBe('PARTIALLY_CAPTURED');
    const captureNow = (await t.request('GET', `/v2/payments/captures/${captureId}`)).body;
    expect(captureNow.status).toBe('PARTIALLY_REFUNDED');
    const otherEvents = await t.server.db.selectFrom('events').select('id').where('account_id', '=', other.payer_id).execute();
    expect(otherEvents).toHaveLength(0);
  });

  it('cannot name the merchant as payee of its own order', async () => {
    const result = await t.request('POST', '/v2/checkout/orders', {
      token: other.token,
      body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '1.00' }, payee: { merchant_id: t.merchant.payer_id } }] },
    });
    expect(result.status).toBe(422);
    expect(result.body.details[0].issue).toBe('PAYEE_ACCOUNT_INVALID');
  });

  it('acting for the merchant without consent is NOT_AUTHORIZED / PERMISSION_DENIED', async () => {
    const result = await t.request('POST', `/v2/payments/authorizations/${authId}/capture`, {
      token: other.token,
      body: usd('1.00'),
      headers: { 'service-auth-assertion': assertion(other.client_id, t.merchant.payer_id) },
    });
    expect(result.status).toBe(403);
    expect(result.body.name).toBe('NOT_AUTHORIZED');
    expect(result.body.details[0].issue).toBe('PERMISSION_DENIED');
  });

  it('with consent, the platform acts for the merchant', async () => {
    const consent = await t.request('POST', '/_payctl/consents', {
      token: t.adminKey,
      body: { platform_client_id: other.client_id, payer_id: t.merchant.payer_id },
    });
    expect(consent.status).toBe(201);
    const headers = { 'service-auth-assertion': assertion(other.client_id, t.merchant.payer_id), ...FULL };
    const captured = await t.request('POST', `/v2/payments/authorizations/${authId}/capture`, { token: other.token, body: usd('1.00'), headers });
    expect(captured.status).toBe(200);
    expect(captured.body.payee.merchant_id).toBe(t.merchant.payer_id);
    const refunded = await t.request('POST', `/v2/payments/captures/${captured.body.id}/refund`, { token: other.token, body: {}, headers });
    expect(refunded.status).toBe(200);
    const events = await t.server.db.selectFrom('events').select('account_id').where('resource_id', '=', captured.body.id).execute();
    expect(events.map((event) => event.account_id)).toEqual([t.merchant.payer_id]);
  });
});

describe('reset', () => {
  it("POST /_payctl/reset deletes the caller's orders and payments and nothing of other merchants", async () => {
    const mine = await t.createMerchant();
    const theirs = await t.createMerchant();
    const myAuth = await authorize(t, '10.00', 'USD', { token: mine.token });
    const theirAuth = await authorize(t, '10.00', 'USD', { token: theirs.token });
    const reset = await t.request('POST', '/_payctl/reset', { token: mine.token });
    expect(reset.status).toBe(200);
    expect((await t.request('GET', `/v2/payments/authorizations/${myAuth}`, { token: mine.token })).status).toBe(404);
    const left = await t.server.db.selectFrom('orders').select('id').where('account_id', '=', mine.payer_id).execute();
    expect(left).toHaveLength(0);
    expect((await t.request('GET', `/v2/payments/authorizations/${theirAuth}`, { token: theirs.token })).body.status).toBe('CREATED');
  });
});
