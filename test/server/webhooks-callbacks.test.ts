// The spec's six callbacks end to end: the real payments calls, a real receiver on 127.0.0.1, the
// receiver path, a valid signature, and verify saying SUCCESS (and FAILURE after one changed byte).

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { emitEvent, startReceiver, subscribe, verificationRequest, type ReceivedRequest, type Receiver } from './webhooks-support.js';

let t: TestServer;
let receiver: Receiver;
let webhookId: string;
/** Subscribed, never emitted by the calls under test: the marker events of `delivered`. */
const MARKER = 'PAYMENT.CAPTURE.REVERSED';

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  receiver = await startReceiver();
  webhookId = await subscribe(t, `${receiver.url}/callbacks`, [
    'PAYMENT.CAPTURE.COMPLETED',
    'PAYMENT.CAPTURE.DECLINED',
    'PAYMENT.CAPTURE.PENDING',
    'PAYMENT.AUTHORIZATION.VOIDED',
    'PAYMENT.CAPTURE.REFUNDED',
    MARKER,
  ]);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

const FULL = { prefer: 'return=representation' };

async function authorization(value = '25.00'): Promise<string> {
  const order = await t.request('POST', '/v2/checkout/orders', {
    body: {
      intent: 'AUTHORIZE',
      purchase_units: [{ amount: { currency_code: 'USD', value } }],
      payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } },
    },
    headers: { 'service-request-id': randomUUID(), ...FULL },
  });
  expect(order.status).toBe(201);
  const authorized = await t.request('POST', `/v2/checkout/orders/${order.body.id}/authorize`, { headers: FULL });
  expect(authorized.status).toBe(201);
  return authorized.body.purchase_units[0].payments.authorizations[0].id as string;
}

const capture = (authId: string, headers: Record<string, string> = {}) =>
  t.request('POST', `/v2/payments/authorizations/${authId}/capture`, { body: {}, headers: { ...FULL, 'service-request-id': randomUUID(), ...headers } });

type Received = { id: string; event_type: string; resource_type: string; resource: { id: string } };
const eventOf = (request: ReceivedRequest) => JSON.parse(request.body) as Received;

/**
 * The one delivery of `eventType` (about `resourceId` when given) that the last call caused. Once
 * it is here, a marker event about the same resource is written: a subscription's first attempts
 * for one resource follow commit order, so when the marker arrives every event about the resource
 * committed before it has been sent, a second one of `eventType` included.
 */
async function delivered(eventType: string, resourceId?: string): Promise<ReceivedRequest> {
  const matching = () =>
    receiver.received.filter((r) => eventOf(r).event_type === eventType && (resourceId === undefined || eventOf(r).resource.id === resourceId));
  await waitFor(() => matching().length > 0, { what: `a ${eventType} delivery` });
  const first = eventOf(matching()[0] as ReceivedRequest);
  const marker = await emitEvent(t, { eventType: MARKER, resourceType: first.resource_type, resourceId: first.resource.id });
  await waitFor(() => receiver.received.some((r) => eventOf(r).id === marker.id), { what: `the marker after ${first.id}` });
  expect(matching()).toHaveLength(1);
  return matching()[0] as ReceivedRequest;
}

async function expectVerified(request: ReceivedRequest): Promise<void> {
  const genuine = await t.request('POST', '/v1/notifications/verify-webhook-signature', { body: verificationRequest(request, webhookId) });
  expect(genuine.body).toEqual({ verification_status: 'SUCCESS' });
  // One changed byte of the body: the last character of the summary.
  const event = JSON.parse(request.body) as { summary: string };
  const changed = { ...event, summary: `${event.summary.slice(0, -1)}${event.summary.endsWith('x') ? 'y' : 'x'}` };
  expect(JSON.stringify(changed).length).toBe(request.body.length);
  const forged = await t.request('POST', '/v1/notifications/verify-webhook-signature', {
    body: { ...verificationRequest(request, webhookId), webhook_event: changed },
  });
  expect(forged.body).toEqual({ verification_status: 'FAILURE' });
}

