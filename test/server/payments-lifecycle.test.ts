// Every (status, operation) pair of authorizations and captures, allowed and refused, over HTTP.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoSeconds } from '../../src/server/core/clock.js';
import { reverseCapture } from '../../src/server/payments/service.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { FULL, authorize, capture, capturedPayment, refund, usd } from './payments-helpers.js';

let t: TestServer;
/** A merchant whose clock runs 4 days ahead after each authorization: past the honour period. */
let late: Merchant;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  late = await t.createMerchant();
});
afterAll(async () => {
  await t.close();
});

const PENDING_REVIEW = { 'service-mock-response': JSON.stringify({ mock_application_codes: 'PENDING_REVIEW' }) };
const DAY = 86_400;

async function review(id: string, decision: 'APPROVE' | 'DENY', token?: string) {
  const reviewed = await t.request('POST', `/_payctl/authorizations/${id}/review`, { body: { decision }, ...(token ? { token } : {}) });
  expect(reviewed.status).toBe(200);
}

async function voided(id: string, token?: string) {
  const result = await t.request('POST', `/v2/payments/authorizations/${id}/void`, { ...(token ? { token } : {}) });
  expect(result.status).toBe(200);
}

/** A fresh authorization of 100.00 USD in each status; returns [id, token of its merchant]. */
const AUTHORIZATION_FIXTURES: Record<string, () => Promise<[string, string]>> = {
  CREATED: async () => [await authorize(t, '100.00'), t.merchant.token],
  PARTIALLY_CAPTURED: async () => {
    const id = await authorize(t, '100.00');
    expect((await capture(t, id, usd('10.00'))).status).toBe(200);
    return [id, t.merchant.token];
  },
  CAPTURED: async () => {
    const id = await authorize(t, '100.00');
    expect((await capture(t, id)).status).toBe(200);
    return [id, t.merchant.token];
  },
  VOIDED: async () => {
    const id = await authorize(t, '100.00');
    await voided(id);
    return [id, t.merchant.token];
  },
  'VOIDED (expired)': async () => {
    const merchant = await t.createMerchant();
    const id = await authorize(t, '100.00', 'USD', { token: merchant.token });
    await t.advanceClock(30 * DAY, merchant.token);
    const token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    return [id, token];
  },
  PENDING: async () => [await authorize(t, '100.00', 'USD', { headers: PENDING_REVIEW }), t.merchant.token],
  DENIED: async () => {
    const id = await authorize(t, '100.00', 'USD', { headers: PENDING_REVIEW });
    await review(id, 'DENY');
    return [id, t.merchant.token];
  },
  'CREATED after honour period': async () => {
    const id = await authorize(t, '100.00', 'USD', { token: late.token });
    await t.advanceClock(4 * DAY, late.token);
    late.token = await t.tokenFor(late.client_id, late.client_secret);
    return [id, late.token];
  },
  'reauthorization (CREATED)': async () => {
    const id = await authorize(t, '100.00', 'USD', { token: late.token });
    await t.advanceClock(4 * DAY, late.token);
    late.token = await t.tokenFor(late.client_id, late.client_secret);
    const renewed = await t.request('POST', `/v2/payments/authorizations/${id}/reauthorize`, {
      token: late.token,
      body: usd('100.00'),
      headers: FULL,
    });
    expect(renewed.status, renewed.text).toBe(201);
    return [renewed.body.id, late.token];
  },
  'original of a reauthorization': async () => {
    const id = await authorize(t, '100.00', 'USD', { token: late.token });
    await t.advanceClock(4 * DAY, late.token);
    late.token = await t.tokenFor(late.client_id, late.client_secret);
    const renewed = await t.request('POST', `/v2/payments/authorizations/${id}/reauthorize`, { token: late.token, body: usd('90.00') });
    expect(renewed.status, renewed.text).toBe(201);
    return [id, late.token];
  },
};

type Expected = { status: number; issue?: string; resulting?: string };
const ok = (status: number, resulting: string): Expected => ({ status, resulting });
const refused = (issue: string): Expected => ({ status: 422, issue });

