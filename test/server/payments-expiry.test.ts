// Authorization expiry and reauthorization windows on the account's clock.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { FULL, authorize, capture, outbox, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

const DAY = 86_400;

async function advance(merchant: Merchant, seconds: number): Promise<void> {
  await t.advanceClock(seconds, merchant.token);
  merchant.token = await t.tokenFor(merchant.client_id, merchant.client_secret);
}

const get = (merchant: Merchant, id: string) => t.request('GET', `/v2/payments/authorizations/${id}`, { token: merchant.token });

describe('expiry', () => {
  it('expires 29 days after creation: the server voids it and raises the expired VOIDED event', async () => {
    const merchant = await t.createMerchant();
    const id = await authorize(t, '50.00', 'USD', { token: merchant.token });
    const created = (await get(merchant, id)).body;
    expect(Date.parse(created.expiration_time) - Date.parse(created.create_time)).toBe(29 * DAY * 1000);
    expect((await capture(t, id, usd('5.00'), {}, merchant.token)).status).toBe(200);

    await advance(merchant, 29 * DAY - 60);
    expect((await get(merchant, id)).body.status).toBe('PARTIALLY_CAPTURED');
    await advance(merchant, 60);
    // The clock advance ran the job before answering: the authorization is already voided.
    const rows = await t.server.db.selectFrom('authorizations').select(['status', 'status_reason']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(rows).toEqual({ status: 'VOIDED', status_reason: 'EXPIRED' });
    const expired = (await get(merchant, id)).body;
    expect(expired.status).toBe('VOIDED');
    // EXPIRED is not in the API's authorization reasons: VOIDED past its expiration_time says it.
    expect(expired.status_details).toBeUndefined();
    expect(Date.parse(expired.update_time)).toBeGreaterThanOrEqual(Date.parse(expired.expiration_time));
    expect(expired.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'up']);

    const refused = await capture(t, id, usd('1.00'), {}, merchant.token);
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('AUTHORIZATION_EXPIRED');

    const events = (await outbox(t, merchant.payer_id)).filter((row) => row.event_type === 'PAYMENT.AUTHORIZATION.VOIDED');
    expect(events).toHaveLength(1);
    expect(events[0]?.resource_type).toBe('authorization');
    expect(events[0]?.envelope.resource).toMatchObject({ id, status: 'VOIDED' });
    expect(events[0]?.envelope.resource.status_details).toBeUndefined();
    expect(events[0]?.envelope.summary).toMatch(/expired/);
  });

  it('an explicit void raises VOIDED without the expiry reason', async () => {
    const merchant = await t.createMerchant();
    const id = await authorize(t, '50.00', 'USD', { token: merchant.token });
    await t.request('POST', `/v2/payments/authorizations/${id}/void`, { token: merchant.token });
    const events = (await outbox(t, merchant.payer_id)).filter((row) => row.event_type === 'PAYMENT.AUTHORIZATION.VOIDED');
    expect(events).toHaveLength(1);
    expect(events[0]?.envelope.resource.status_details).toBeUndefined();
  });

  it('expiry does not depend on the job: past the expiration time a request sees it expired, and writes nothing', async () => {
    // The job interval is an hour here, and the clock is moved without running jobs.
    const quiet = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
    try {
      const id = await authorize(quiet, '50.00');
      const accountId = quiet.merchant.payer_id;
      // The clock lives in the database (the server's map only remembers what it last read there).
      await quiet.server.db.updateTable('accounts').set({ clock_offset_ms: BigInt(30 * DAY * 1000) }).where('id', '=', accountId).execute();
      const token = await quiet.tokenFor(quiet.merchant.client_id, quiet.merchant.client_secret);
      const stored = () => quiet.server.db.selectFrom('authorizations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const voidedEvents = async () => (await outbox(quiet, accountId)).filter((row) => row.event_type === 'PAYMENT.AUTHORIZATION.VOIDED');
      const before = await stored();
      expect(before.status).toBe('CREATED');

      const got = await quiet.request('GET', `/v2/payments/authorizations/${id}`, { token });
      expect(got.body).toMatchObject({ id, status: 'VOIDED', update_time: before.expiration_time });
      expect(got.body.status_details).toBeUndefined();
      expect(got.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'up']);
      const orderId = got.body.supplementary_data.related_ids.order_id as string;
      const order = await quiet.request('GET', `/v2/checkout/orders/${orderId}`, { token });
      expect(order.body.purchase_units[0].payments.authorizations[0]).toEqual(got.body);
      // Every change is refused as for an authorization voided on expiry, on the row it locks.
      const path = `/v2/payments/authorizations/${id}`;
      expect((await quiet.request('POST', `${path}/capture`, { token, body: {} })).body.details[0].issue).toBe('AUTHORIZATION_EXPIRED');
      expect((await quiet.request('POST', `${path}/void`, { token })).body.details[0].issue).toBe('PREVIOUSLY_VOIDED');
      expect((await quiet.request('POST', `${path}/reauthorize`, { token, body: usd('50.00') })).body.details[0].issue).toBe('AUTHORIZATION_EXPIRED');
      // Nothing was written: the row and the events are as they were.
      expect(await stored()).toEqual(before);
      expect(await voidedEvents()).toHaveLength(0);

      // The job writes it (positive control), as the reads showed it, with its event.
      await quiet.server.deps.scheduler.runAll();
      expect(await stored()).toMatchObject({ status: 'VOIDED', status_reason: 'EXPIRED', update_time: before.expiration_time });
      const events = await voidedEvents();
      expect(events).toHaveLength(1);
      expect(events[0]?.envelope.resource).toMatchObject({ id, status: 'VOIDED', update_time: before.expiration_time });
      expect((await quiet.request('GET', path, { token })).body).toEqual(got.body);
    } finally {
      await quiet.close();
    }
  });

  it('one merchant\'s clock does not expire another merchant\'s authorizations', async () => {
    const a = await t.createMerchant();
    const b = await t.createMerchant();
    const idB = await authorize(t, '10.00', 'USD', { token: b.token });
    await advance(a, 40 * DAY);
    expect((await get(b, idB)).body.status).toBe('CREATED');
  });
});

