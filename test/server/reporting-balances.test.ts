// GET /v1/reporting/balances: per currency, the ledger's balance at a time, across captures, refunds,
// a top-up, a payout and a lost dispute; and the movements of payouts and disputes in the search.

import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedApiFor } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { capturedPayment, refund, usd } from './payments-helpers.js';

let t: TestServer;
const validated: Array<{ path: string; status: number; body: unknown }> = [];

beforeAll(async () => {
  t = await startTestServer({ memory: true });
});

afterAll(async () => {
  const api = publishedApiFor('/v1/reporting/balances')!;
  const violations = validated.map((answer) => api.validate('GET', answer.path, answer.status, answer.body)).filter((violation) => violation !== undefined);
  await t.close();
  expect(violations).toEqual([]);
});

async function balances(query = '', token?: string) {
  const result = await t.request('GET', `/v1/reporting/balances${query}`, token ? { token } : {});
  validated.push({ path: '/v1/reporting/balances', status: result.status, body: result.body });
  expect(result.status, result.text).toBe(200);
  return result.body;
}

/** The ledger's own sum of movements up to a time (what the audit checks the balances against). */
async function ledgerSum(time: string, currency = 'USD'): Promise<bigint | undefined> {
  const stored = new Date(time).toISOString();
  const rows = await sql<{ total: bigint | null; n: bigint }>`SELECT SUM(amount_minor) AS total, COUNT(*) AS n FROM balance_movements
    WHERE account_id = ${t.merchant.payer_id} AND currency = ${currency} AND create_time <= ${stored}`.execute(t.server.db);
  const row = rows.rows[0]!;
  return BigInt(row.n) === 0n ? undefined : BigInt(row.total ?? 0);
}

const minor = (value: string) => BigInt(value.replace('.', ''));

/**
 * The merchant's clock moves a minute on; the time a second before it is after the last step and
 * before the next (whose movements may be stamped with the same whole second as this read).
 */
async function checkpoint(): Promise<string> {
  await t.advanceClock(60);
  const now = Date.parse((await balances()).last_refresh_time as string);
  return new Date(now - 1000).toISOString().replace('.000Z', 'Z');
}

async function loseDispute(captureId: string): Promise<void> {
  const opened = await t.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captureId, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' } });
  expect(opened.status, opened.text).toBe(201);
  const id = opened.body.dispute_id as string;
  const escalated = await t.request('POST', `/_payctl/disputes/${id}/buyer`, { body: { action: 'escalate', note: 'Please decide.' } });
  expect(escalated.status, escalated.text).toBe(200);
  const form = new FormData();
  form.append('input', JSON.stringify({ evidences: [{ evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: { tracking_info: [{ carrier_name: 'FEDEX', tracking_number: '122533485' }] }, notes: 'Sent.' }] }));
  form.append('evidence-file', new Blob([Buffer.from('%PDF-1.4\n%%EOF\n')], { type: 'application/pdf' }), 'receipt.pdf');
  const evidence = await fetch(`${t.url}/v1/customer/disputes/${id}/provide-evidence`, { method: 'POST', headers: { authorization: `Bearer ${t.merchant.token}` }, body: form });
  expect(evidence.status, await evidence.text()).toBe(200);
  const decided = await t.request('POST', `/v1/customer/disputes/${id}/adjudicate`, { body: { adjudication_outcome: 'BUYER_FAVOR' } });
  expect(decided.status, decided.text).toBe(200);
}