const AUTHORIZATION_TABLE: Array<[string, Record<'capture' | 'void' | 'reauthorize', Expected>]> = [
  ['CREATED', { capture: ok(200, 'CAPTURED'), void: ok(200, 'VOIDED'), reauthorize: refused('TRANSACTION_REFUSED') }],
  ['PARTIALLY_CAPTURED', { capture: ok(200, 'CAPTURED'), void: ok(200, 'VOIDED'), reauthorize: refused('AUTHORIZATION_ALREADY_CAPTURED') }],
  [
    'CAPTURED',
    { capture: refused('AUTHORIZATION_ALREADY_CAPTURED'), void: refused('PREVIOUSLY_CAPTURED'), reauthorize: refused('AUTHORIZATION_ALREADY_CAPTURED') },
  ],
  ['VOIDED', { capture: refused('AUTHORIZATION_VOIDED'), void: refused('PREVIOUSLY_VOIDED'), reauthorize: refused('AUTHORIZATION_VOIDED') }],
  [
    'VOIDED (expired)',
    { capture: refused('AUTHORIZATION_EXPIRED'), void: refused('PREVIOUSLY_VOIDED'), reauthorize: refused('AUTHORIZATION_EXPIRED') },
  ],
  ['PENDING', { capture: refused('TRANSACTION_REFUSED'), void: ok(200, 'VOIDED'), reauthorize: refused('TRANSACTION_REFUSED') }],
  ['DENIED', { capture: refused('AUTHORIZATION_DENIED'), void: refused('CANNOT_BE_VOIDED'), reauthorize: refused('AUTHORIZATION_DENIED') }],
  ['CREATED after honour period', { capture: ok(200, 'CAPTURED'), void: ok(200, 'VOIDED'), reauthorize: ok(201, 'CREATED') }],
  [
    'reauthorization (CREATED)',
    { capture: ok(200, 'CAPTURED'), void: refused('CANNOT_BE_VOIDED'), reauthorize: refused('REAUTHORIZATION_NOT_SUPPORTED') },
  ],
  [
    'original of a reauthorization',
    { capture: refused('TRANSACTION_REFUSED'), void: ok(200, 'VOIDED'), reauthorize: refused('REAUTHORIZATION_NOT_SUPPORTED') },
  ],
];

const operationBody = { capture: {}, void: undefined, reauthorize: usd('100.00') } as const;

describe('authorization status x operation', () => {
  const cases = AUTHORIZATION_TABLE.flatMap(([status, row]) =>
    (Object.keys(row) as Array<keyof typeof row>).map((operation) => ({ status, operation, expected: row[operation] })),
  );
  it.each(cases)('$status: $operation', async ({ status, operation, expected }) => {
    const fixture = AUTHORIZATION_FIXTURES[status];
    if (!fixture) throw new Error(`no fixture for ${status}`);
    const [id, token] = await fixture();
    const before = await t.request('GET', `/v2/payments/authorizations/${id}`, { token });
    const result = await t.request('POST', `/v2/payments/authorizations/${id}/${operation}`, {
      token,
      headers: FULL,
      ...(operationBody[operation] !== undefined ? { body: operationBody[operation] } : {}),
    });
    expect(result.status, result.text).toBe(expected.status);
    const after = await t.request('GET', `/v2/payments/authorizations/${id}`, { token });
    if (expected.issue) {
      expect(result.body.name).toBe('UNPROCESSABLE_ENTITY');
      expect(result.body.details[0].issue).toBe(expected.issue);
      // A refusal changes nothing.
      expect(after.body).toEqual(before.body);
    } else if (operation === 'reauthorize') {
      expect(result.body.status).toBe(expected.resulting);
      expect(result.body.id).not.toBe(id);
      expect(result.body.supplementary_data.related_ids.authorization_id).toBe(id);
    } else {
      expect(after.body.status).toBe(expected.resulting);
    }
  });
});

