// Concurrency and idempotent replay: limits hold whatever arrives at once; a retried request never
// moves money twice.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { FULL, authorize, capture, capturedPayment, refund, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  // Whatever ran concurrently above, the ledger invariants hold at the end.
  const audit = await t.request('GET', '/_payctl/audit', { token: t.adminKey });
  const broken = audit.body.checks.filter((check: { violations: unknown[] }) => check.violations.length > 0);
  await t.close();
  expect(broken).toEqual([]);
  expect(audit.body.ok).toBe(true);
});

async function movements(referenceIds: readonly string[]) {
  return t.server.db.selectFrom('balance_movements').selectAll().where('reference_id', 'in', [...referenceIds]).execute();
}

describe('concurrent requests', () => {
  it('200 concurrent 1.00 captures on a 100.00 authorization: exactly 100 succeed', async () => {
    const authId = await authorize(t, '100.00');
    const url = `${t.url}/v2/payments/authorizations/${authId}/capture`;
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.merchant.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(usd('1.00')),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as any })),
      ),
    );
    const succeeded = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 422);
    expect(succeeded).toHaveLength(100);
    expect(refused).toHaveLength(100);
    expect(new Set(refused.map((response) => response.body.details[0].issue))).toEqual(new Set(['AUTHORIZATION_ALREADY_CAPTURED']));
    const auth = (await t.request('GET', `/v2/payments/authorizations/${authId}`)).body;
    expect(auth.status).toBe('CAPTURED');
    const rows = await t.server.db.selectFrom('captures').select(['amount_minor']).where('authorization_id', '=', authId).execute();
    expect(rows).toHaveLength(100);
    expect(rows.reduce((sum, row) => sum + row.amount_minor, 0n)).toBe(10000n);
    const stored = await t.server.db.selectFrom('authorizations').select('captured_minor').where('id', '=', authId).executeTakeFirstOrThrow();
    expect(stored.captured_minor).toBe(10000n);
  });

  it('concurrent partial captures never pass the over-capture limit', async () => {
    const authId = await authorize(t, '100.00');
    // 60.00 and eight 11.00 at once: however they interleave, the total stays within 115.00.
    const bodies = [usd('60.00'), ...Array.from({ length: 8 }, () => usd('11.00'))];
    const responses = await Promise.all(bodies.map((body) => capture(t, authId, body)));
    const rows = await t.server.db.selectFrom('captures').select('amount_minor').where('authorization_id', '=', authId).execute();
    const total = rows.reduce((sum, row) => sum + row.amount_minor, 0n);
    expect(total <= 11500n).toBe(true);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(rows.length);
    for (const response of responses.filter((item) => item.status !== 200)) {
      expect(['MAX_CAPTURE_AMOUNT_EXCEEDED', 'AUTHORIZATION_ALREADY_CAPTURED']).toContain(response.body.details[0].issue);
    }
  });

  it('50 concurrent 1.00 refunds on a 20.00 capture: exactly 10 succeed (the refund count limit) and never more than captured', async () => {
    const { captureId } = await capturedPayment(t, '20.00');
    const responses = await Promise.all(Array.from({ length: 50 }, () => refund(t, captureId, usd('1.00'))));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(10);
    const stored = await t.server.db.selectFrom('captures').select(['refunded_minor', 'refund_count']).where('id', '=', captureId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ refunded_minor: 1000n, refund_count: 10n });
  });

  it('20 concurrent full refunds of one capture: exactly one succeeds', async () => {
    const { captureId } = await capturedPayment(t, '20.00');
    const responses = await Promise.all(Array.from({ length: 20 }, () => refund(t, captureId, {})));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    const issues = responses.filter((response) => response.status !== 200).map((response) => response.body.details[0].issue);
    expect(new Set(issues)).toEqual(new Set(['CAPTURE_FULLY_REFUNDED']));
  });
});