describe('GET /v1/reporting/balances', () => {
  it('equals the ledger at every time across captures, refunds, a top-up, a payout and a lost dispute', async () => {
    const before = await checkpoint();
    const times: string[] = [];
    const { captureId } = await capturedPayment(t, '100.00');
    times.push(await checkpoint());
    expect((await refund(t, captureId, usd('10.00'), { 'service-request-id': randomUUID() })).status).toBe(200);
    times.push(await checkpoint());
    expect((await t.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: '500.00' } })).status).toBe(200);
    times.push(await checkpoint());
    const payout = await t.request('POST', '/v1/payments/payouts', {
      body: { sender_batch_header: { sender_batch_id: `b-${randomUUID()}`, recipient_type: 'EMAIL' }, items: [{ receiver: 'someone@example.com', amount: { currency: 'USD', value: '20.00' } }] },
    });
    expect(payout.status, payout.text).toBe(201);
    await t.server.deps.scheduler.runAll();
    times.push(await checkpoint());
    const lost = await capturedPayment(t, '30.00');
    times.push(await checkpoint());
    await loseDispute(lost.captureId);
    times.push(await checkpoint());

    // Nothing moved yet: no balance listed.
    expect((await balances(`?as_of_time=${before}`)).balances).toEqual([]);
    const totals: bigint[] = [];
    for (const time of times) {
      const body = await balances(`?as_of_time=${time}&currency_code=USD`);
      expect(body.as_of_time).toBe(time);
      const [usdBalance] = body.balances;
      const expected = await ledgerSum(time);
      expect(minor(usdBalance.total_balance.value), time).toBe(expected);
      expect(usdBalance.available_balance).toEqual(usdBalance.total_balance);
      expect(usdBalance.withheld_balance).toEqual({ currency_code: 'USD', value: '0.00' });
      totals.push(expected!);
    }
    // Every step moved the balance; the lost dispute took back what its capture added.
    expect(new Set(totals).size).toBe(times.length - 1);
    expect(totals[2]! - totals[1]!).toBe(50_000n);
    expect(totals[4]!).toBeGreaterThan(totals[3]!);
    expect(totals[5]).toBe(totals[3]);
    // Now: the same as the ledger's balance row and the audit's totals, with the audit clean.
    const now = await balances();
    const sandbox = await t.request('GET', '/_payctl/balances');
    expect(now.balances[0].total_balance.value).toBe(sandbox.body.balances.find((entry: { currency: string }) => entry.currency === 'USD').value);
    const audit = await t.request('GET', '/_payctl/audit');
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).not.toMatch(/"ok":false/);
  });

  it('lists the payout, its fee and the dispute reversal in the search, with their event codes', async () => {
    // One reading of the clock for both ends: two could put them a millisecond past 31 days apart.
    const now = Date.now();
    const start = new Date(now - 86_400_000).toISOString();
    const end = new Date(now + 30 * 86_400_000).toISOString();
    const result = await t.request('GET', `/v1/reporting/transactions?start_date=${start}&end_date=${end}`);
    expect(result.status, result.text).toBe(200);
    const codes = result.body.transaction_details.map((detail: { transaction_info: { transaction_event_code: string } }) => detail.transaction_info.transaction_event_code);
    expect(codes).toEqual(['T0006', 'T1107', 'T0300', 'T0400', 'T0100', 'T0006', 'T1106']);
    const reversal = result.body.transaction_details.at(-1).transaction_info;
    const lostCapture = result.body.transaction_details.at(-2).transaction_info;
    expect(reversal.paypal_reference_id).toBe(lostCapture.transaction_id);
    expect(lostCapture.transaction_status).toBe('V');
    expect(reversal.transaction_amount.value).toBe('-30.00');
  });

  it('refuses a malformed as_of_time or currency_code, and is scoped to the caller', async () => {
    const bad = await t.request('GET', '/v1/reporting/balances?as_of_time=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ name: 'INVALID_REQUEST', details: [{ field: 'as_of_time', issue: 'INVALID_PARAMETER_SYNTAX', location: 'query' }] });
    const currency = await t.request('GET', '/v1/reporting/balances?currency_code=US');
    expect(currency.status).toBe(400);
    expect(currency.body.details[0]).toMatchObject({ field: 'currency_code', issue: 'INVALID_PARAMETER_SYNTAX' });
    const carol = await t.createMerchant('carol-balances@example.com');
    const theirs = await balances('', carol.token);
    expect(theirs).toMatchObject({ account_id: carol.payer_id, balances: [] });
    expect((await balances('?currency_code=EUR')).balances).toEqual([]);
  });
});
