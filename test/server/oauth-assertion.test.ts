// Acting for another merchant with Service-Auth-Assertion: consent, the caller as issuer, alg none.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const assertion = (header: unknown, payload: unknown) => `${b64url(header)}.${b64url(payload)}.`;

describe('acting for a merchant with Service-Auth-Assertion', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  it('needs consent, the caller as issuer, and alg none', async () => {
    const platform = await t.createMerchant('platform@example.com');
    const seller = await t.createMerchant('seller@example.com');
    const good = assertion({ alg: 'none' }, { iss: platform.client_id, payer_id: seller.payer_id });

    const withoutConsent = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': good } });
    expect(withoutConsent.status).toBe(403);
    expect(withoutConsent.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [{ issue: 'PERMISSION_DENIED', location: 'header' }] });

    const consent = await t.request('POST', '/_payctl/consents', {
      token: t.adminKey,
      body: { platform_client_id: platform.client_id, payer_id: seller.payer_id },
    });
    expect(consent.status).toBe(201);

    const acting = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': good } });
    expect(acting.status).toBe(200);
    expect(acting.body.payer_id).toBe(seller.payer_id);
    const alias = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'PayPal-Auth-Assertion': good } });
    expect(alias.body.payer_id).toBe(seller.payer_id);
    // Without the header the platform acts for itself.
    expect((await t.request('GET', '/_payctl/whoami', { token: platform.token })).body.payer_id).toBe(platform.payer_id);

    const signed = assertion({ alg: 'HS256' }, { iss: platform.client_id, payer_id: seller.payer_id });
    const wrongAlg = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': signed } });
    expect(wrongAlg.status).toBe(400);
    expect(wrongAlg.body.details[0].issue).toBe('INVALID_PARAMETER_SYNTAX');

    const otherIssuer = assertion({ alg: 'none' }, { iss: seller.client_id, payer_id: seller.payer_id });
    const mismatch = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': otherIssuer } });
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.name).toBe('AUTHENTICATION_FAILURE');

    for (const malformed of ['not-a-jwt', 'a.b.c', `${b64url({ alg: 'none' })}.!!!.`]) {
      const result = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': malformed } });
      expect(result.status).toBe(400);
    }
    // The seller's own token cannot be used to act for the platform without consent the other way.
    const reverse = assertion({ alg: 'none' }, { iss: seller.client_id, payer_id: platform.payer_id });
    expect((await t.request('GET', '/_payctl/whoami', { token: seller.token, headers: { 'Service-Auth-Assertion': reverse } })).status).toBe(403);
  });

  it("acts with the merchant's account, not the caller's: the order's payee, the identity hold, the fault rules", async () => {
    const platform = await t.createMerchant('facts-platform@example.com');
    const seller = await t.createMerchant('facts-seller@example.com');
    expect((await t.request('POST', '/_payctl/consents', { token: t.adminKey, body: { platform_client_id: platform.client_id, payer_id: seller.payer_id } })).status).toBe(201);
    const acting = { 'Service-Auth-Assertion': assertion({ alg: 'none' }, { iss: platform.client_id, payer_id: seller.payer_id }), prefer: 'return=representation' };
    // The platform's own token is read first: VERIFIED, no fault rules, its own e-mail.
    expect((await t.request('GET', '/_payctl/whoami', { token: platform.token })).status).toBe(200);
    expect((await t.request('POST', '/_payctl/accounts/kyc', { token: seller.token, body: { status: 'PENDING' } })).status).toBe(200);
    const order = await t.request('POST', '/v2/checkout/orders', {
      token: platform.token,
      headers: { ...acting, 'service-request-id': randomUUID() },
      body: { intent: 'AUTHORIZE', purchase_units: [{ amount: { currency_code: 'USD', value: '10.00' } }], payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } } },
    });
    expect(order.status).toBe(201);
    expect(order.body.purchase_units[0].payee).toEqual({ email_address: 'facts-seller@example.com', merchant_id: seller.payer_id });
    const authorized = await t.request('POST', `/v2/checkout/orders/${order.body.id}/authorize`, { token: platform.token, headers: acting });
    expect(authorized.status).toBe(201);
    const authId = authorized.body.purchase_units[0].payments.authorizations[0].id as string;
    const held = await t.request('POST', `/v2/payments/authorizations/${authId}/capture`, { token: platform.token, headers: acting, body: {} });
    expect(held.body.status).toBe('PENDING');
    // A rule of the seller's applies to the platform's calls for it (the platform has none).
    const rule = { method: 'GET', path: '/v2/payments/captures/*', respond: { status: 503 } };
    expect((await t.request('POST', '/_payctl/faults', { token: seller.token, body: rule })).status).toBe(201);
    expect((await t.request('GET', `/v2/payments/captures/${held.body.id}`, { token: platform.token, headers: acting })).status).toBe(503);
    // Positive control: the platform acting for itself is neither held nor faulted.
    expect((await t.request('GET', `/v2/payments/captures/${held.body.id}`, { token: platform.token })).status).toBe(404);
  });
});