describe('idempotent replay', () => {
  it('a capture sent twice with one request id answers the same body and captures once', async () => {
    const authId = await authorize(t, '100.00');
    const key = randomUUID();
    const first = await capture(t, authId, usd('25.00'), { 'service-request-id': key });
    const second = await capture(t, authId, usd('25.00'), { 'service-request-id': key });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    // Byte for byte, with one type: the first answer is sent as the JSON stored for replays, a
    // replay is serialized from what was stored.
    expect(first.text).toBe(second.text);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const rows = await t.server.db.selectFrom('captures').select('id').where('authorization_id', '=', authId).execute();
    expect(rows).toHaveLength(1);
    expect(await movements([first.body.id])).toHaveLength(1);
    // The PayPal-Request-Id alias is the same key.
    const alias = await capture(t, authId, usd('25.00'), { 'paypal-request-id': key });
    expect(alias.body.id).toBe(first.body.id);
    // Both names with one value (as payctl sends them) are the same key too.
    const both = await capture(t, authId, usd('25.00'), { 'service-request-id': key, 'paypal-request-id': key });
    expect(both.body.id).toBe(first.body.id);
  });

  it('refuses two different values under the two names of the request id or the assertion, changing nothing', async () => {
    const authId = await authorize(t, '100.00');
    const twoIds = await capture(t, authId, usd('25.00'), { 'service-request-id': randomUUID(), 'paypal-request-id': randomUUID() });
    expect(twoIds.status).toBe(400);
    expect(twoIds.body).toMatchObject({ name: 'INVALID_REQUEST', details: [{ issue: 'INVALID_PARAMETER_VALUE', field: 'PayPal-Request-Id', location: 'header' }] });
    expect(twoIds.body.details[0].description).toContain('Service-Request-Id and PayPal-Request-Id');
    const twoAssertions = await capture(t, authId, usd('25.00'), { 'service-auth-assertion': 'a.b.', 'paypal-auth-assertion': 'c.d.' });
    expect(twoAssertions.status).toBe(400);
    expect(twoAssertions.body.details[0]).toMatchObject({ issue: 'INVALID_PARAMETER_VALUE', field: 'PayPal-Auth-Assertion' });
    const rows = await t.server.db.selectFrom('captures').select('id').where('authorization_id', '=', authId).execute();
    expect(rows).toHaveLength(0);
  });

  it('concurrent retries with one request id capture once', async () => {
    const authId = await authorize(t, '100.00');
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => capture(t, authId, usd('5.00'), { 'service-request-id': key })));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const rows = await t.server.db.selectFrom('captures').select('id').where('authorization_id', '=', authId).execute();
    expect(rows).toHaveLength(1);
  });

  it('a refund sent twice with one request id refunds once', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    const key = randomUUID();
    const first = await refund(t, captureId, usd('10.00'), { 'service-request-id': key });
    const second = await refund(t, captureId, usd('10.00'), { 'service-request-id': key });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const capture = (await t.request('GET', `/v2/payments/captures/${captureId}`)).body;
    expect(capture.status).toBe('PARTIALLY_REFUNDED');
    const rows = await t.server.db.selectFrom('refunds').select('id').where('capture_id', '=', captureId).execute();
    expect(rows).toHaveLength(1);
    const events = await t.server.db.selectFrom('events').select('id').where('resource_id', '=', first.body.id).execute();
    expect(events).toHaveLength(1);
  });

  it('a request id reused with other content is refused and changes nothing', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    const key = randomUUID();
    expect((await refund(t, captureId, usd('10.00'), { 'service-request-id': key })).status).toBe(200);
    const mismatch = await refund(t, captureId, usd('11.00'), { 'service-request-id': key });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.details[0]).toMatchObject({ issue: 'DUPLICATE_REQUEST_ID', location: 'header' });
    const rows = await t.server.db.selectFrom('refunds').select('amount_minor').where('capture_id', '=', captureId).execute();
    expect(rows).toEqual([{ amount_minor: 1000n }]);
  });

  it('a refused request is not remembered: the same id succeeds once the refusal is fixed', async () => {
    const authId = await authorize(t, '10.00');
    const key = randomUUID();
    const refused = await capture(t, authId, usd('20.00'), { 'service-request-id': key });
    expect(refused.status).toBe(422);
    const replay = await capture(t, authId, usd('20.00'), { 'service-request-id': key });
    expect(replay.status).toBe(422);
    expect(replay.body.details[0].issue).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
  });

  it('void with return=minimal answers 200 with id, status and links', async () => {
    const authId = await authorize(t, '10.00');
    const voided = await t.request('POST', `/v2/payments/authorizations/${authId}/void`, { headers: { prefer: 'return=minimal' } });
    expect(voided.status).toBe(200);
    expect(Object.keys(voided.body)).toEqual(['id', 'status', 'links']);
    expect(voided.body.status).toBe('VOIDED');
    const full = await t.request('POST', `/v2/payments/authorizations/${await authorize(t, '10.00')}/void`, { headers: FULL });
    expect(full.body.amount).toEqual({ currency_code: 'USD', value: '10.00' });
  });
});