describe('capture status x operation', () => {
  async function pendingCapture(): Promise<string> {
    const merchant = await t.createMerchant();
    const kyc = await t.request('POST', '/_payctl/accounts/kyc', { token: merchant.token, body: { status: 'PENDING' } });
    expect(kyc.status).toBe(200);
    const authId = await authorize(t, '100.00', 'USD', { token: merchant.token });
    const held = await capture(t, authId, {}, {}, merchant.token);
    expect(held.body.status).toBe('PENDING');
    pendingTokens.set(held.body.id, merchant.token);
    return held.body.id;
  }
  const pendingTokens = new Map<string, string>();
  const tokenOf = (id: string) => pendingTokens.get(id) ?? t.merchant.token;

  const FIXTURES: Record<string, () => Promise<string>> = {
    COMPLETED: async () => (await capturedPayment(t, '50.00')).captureId,
    PARTIALLY_REFUNDED: async () => {
      const { captureId } = await capturedPayment(t, '50.00');
      expect((await refund(t, captureId, usd('5.00'))).status).toBe(200);
      return captureId;
    },
    REFUNDED: async () => {
      const { captureId } = await capturedPayment(t, '50.00');
      expect((await refund(t, captureId)).status).toBe(200);
      return captureId;
    },
    PENDING: pendingCapture,
    DECLINED: async () => {
      const id = await pendingCapture();
      expect((await t.request('POST', `/_payctl/captures/${id}/decline`, { token: tokenOf(id) })).status).toBe(200);
      return id;
    },
    'REFUNDED (reversed)': async () => {
      const { captureId } = await capturedPayment(t, '50.00');
      const deps = t.server.deps;
      const accountId = t.merchant.payer_id;
      await deps.storage.transaction({ name: 'test' }, (trx) =>
        reverseCapture({ db: trx, deps, accountId, now: deps.clock.now(accountId), baseUrl: t.url }, captureId),
      );
      return captureId;
    },
  };

  const TABLE: Array<[string, Record<'refund' | 'complete' | 'decline', Expected>]> = [
    ['COMPLETED', { refund: ok(200, 'REFUNDED'), complete: refused('CAPTURE_NOT_PENDING'), decline: refused('CAPTURE_NOT_PENDING') }],
    ['PARTIALLY_REFUNDED', { refund: ok(200, 'REFUNDED'), complete: refused('CAPTURE_NOT_PENDING'), decline: refused('CAPTURE_NOT_PENDING') }],
    ['REFUNDED', { refund: refused('CAPTURE_FULLY_REFUNDED'), complete: refused('CAPTURE_NOT_PENDING'), decline: refused('CAPTURE_NOT_PENDING') }],
    ['PENDING', { refund: refused('PENDING_CAPTURE'), complete: ok(200, 'COMPLETED'), decline: ok(200, 'DECLINED') }],
    ['DECLINED', { refund: refused('REFUND_NOT_ALLOWED'), complete: refused('CAPTURE_NOT_PENDING'), decline: refused('CAPTURE_NOT_PENDING') }],
    [
      'REFUNDED (reversed)',
      { refund: refused('REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK'), complete: refused('CAPTURE_NOT_PENDING'), decline: refused('CAPTURE_NOT_PENDING') },
    ],
  ];
  const cases = TABLE.flatMap(([status, row]) =>
    (Object.keys(row) as Array<keyof typeof row>).map((operation) => ({ status, operation, expected: row[operation] })),
  );

  it.each(cases)('$status: $operation', async ({ status, operation, expected }) => {
    const fixture = FIXTURES[status];
    if (!fixture) throw new Error(`no fixture for ${status}`);
    const id = await fixture();
    const token = tokenOf(id);
    const before = await t.request('GET', `/v2/payments/captures/${id}`, { token });
    expect(before.body.status).toBe(status.split(' ')[0]);
    const path = operation === 'refund' ? `/v2/payments/captures/${id}/refund` : `/_payctl/captures/${id}/${operation}`;
    const result = await t.request('POST', path, { token, headers: FULL });
    expect(result.status, result.text).toBe(expected.status);
    const after = await t.request('GET', `/v2/payments/captures/${id}`, { token });
    if (expected.issue) {
      expect(result.body.details[0].issue).toBe(expected.issue);
      expect(after.body).toEqual(before.body);
    } else {
      expect(after.body.status).toBe(expected.resulting);
    }
  });

  it('a reversal takes the net still held from the balance and raises PAYMENT.CAPTURE.REVERSED', async () => {
    const merchant = await t.createMerchant();
    const authId = await authorize(t, '100.00', 'USD', { token: merchant.token });
    const captured = await capture(t, authId, {}, {}, merchant.token);
    await refund(t, captured.body.id, usd('40.00'), {}, merchant.token);
    const deps = t.server.deps;
    const accountId = merchant.payer_id;
    const reversed = await deps.storage.transaction({ name: 'test' }, (trx) =>
      reverseCapture({ db: trx, deps, accountId, now: deps.clock.now(accountId), baseUrl: t.url }, captured.body.id),
    );
    // The spec's capture statuses have no REVERSED: REFUNDED, the reversal in status_details and the event.
    expect(reversed.status).toBe('REFUNDED');
    expect(reversed.status_details).toEqual({ reason: 'BUYER_COMPLAINT' });
    const read = await t.request('GET', `/v2/payments/captures/${captured.body.id}`, { token: merchant.token });
    expect(read.body).toMatchObject({ status: 'REFUNDED', status_details: { reason: 'BUYER_COMPLAINT' } });
    const balance = await deps.db.selectFrom('balances').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
    expect(balance.available_minor).toBe(0n);
    const kinds = await deps.db.selectFrom('balance_movements').select(['kind', 'amount_minor']).where('account_id', '=', accountId).orderBy('seq').execute();
    // 100.00 - fee 3.98 = 96.02; refund 40.00 returns fee 1.59 -> takes 38.41; reversal takes the rest 57.61.
    expect(kinds).toEqual([
      { kind: 'CAPTURE', amount_minor: 9602n },
      { kind: 'REFUND', amount_minor: -3841n },
      { kind: 'REVERSAL', amount_minor: -5761n },
    ]);
    const events = await deps.db.selectFrom('events').select('event_type').where('account_id', '=', accountId).where('create_time', '>=', isoSeconds(new Date(0))).execute();
    expect(events.map((event) => event.event_type)).toContain('PAYMENT.CAPTURE.REVERSED');
  });
});