describe('the six callbacks', () => {
  it('capture_completed: captures/{capture_id}', async () => {
    const captured = await capture(await authorization());
    expect(captured.status).toBe(200);
    expect(captured.body.status).toBe('COMPLETED');
    const request = await delivered('PAYMENT.CAPTURE.COMPLETED');
    expect(request.path).toBe(`/callbacks/captures/${captured.body.id}`);
    expect(JSON.parse(request.body).resource).toMatchObject({ id: captured.body.id, status: 'COMPLETED' });
    await expectVerified(request);
  });

  it('capture_declined: captures/{capture_id}/declined', async () => {
    const captured = await capture(await authorization(), { 'service-mock-response': '{"mock_application_codes":"INSTRUMENT_DECLINED"}' });
    expect(captured.status).toBe(200);
    expect(captured.body.status).toBe('DECLINED');
    const request = await delivered('PAYMENT.CAPTURE.DECLINED');
    expect(request.path).toBe(`/callbacks/captures/${captured.body.id}/declined`);
    await expectVerified(request);
  });

  it('capture_pending_kyc_incomplete: captures/{capture_id}/pending', async () => {
    const authId = await authorization();
    expect((await t.request('POST', '/_payctl/accounts/kyc', { body: { status: 'PENDING' } })).status).toBe(200);
    try {
      const captured = await capture(authId);
      expect(captured.body.status).toBe('PENDING');
      const request = await delivered('PAYMENT.CAPTURE.PENDING');
      expect(request.path).toBe(`/callbacks/captures/${captured.body.id}/pending`);
      expect(JSON.parse(request.body).resource.status_details).toEqual({ reason: 'VERIFICATION_REQUIRED' });
      await expectVerified(request);
    } finally {
      await t.request('POST', '/_payctl/accounts/kyc', { body: { status: 'VERIFIED' } });
    }
  });

  it('authorization_voided: authorizations/{authorization_id}/void', async () => {
    const authId = await authorization();
    const voided = await t.request('POST', `/v2/payments/authorizations/${authId}/void`, { headers: FULL });
    expect(voided.status).toBe(200);
    const request = await delivered('PAYMENT.AUTHORIZATION.VOIDED');
    expect(request.path).toBe(`/callbacks/authorizations/${authId}/void`);
    await expectVerified(request);
  });

  it('authorization_voided_expired: authorizations/{authorization_id}/void-expired', async () => {
    const authId = await authorization();
    await t.advanceClock(30 * 86_400);
    // Earlier tests' open authorizations expire too; this one's event is the one to check.
    const request = await delivered('PAYMENT.AUTHORIZATION.VOIDED', authId);
    expect(request.path).toBe(`/callbacks/authorizations/${authId}/void-expired`);
    const resource = JSON.parse(request.body).resource;
    expect(resource).toMatchObject({ id: authId, status: 'VOIDED' });
    // No EXPIRED reason (outside the API's enumeration): voided at or after its expiration_time.
    expect(resource.status_details).toBeUndefined();
    expect(Date.parse(resource.update_time)).toBeGreaterThanOrEqual(Date.parse(resource.expiration_time));
    await expectVerified(request);
  });

  it('capture_refunded: captures/{capture_id}/refunds', async () => {
    const captured = await capture(await authorization('40.00'));
    await receiver.waitFor(1);
    receiver.received.length = 0;
    const refunded = await t.request('POST', `/v2/payments/captures/${captured.body.id}/refund`, {
      body: { amount: { currency_code: 'USD', value: '15.00' } },
      headers: { ...FULL, 'service-request-id': randomUUID() },
    });
    expect(refunded.status).toBe(200);
    const request = await delivered('PAYMENT.CAPTURE.REFUNDED');
    expect(request.path).toBe(`/callbacks/captures/${captured.body.id}/refunds`);
    expect(JSON.parse(request.body).resource).toMatchObject({ id: refunded.body.id, amount: { value: '15.00' } });
    await expectVerified(request);
  });
});
