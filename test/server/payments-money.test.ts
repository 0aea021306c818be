// Amounts to the cent: capture limits, refunds, fees, zero-decimal currencies, the largest amount.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { percentOf } from '../../src/lib/money.js';
import { recordMovement } from '../../src/server/ledger/store.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, capture, capturedPayment, refund, usd } from './payments-helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

const issueOf = (result: { body: any }) => result.body?.details?.[0]?.issue;
const money = (currency_code: string, value: string) => ({ amount: { currency_code, value } });

async function authorization(id: string) {
  return (await t.request('GET', `/v2/payments/authorizations/${id}`)).body;
}

async function balance(accountId = t.merchant.payer_id, currency = 'USD'): Promise<bigint> {
  const row = await t.server.db
    .selectFrom('balances')
    .select('available_minor')
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row?.available_minor ?? 0n;
}

describe('partial captures', () => {
  it('sum exactly to the authorization, then refuse more', async () => {
    const id = await authorize(t, '100.00');
    const statuses: string[] = [];
    for (const value of ['30.00', '30.00', '40.00']) {
      const result = await capture(t, id, usd(value));
      expect(result.status).toBe(200);
      expect(result.body.amount).toEqual({ currency_code: 'USD', value });
      statuses.push((await authorization(id)).status);
    }
    expect(statuses).toEqual(['PARTIALLY_CAPTURED', 'PARTIALLY_CAPTURED', 'CAPTURED']);
    const more = await capture(t, id, usd('0.01'));
    expect(more.status).toBe(422);
    expect(issueOf(more)).toBe('AUTHORIZATION_ALREADY_CAPTURED');
  });

  it('may reach exactly the over-capture limit (115%) and not one cent more', async () => {
    const exact = await authorize(t, '100.00');
    expect((await capture(t, exact, usd('60.00'))).status).toBe(200);
    const last = await capture(t, exact, usd('55.00'));
    expect(last.status).toBe(200);
    expect((await authorization(exact)).status).toBe('CAPTURED');

    const over = await authorize(t, '100.00');
    expect((await capture(t, over, usd('60.00'))).status).toBe(200);
    const refused = await capture(t, over, usd('55.01'));
    expect(refused.status).toBe(422);
    expect(issueOf(refused)).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
    expect(refused.body.details[0].field).toBe('/amount/value');
    expect((await authorization(over)).status).toBe('PARTIALLY_CAPTURED');

    const single = await authorize(t, '100.00');
    expect(issueOf(await capture(t, single, usd('115.01')))).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
    expect((await capture(t, single, usd('115.00'))).status).toBe(200);
  });

  it('final_capture closes the authorization', async () => {
    const id = await authorize(t, '100.00');
    const first = await capture(t, id, { ...usd('10.00'), final_capture: true });
    expect(first.body.final_capture).toBe(true);
    const auth = await authorization(id);
    expect(auth.status).toBe('CAPTURED');
    expect(auth.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'up']);
    expect(issueOf(await capture(t, id, usd('10.00')))).toBe('AUTHORIZATION_ALREADY_CAPTURED');
  });

  it('an empty body captures what is left', async () => {
    const id = await authorize(t, '100.00');
    await capture(t, id, usd('12.34'));
    const rest = await capture(t, id, {});
    expect(rest.body.amount.value).toBe('87.66');
    expect(rest.body.final_capture).toBe(true);
  });

  it('refuses captures beyond the configured count (maxCapturesPerAuthorization)', async () => {
    const few = await startTestServer({ memory: true, config: { maxCapturesPerAuthorization: 3 } });
    try {
      const id = await authorize(few, '100.00');
      const declined = await capture(few, id, usd('1.00'), { 'service-mock-response': '{"mock_application_codes":"INSTRUMENT_DECLINED"}' });
      expect(declined.body.status).toBe('DECLINED');
      for (let i = 0; i < 3; i += 1) expect((await capture(few, id, usd('0.01'))).status).toBe(200);
      const refused = await capture(few, id, usd('0.01'));
      expect(refused.body.details[0].issue).toBe('MAX_CAPTURE_COUNT_EXCEEDED');
      expect((await few.request('GET', `/v2/payments/authorizations/${id}`)).body.status).toBe('PARTIALLY_CAPTURED');
    } finally {
      await few.close();
    }
  });

  it('follows the configured over-capture percentage', async () => {
    const strict = await startTestServer({ memory: true, config: { overCapturePercent: 100 } });
    try {
      const id = await authorize(strict, '100.00');
      expect(issueOf(await capture(strict, id, usd('100.01')))).toBe('MAX_CAPTURE_AMOUNT_EXCEEDED');
      expect((await capture(strict, id, usd('100.00'))).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('capture request checks', () => {
  const cases: Array<[string, unknown, number, string, string?]> = [
    ['another currency', money('EUR', '10.00'), 422, 'AUTH_CAPTURE_CURRENCY_MISMATCH', '/amount/currency_code'],
    ['zero', usd('0.00'), 422, 'CANNOT_BE_ZERO_OR_NEGATIVE', '/amount/value'],
    ['negative', usd('-1.00'), 422, 'CANNOT_BE_ZERO_OR_NEGATIVE', '/amount/value'],
    ['three decimals', usd('1.001'), 422, 'DECIMAL_PRECISION', '/amount/value'],
    ['not a number', usd('ten'), 400, 'INVALID_PARAMETER_SYNTAX', '/amount/value'],
    ['16 integer digits', usd('1000000000000000.00'), 422, 'MAX_VALUE_EXCEEDED', '/amount/value'],
    ['invoice_id of 128', { invoice_id: 'x'.repeat(128) }, 400, 'INVALID_STRING_MAX_LENGTH', '/invoice_id'],
    ['empty note_to_payer', { note_to_payer: '' }, 400, 'INVALID_STRING_LENGTH', '/note_to_payer'],
    ['soft_descriptor of 23', { soft_descriptor: 'x'.repeat(23) }, 400, 'INVALID_STRING_MAX_LENGTH', '/soft_descriptor'],
    ['final_capture as text', { final_capture: 'yes' }, 400, 'INVALID_PARAMETER_SYNTAX', '/final_capture'],
    [
      'breakdown that does not add up',
      { amount: { currency_code: 'USD', value: '10.00', breakdown: { item_total: { currency_code: 'USD', value: '9.00' } } } },
      422,
      'AMOUNT_MISMATCH',
      '/amount/value',
    ],
  ];
  it.each(cases)('%s', async (_name, body, status, issue, field) => {
    const id = await authorize(t, '100.00');
    const result = await capture(t, id, body);
    expect(result.status).toBe(status);
    expect(issueOf(result)).toBe(issue);
    if (field) expect(result.body.details[0].field).toBe(field);
    expect((await authorization(id)).status).toBe('CREATED');
  });

  it('refuses an invoice_id already used by a capture', async () => {
    const first = await authorize(t, '100.00');
    expect((await capture(t, first, { ...usd('1.00'), invoice_id: 'INV-DUP-1' })).status).toBe(200);
    const second = await authorize(t, '100.00');
    const duplicate = await capture(t, second, { ...usd('1.00'), invoice_id: 'INV-DUP-1' });
    expect(issueOf(duplicate)).toBe('DUPLICATE_INVOICE_ID');
  });
});

describe('refunds', () => {
  it('refund to the cent, with the fee returned in proportion and exactly in total', async () => {
    const { captureId } = await capturedPayment(t, '100.00');
    const captured = (await t.request('GET', `/v2/payments/captures/${captureId}`)).body;
    expect(captured.seller_receivable_breakdown).toEqual({
      gross_amount: { currency_code: 'USD', value: '100.00' },
      paypal_fee: { currency_code: 'USD', value: '3.98' },
      net_amount: { currency_code: 'USD', value: '96.02' },
    });
    const fees: string[] = [];
    const totals: string[] = [];
    for (const value of ['33.33', '33.33']) {
      const result = await refund(t, captureId, usd(value));
      expect(result.status).toBe(200);
      fees.push(result.body.seller_payable_breakdown.paypal_fee.value);
      totals.push(result.body.seller_payable_breakdown.total_refunded_amount.value);
      expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).body.status).toBe('PARTIALLY_REFUNDED');
    }
    const exceeded = await refund(t, captureId, usd('33.35'));
    expect(issueOf(exceeded)).toBe('REFUND_AMOUNT_EXCEEDED');
    const rest = await refund(t, captureId, {});
    expect(rest.body.amount.value).toBe('33.34');
    fees.push(rest.body.seller_payable_breakdown.paypal_fee.value);
    totals.push(rest.body.seller_payable_breakdown.total_refunded_amount.value);
    // 3.98 x 33.33 / 100 = 1.3265 -> 1.33 twice; the last refund returns what is left: 1.32.
    expect(fees).toEqual(['1.33', '1.33', '1.32']);
    expect(totals).toEqual(['33.33', '66.66', '100.00']);
    expect(rest.body.seller_payable_breakdown.net_amount.value).toBe('32.02');
    const after = (await t.request('GET', `/v2/payments/captures/${captureId}`)).body;
    expect(after.status).toBe('REFUNDED');
    expect(after.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'up']);
    expect(issueOf(await refund(t, captureId, usd('0.01')))).toBe('CAPTURE_FULLY_REFUNDED');
  });

  it('keeps the balance equal to captured net minus refunded net', async () => {
    const merchant = await t.createMerchant();
    const authId = await authorize(t, '250.00', 'USD', { token: merchant.token });
    const captured = await capture(t, authId, {}, {}, merchant.token);
    expect(await balance(merchant.payer_id)).toBe(25000n - (percentOf(25000n, 349n) + 49n));
    await refund(t, captured.body.id, usd('100.00'), {}, merchant.token);
    await refund(t, captured.body.id, {}, {}, merchant.token);
    expect(await balance(merchant.payer_id)).toBe(0n);
  });

  const cases: Array<[string, unknown, number, string]> = [
    ['another currency', money('EUR', '1.00'), 422, 'REFUND_CAPTURE_CURRENCY_MISMATCH'],
    ['zero', usd('0'), 422, 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['three decimals', usd('0.001'), 422, 'DECIMAL_PRECISION'],
    ['more than captured', usd('10.01'), 422, 'REFUND_AMOUNT_EXCEEDED'],
    ['custom_id of 128', { custom_id: 'c'.repeat(128) }, 400, 'INVALID_STRING_MAX_LENGTH'],
    ['custom_id with a space and !', { custom_id: 'a b!' }, 400, 'INVALID_PARAMETER_SYNTAX'],
    ['custom_id with a colon', { custom_id: 'a:b' }, 400, 'INVALID_PARAMETER_SYNTAX'],
    ['empty invoice_id', { invoice_id: '' }, 400, 'INVALID_STRING_LENGTH'],
    ['note_to_payer of 256', { note_to_payer: 'n'.repeat(256) }, 400, 'INVALID_STRING_MAX_LENGTH'],
  ];
  it.each(cases)('refuses %s', async (_name, body, status, issue) => {
    const { captureId } = await capturedPayment(t, '10.00');
    const result = await refund(t, captureId, body);
    expect(result.status).toBe(status);
    expect(issueOf(result)).toBe(issue);
    expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).body.status).toBe('COMPLETED');
  });

  it('refuses an invoice_id already used by a refund, and an eleventh refund', async () => {
    const { captureId } = await capturedPayment(t, '10.00');
    expect((await refund(t, captureId, { ...usd('0.01'), invoice_id: 'R-INV-1', custom_id: 'C-1_a.b,c', note_to_payer: 'sorry' })).status).toBe(200);
    expect(issueOf(await refund(t, captureId, { ...usd('0.01'), invoice_id: 'R-INV-1' }))).toBe('DUPLICATE_INVOICE_ID');
    for (let i = 0; i < 9; i += 1) expect((await refund(t, captureId, usd('0.01'))).status).toBe(200);
    expect(issueOf(await refund(t, captureId, usd('0.01')))).toBe('MAX_NUMBER_OF_REFUNDS_EXCEEDED');
  });

  it('keeps invoice_id, custom_id and note_to_payer on the refund', async () => {
    const { captureId } = await capturedPayment(t, '10.00');
    const result = await refund(t, captureId, { ...usd('1.00'), invoice_id: 'R-INV-2', custom_id: 'C-2', note_to_payer: 'Damaged' });
    const got = (await t.request('GET', `/v2/payments/refunds/${result.body.id}`)).body;
    expect(got).toMatchObject({ invoice_id: 'R-INV-2', custom_id: 'C-2', note_to_payer: 'Damaged', status: 'COMPLETED' });
    expect(got.links).toEqual([
      { href: `${t.url}/v2/payments/refunds/${result.body.id}`, rel: 'self', method: 'GET' },
      { href: `${t.url}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' },
    ]);
  });

  // Payments asks the disputes domain through the interface wired in deps.domains: a stand-in here.
  const wiredDisputes = () => t.server.deps.domains.disputes;
  let realDisputes: ReturnType<typeof wiredDisputes>;
  beforeAll(() => {
    realDisputes = wiredDisputes();
  });
  afterEach(() => {
    t.server.deps.domains.disputes = realDisputes;
  });

  it('refuses partial refunds of a disputed capture, allows the full refund', async () => {
    const { captureId } = await capturedPayment(t, '20.00');
    t.server.deps.domains.disputes = {
      isCaptureDisputed: async (ctx, id) => ctx.accountId === t.merchant.payer_id && id === captureId,
    };
    expect(issueOf(await refund(t, captureId, usd('5.00')))).toBe('TRANSACTION_DISPUTED');
    const full = await refund(t, captureId, {});
    expect(full.status).toBe(200);
    expect(full.body.amount.value).toBe('20.00');
  });

  it('refuses refunds after 180 days and when the balance cannot cover them', async () => {
    const merchant = await t.createMerchant();
    const authId = await authorize(t, '10.00', 'USD', { token: merchant.token });
    const captured = await capture(t, authId, {}, {}, merchant.token);
    await t.server.deps.storage.transaction({ name: 'test' }, (trx) =>
      recordMovement(trx, { accountId: merchant.payer_id, currency: 'USD', amountMinor: -900n, kind: 'PAYOUT', referenceId: 'X', createTime: '2026-01-01T00:00:00Z' }),
    );
    expect(issueOf(await refund(t, captured.body.id, {}, {}, merchant.token))).toBe('REFUND_FAILED_INSUFFICIENT_FUNDS');
    await t.advanceClock(180 * 86_400, merchant.token);
    const token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    expect(issueOf(await refund(t, captured.body.id, usd('0.01'), {}, token))).toBe('REFUND_TIME_LIMIT_EXCEEDED');
  });
});

describe('currencies and sizes', () => {
  const fees: Array<[string, string, string, string]> = [
    ['USD', '100.00', '3.98', '96.02'],
    ['EUR', '10.00', '0.74', '9.26'],
    ['GBP', '1.00', '0.32', '0.68'],
    ['JPY', '1000', '84', '916'],
    ['CAD', '0.10', '0.10', '0.00'],
    ['HUF', '1000', '35', '965'],
  ];
  it.each(fees)('fee schedule: %s %s -> fee %s, net %s', async (currency, value, fee, net) => {
    const { captureId } = await capturedPayment(t, value, currency);
    const got = (await t.request('GET', `/v2/payments/captures/${captureId}`)).body;
    expect(got.seller_receivable_breakdown.paypal_fee).toEqual({ currency_code: currency, value: fee });
    expect(got.seller_receivable_breakdown.net_amount).toEqual({ currency_code: currency, value: net });
  });

  it('JPY takes no decimals', async () => {
    const id = await authorize(t, '1000', 'JPY');
    const auth = await authorization(id);
    expect(auth.amount).toEqual({ currency_code: 'JPY', value: '1000' });
    const decimals = await capture(t, id, money('JPY', '1.5'));
    expect(decimals.status).toBe(422);
    expect(issueOf(decimals)).toBe('DECIMALS_NOT_SUPPORTED');
    const part = await capture(t, id, money('JPY', '333'));
    expect(part.body.amount).toEqual({ currency_code: 'JPY', value: '333' });
    const rest = await capture(t, id, {});
    expect(rest.body.amount.value).toBe('667');
    const refunded = await refund(t, part.body.id, money('JPY', '111'));
    expect(refunded.body.amount).toEqual({ currency_code: 'JPY', value: '111' });
    expect(refunded.body.seller_payable_breakdown.total_refunded_amount.value).toBe('111');
  });

  it('999999999999999.99 round-trips exactly through authorization, capture and refunds', async () => {
    const max = '999999999999999.99';
    const id = await authorize(t, max);
    expect((await authorization(id)).amount.value).toBe(max);
    const captured = await capture(t, id, {});
    expect(captured.body.amount.value).toBe(max);
    const gross = 99999999999999999n;
    const fee = percentOf(gross, 349n) + 49n;
    const format = (minor: bigint) => `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;
    expect(captured.body.seller_receivable_breakdown.paypal_fee.value).toBe(format(fee));
    expect(captured.body.seller_receivable_breakdown.net_amount.value).toBe(format(gross - fee));
    const cent = await refund(t, captured.body.id, usd('0.01'));
    expect(cent.body.amount.value).toBe('0.01');
    const rest = await refund(t, captured.body.id, {});
    expect(rest.body.amount.value).toBe('999999999999999.98');
    expect(rest.body.seller_payable_breakdown.total_refunded_amount.value).toBe(max);
    expect(BigInt(cent.body.seller_payable_breakdown.paypal_fee.value.replace('.', '')) + BigInt(rest.body.seller_payable_breakdown.paypal_fee.value.replace('.', ''))).toBe(fee);
  });
});
