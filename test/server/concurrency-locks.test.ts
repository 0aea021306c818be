// Correct without a single writer: concurrent requests on one row, over HTTP, against one server.
// On SQLite one writer serializes them anyway; on PostgreSQL (the pool runs them at once under READ
// COMMITTED) only the row locks and the request-id claim keep these numbers exact.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { simpleInvoice, sentInvoice } from './invoicing-helpers.js';
import { FULL, authorize, capture, capturedPayment, createOrder, refund, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  // Whatever ran at once above, the audit's invariants (ledger, captures, refunds, invoices) hold.
  const audit = await t.request('GET', '/_payctl/audit', { token: t.adminKey });
  await t.close();
  expect(audit.status).toBe(200);
  const broken = audit.body.checks.filter((check: { violations: unknown[] }) => check.violations.length > 0);
  expect(broken).toEqual([]);
  expect(audit.body.ok).toBe(true);
});

const all = <T>(count: number, send: (index: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: count }, (_, index) => send(index)));

const issuesOf = (responses: Array<{ status: number; body: any }>, status: number): Set<string> =>
  new Set(responses.filter((response) => response.status === status).map((response) => response.body?.details?.[0]?.issue as string));

describe('concurrent requests on one row', () => {
  it('200 concurrent 1.00 captures of a 100.00 authorization: exactly 100 succeed, the balance holds their net', async () => {
    const authId = await authorize(t, '100.00');
    const before = await t.request('GET', '/_payctl/balances', { token: t.merchant.token });
    const responses = await all(200, () => capture(t, authId, usd('1.00')));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(100);
    expect(responses.filter((response) => response.status === 422)).toHaveLength(100);
    expect(issuesOf(responses, 422)).toEqual(new Set(['AUTHORIZATION_ALREADY_CAPTURED']));
    const rows = await t.server.db.selectFrom('captures').select(['amount_minor', 'net_minor']).where('authorization_id', '=', authId).execute();
    expect(rows).toHaveLength(100);
    expect(rows.reduce((sum, row) => sum + row.amount_minor, 0n)).toBe(10_000n);
    const stored = await t.server.db.selectFrom('authorizations').select(['captured_minor', 'capture_count', 'status']).where('id', '=', authId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ captured_minor: 10_000n, capture_count: 100n, status: 'CAPTURED' });
    const after = await t.request('GET', '/_payctl/balances', { token: t.merchant.token });
    expect(before.status).toBe(200);
    const usdOf = (body: any) => BigInt(String(body.balances.find((item: any) => item.currency === 'USD')?.value ?? '0.00').replace('.', ''));
    expect(usdOf(after.body) - usdOf(before.body)).toBe(rows.reduce((sum, row) => sum + row.net_minor, 0n));
  });

  it('20 concurrent 5.00 refunds of a 20.00 capture: exactly 4 succeed, never more than captured', async () => {
    const { captureId } = await capturedPayment(t, '20.00');
    const responses = await all(20, () => refund(t, captureId, usd('5.00')));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(4);
    expect(issuesOf(responses, 422)).toEqual(new Set(['CAPTURE_FULLY_REFUNDED']));
    const stored = await t.server.db.selectFrom('captures').select(['refunded_minor', 'refund_count', 'status']).where('id', '=', captureId).executeTakeFirstOrThrow();
    expect(stored).toEqual({ refunded_minor: 2000n, refund_count: 4n, status: 'REFUNDED' });
    const refunds = await t.server.db.selectFrom('refunds').select('amount_minor').where('capture_id', '=', captureId).execute();
    expect(refunds.reduce((sum, row) => sum + row.amount_minor, 0n)).toBe(2000n);
  });

  it('one Service-Request-Id sent 20 times at once: one capture, 20 identical answers', async () => {
    const authId = await authorize(t, '100.00');
    const key = randomUUID();
    const responses = await all(20, () => capture(t, authId, usd('7.00'), { 'service-request-id': key }));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const [first] = responses;
    for (const response of responses) expect(response.body).toEqual(first?.body);
    const rows = await t.server.db.selectFrom('captures').select('id').where('authorization_id', '=', authId).execute();
    expect(rows).toEqual([{ id: first?.body.id }]);
    const events = await t.server.db.selectFrom('events').select('id').where('resource_id', '=', first?.body.id).execute();
    expect(events).toHaveLength(1);
    const claims = await t.server.db.selectFrom('idempotency_keys').select(['status_code']).where('request_key', '=', key).execute();
    expect(claims).toEqual([{ status_code: 200n }]);
  });

  it('concurrent captures of one order under different request ids: one capture, the others ORDER_ALREADY_CAPTURED', async () => {
    const order = await createOrder(t, 'CAPTURE', '30.00');
    expect(order.body.status).toBe('APPROVED');
    const responses = await all(10, () =>
      t.request('POST', `/v2/checkout/orders/${order.body.id}/capture`, { headers: { ...FULL, 'service-request-id': randomUUID() } }),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(issuesOf(responses, 422)).toEqual(new Set(['ORDER_ALREADY_CAPTURED']));
    const rows = await t.server.db.selectFrom('captures').select('id').where('order_id', '=', order.body.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('concurrent payments recorded on one invoice never pay more than it is due', async () => {
    const id = await sentInvoice(t, '100.00');
    const responses = await all(10, () =>
      t.request('POST', `/v2/invoicing/invoices/${id}/payments`, { body: { method: 'BANK_TRANSFER', amount: { currency_code: 'USD', value: '30.00' } } }),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(3);
    expect(issuesOf(responses, 422)).toEqual(new Set(['PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE']));
    const invoice = (await t.request('GET', `/v2/invoicing/invoices/${id}`)).body;
    expect(invoice.status).toBe('PARTIALLY_PAID');
    expect(invoice.payments.transactions).toHaveLength(3);
    expect(invoice.payments.paid_amount).toEqual({ currency_code: 'USD', value: '90.00' });
  });

  it('two invoices created at once with one invoice number: one is created, the other DUPLICATE_INVOICE_NUMBER', async () => {
    const number = `LOCK-${randomUUID().slice(0, 8)}`;
    const responses = await all(10, () => t.request('POST', '/v2/invoicing/invoices', { body: simpleInvoice('10.00', { invoice_number: number }) }));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.filter((response) => response.status !== 201).map((response) => response.status)).toEqual(Array.from({ length: 9 }, () => 422));
    expect(issuesOf(responses, 422)).toEqual(new Set(['DUPLICATE_INVOICE_NUMBER']));
  });

  it("an account's system templates seeded by servers starting at once are seeded once; reads at once write nothing", async () => {
    const merchant = await t.createMerchant();
    // As an account made before system templates existed.
    await t.server.db.deleteFrom('invoice_templates').where('account_id', '=', merchant.payer_id).execute();
    const names = async () =>
      (await t.server.db.selectFrom('invoice_templates').select('name').where('account_id', '=', merchant.payer_id).orderBy('name').execute()).map((row) => row.name);
    const reads = await all(10, () => t.request('GET', '/v2/invoicing/templates', { token: merchant.token }));
    expect(reads.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(await names()).toEqual([]);
    // What ten servers starting on this database at once run (the start hooks, index.ts).
    await Promise.all(Array.from({ length: 10 }, () => Promise.all(t.server.deps.hooks.onStart.map((hook) => hook()))));
    expect(await names()).toEqual(['Amount', 'Hours', 'Quantity']);
    // The positive control: the same merchant still creates its own templates.
    const created = await t.request('POST', '/v2/invoicing/templates', { token: merchant.token, body: { name: 'Mine', template_info: {} } });
    expect(created.status).toBe(201);
  });

  it('20 webhooks created at once for one app: exactly the limit of 10', async () => {
    const merchant = await t.createMerchant();
    const responses = await all(20, (index) =>
      t.request('POST', '/v1/notifications/webhooks', { token: merchant.token, body: { url: `https://example.com/hook/${index}`, event_types: [{ name: '*' }] } }),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(10);
    expect(issuesOf(responses, 422)).toEqual(new Set(['WEBHOOK_NUMBER_LIMIT_EXCEEDED']));
  });
});

describe('concurrent dispute actions', () => {
  const openOn = (captureId: string) =>
    t.request('POST', '/_payctl/disputes', {
      body: { disputed_transaction_id: captureId, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', amount: { currency_code: 'USD', value: '40.00' } },
    });

  it('30 disputes opened at once on one capture: one is opened, the others TRANSACTION_ALREADY_DISPUTED', async () => {
    const { captureId } = await capturedPayment(t, '100.00');
    const responses = await all(30, () => openOn(captureId));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(issuesOf(responses, 422)).toEqual(new Set(['TRANSACTION_ALREADY_DISPUTED']));
    const rows = await t.server.db.selectFrom('disputes').select('id').where('capture_id', '=', captureId).execute();
    expect(rows).toHaveLength(1);
  });

  it('a claim accepted 10 times at once refunds the buyer once', async () => {
    const { captureId } = await capturedPayment(t, '100.00');
    const opened = await openOn(captureId);
    expect(opened.status).toBe(201);
    const id = opened.body.dispute_id as string;
    const responses = await all(10, () => t.request('POST', `/v1/customer/disputes/${id}/accept-claim`, { body: { note: 'Sorry.' }, headers: { ...FULL } }));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status !== 200).every((response) => response.status === 422)).toBe(true);
    const refunds = await t.server.db.selectFrom('refunds').select('amount_minor').where('capture_id', '=', captureId).execute();
    expect(refunds).toEqual([{ amount_minor: 4000n }]);
  });
});

describe('the request-id claim', () => {
  it('a claim past its retention (not yet purged) is taken over by the next request with that id', async () => {
    const authId = await authorize(t, '100.00');
    const key = randomUUID();
    const first = await capture(t, authId, usd('1.00'), { 'service-request-id': key });
    expect(first.status).toBe(200);
    await t.server.db.updateTable('idempotency_keys').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('request_key', '=', key).execute();
    // Other content under the expired id is a new request, not DUPLICATE_REQUEST_ID.
    const second = await capture(t, authId, usd('2.00'), { 'service-request-id': key });
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
    const replay = await capture(t, authId, usd('2.00'), { 'service-request-id': key });
    expect(replay.body).toEqual(second.body);
    const claims = await t.server.db.selectFrom('idempotency_keys').select(['expires_at']).where('request_key', '=', key).execute();
    expect(claims).toHaveLength(1);
    expect((claims[0]?.expires_at ?? '') > '2000-01-01T00:00:00.000Z').toBe(true);
  });

  it('a refused request leaves no claim behind', async () => {
    const authId = await authorize(t, '1.00');
    const key = randomUUID();
    expect((await capture(t, authId, usd('5.00'), { 'service-request-id': key })).status).toBe(422);
    expect(await t.server.db.selectFrom('idempotency_keys').select('request_key').where('request_key', '=', key).execute()).toEqual([]);
    // The positive control: an accepted one is remembered.
    expect((await capture(t, authId, usd('1.00'), { 'service-request-id': key })).status).toBe(200);
    expect(await t.server.db.selectFrom('idempotency_keys').select('request_key').where('request_key', '=', key).execute()).toEqual([{ request_key: key }]);
  });
});