describe('reauthorization', () => {
  it('is refused in the honour period, allowed from day 3 to day 29, once, up to 115%', async () => {
    const merchant = await t.createMerchant();
    const id = await authorize(t, '100.00', 'USD', { token: merchant.token });
    const reauthorize = (body: unknown, authId = id) =>
      t.request('POST', `/v2/payments/authorizations/${authId}/reauthorize`, { token: merchant.token, body, headers: FULL });

    const early = await reauthorize(usd('100.00'));
    expect(early.body.details[0].issue).toBe('TRANSACTION_REFUSED');
    await advance(merchant, 3 * DAY);
    expect((await reauthorize(usd('115.01'))).body.details[0].issue).toBe('AUTHORIZATION_AMOUNT_EXCEEDED');
    expect((await reauthorize({ amount: { currency_code: 'EUR', value: '10.00' } })).body.details[0].issue).toBe('AUTH_CURRENCY_MISMATCH');
    expect((await reauthorize({})).body.details[0]).toMatchObject({ issue: 'MISSING_REQUIRED_PARAMETER', field: '/amount' });

    const renewed = await reauthorize(usd('115.00'));
    expect(renewed.status).toBe(201);
    expect(renewed.body).toMatchObject({ status: 'CREATED', amount: { currency_code: 'USD', value: '115.00' } });
    const original = (await get(merchant, id)).body;
    expect(renewed.body.expiration_time).toBe(original.expiration_time);
    expect(original.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'void', 'up']);
    expect((await reauthorize(usd('10.00'))).body.details[0].issue).toBe('REAUTHORIZATION_NOT_SUPPORTED');

    // The reauthorization is captured; voiding the original voids what is left of both.
    expect((await capture(t, renewed.body.id, usd('15.00'), {}, merchant.token)).status).toBe(200);
    const voided = await t.request('POST', `/v2/payments/authorizations/${id}/void`, { token: merchant.token });
    expect(voided.status).toBe(200);
    expect((await get(merchant, renewed.body.id)).body.status).toBe('VOIDED');

    const types = (await outbox(t, merchant.payer_id)).map((row) => row.event_type);
    expect(types.filter((type) => type === 'PAYMENT.AUTHORIZATION.CREATED')).toHaveLength(2);
    expect(types.filter((type) => type === 'PAYMENT.AUTHORIZATION.VOIDED')).toHaveLength(2);
  });

  it('is refused after day 29 (expired)', async () => {
    const merchant = await t.createMerchant();
    const id = await authorize(t, '100.00', 'USD', { token: merchant.token });
    await advance(merchant, 29 * DAY);
    const late = await t.request('POST', `/v2/payments/authorizations/${id}/reauthorize`, { token: merchant.token, body: usd('100.00') });
    expect(late.body.details[0].issue).toBe('AUTHORIZATION_EXPIRED');
  });
});