describe('bodies that are empty whatever their label', () => {
  // @paypal/paypal-server-sdk (axios) sends an empty POST labelled as a form.
  it.each([
    ['application/x-www-form-urlencoded'],
    ['text/plain'],
    ['application/octet-stream'],
  ])('voids, captures and refunds with an empty %s body', async (contentType) => {
    const headers = { 'content-type': contentType, ...FULL };
    const voidId = await authorize(t, '10.00');
    const voided = await t.request('POST', `/v2/payments/authorizations/${voidId}/void`, { raw: '', headers });
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('VOIDED');
    const authId = await authorize(t, '10.00');
    const captured = await t.request('POST', `/v2/payments/authorizations/${authId}/capture`, { raw: '', headers });
    expect(captured.status).toBe(200);
    expect(captured.body.amount).toEqual({ currency_code: 'USD', value: '10.00' });
    const refunded = await t.request('POST', `/v2/payments/captures/${captured.body.id}/refund`, { raw: '', headers });
    expect(refunded.status).toBe(200);
    expect(refunded.body.amount).toEqual({ currency_code: 'USD', value: '10.00' });
  });

  it('still refuses a non-empty body of the wrong type with 415 and changes nothing', async () => {
    const authId = await authorize(t, '10.00');
    for (const [contentType, raw] of [['application/x-www-form-urlencoded', 'note=1'], ['text/plain', 'x']]) {
      const refused = await t.request('POST', `/v2/payments/authorizations/${authId}/void`, { raw, headers: { 'content-type': contentType! } });
      expect(refused.status).toBe(415);
      expect(refused.body.name).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await t.request('GET', `/v2/payments/authorizations/${authId}`)).body.status).toBe('CREATED');
  });
});
