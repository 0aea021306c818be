// GET /v1/reporting/transactions: every balance movement as a transaction detail, every filter and
// its refusals, pages, tenancy, and the answers against the published file.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedApiFor } from '../helpers/openapi.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { capturedPayment, refund, usd } from './payments-helpers.js';

let t: TestServer;
let bob: Merchant;
const ids: Record<string, string> = {};
let window: { start: string; end: string };

type Info = Record<string, any>;

async function search(params: Record<string, string>, token?: string) {
  const query = new URLSearchParams({ start_date: window.start, end_date: window.end, ...params });
  return t.request('GET', `/v1/reporting/transactions?${query.toString()}`, token ? { token } : {});
}

async function infos(params: Record<string, string> = {}, token?: string): Promise<Info[]> {
  const result = await search(params, token);
  expect(result.status, result.text).toBe(200);
  return ((result.body.transaction_details ?? []) as Array<{ transaction_info: Info }>).map((detail) => detail.transaction_info);
}

const validated: Array<{ path: string; status: number; body: unknown }> = [];

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  bob = await t.createMerchant('bob-reporting@example.com');
  const now = Date.now();
  window = { start: new Date(now - 86_400_000).toISOString(), end: new Date(now + 86_400_000).toISOString() };
  // Kept: a partial refund. Gone: a full refund (status V).
  ids.kept = (await capturedPayment(t, '100.00')).captureId;
  ids.gone = (await capturedPayment(t, '50.00')).captureId;
  const partial = await refund(t, ids.kept, usd('10.00'), { 'service-request-id': randomUUID() });
  expect(partial.status, partial.text).toBe(200);
  ids.partialRefund = partial.body.id;
  const full = await refund(t, ids.gone, {}, { 'service-request-id': randomUUID() });
  expect(full.status, full.text).toBe(200);
  ids.fullRefund = full.body.id;
  const topUp = await t.request('POST', '/_payctl/balances', { body: { currency: 'EUR', value: '7.50' } });
  expect(topUp.status, topUp.text).toBe(200);
  // Bob's own capture, which the default merchant must never see.
  const bobAuth = await capturedPaymentFor(bob.token, '33.00');
  ids.bob = bobAuth;
});

afterAll(async () => {
  const api = publishedApiFor('/v1/reporting/transactions')!;
  const violations = validated.map((answer) => api.validate('GET', answer.path, answer.status, answer.body)).filter((violation) => violation !== undefined);
  await t.close();
  expect(violations).toEqual([]);
});

async function capturedPaymentFor(token: string, value: string): Promise<string> {
  const order = await t.request('POST', '/v2/checkout/orders', {
    body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value } }], payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } } },
    headers: { 'service-request-id': randomUUID(), prefer: 'return=representation' },
    token,
  });
  expect(order.status, order.text).toBe(201);
  const captured = await t.request('POST', `/v2/checkout/orders/${order.body.id}/capture`, { headers: { prefer: 'return=representation' }, token });
  expect(captured.status, captured.text).toBe(201);
  return captured.body.purchase_units[0].payments.captures[0].id as string;
}

describe('GET /v1/reporting/transactions', () => {
  it('lists every movement oldest first: event codes, gross, fee, status, related transaction, running balances', async () => {
    const result = await search({});
    validated.push({ path: '/v1/reporting/transactions', status: result.status, body: result.body });
    const list = result.body.transaction_details.map((detail: { transaction_info: Info }) => detail.transaction_info);
    expect(list.map((info: Info) => [info.transaction_event_code, info.transaction_id, info.transaction_status])).toEqual([
      ['T0006', ids.kept, 'S'],
      ['T0006', ids.gone, 'V'],
      ['T1107', ids.partialRefund, 'S'],
      ['T1107', ids.fullRefund, 'S'],
      ['T0300', expect.stringMatching(/^TOPUP/), 'S'],
    ]);
    const [kept, gone, partial, full, topUp] = list as Info[];
    expect(kept!.transaction_amount).toEqual({ currency_code: 'USD', value: '100.00' });
    expect(kept!.fee_amount.value).toMatch(/^-\d+\.\d\d$/);
    expect(partial).toMatchObject({ paypal_reference_id: ids.kept, paypal_reference_id_type: 'TXN', transaction_amount: { value: '-10.00' } });
    expect(full).toMatchObject({ paypal_reference_id: ids.gone, transaction_amount: { value: '-50.00' } });
    // Each ending balance is the one before plus this movement's net (gross + fee).
    const cents = (money: { value: string }) => Math.round(Number(money.value) * 100);
    let running = 0;
    for (const info of [kept, gone, partial, full] as Info[]) {
      running += cents(info.transaction_amount) + (info.fee_amount ? cents(info.fee_amount) : 0);
      expect(cents(info.ending_balance)).toBe(running);
      expect(info.available_balance).toEqual(info.ending_balance);
    }
    expect(topUp).toMatchObject({ transaction_amount: { currency_code: 'EUR', value: '7.50' }, ending_balance: { currency_code: 'EUR', value: '7.50' } });
    const balances = await t.request('GET', '/_payctl/balances');
    expect(balances.body.balances.find((entry: { currency: string }) => entry.currency === 'USD').value).toBe((running / 100).toFixed(2));
    expect(result.body).toMatchObject({ account_number: t.merchant.payer_id, page: 1, total_items: 5, total_pages: 1 });
    expect(result.body.last_refreshed_datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(result.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self']);
  });

  it('filters by id, event code, status, amount range, currency and instrument; a filtered answer has no ending balance', async () => {
    expect((await infos({ transaction_id: ids.gone! })).map((info) => info.transaction_id)).toEqual([ids.gone]);
    expect((await infos({ transaction_type: 'T1107' })).map((info) => info.transaction_id)).toEqual([ids.partialRefund, ids.fullRefund]);
    expect((await infos({ transaction_type: 'T0400' }))).toEqual([]);
    expect((await infos({ transaction_status: 'V' })).map((info) => info.transaction_id)).toEqual([ids.gone]);
    expect((await infos({ transaction_status: 'S' })).map((info) => info.transaction_id)).not.toContain(ids.gone);
    expect((await infos({ transaction_status: 'P' }))).toEqual([]);
    expect((await infos({ transaction_amount: '5000 TO 10000' })).map((info) => info.transaction_id)).toEqual([ids.kept, ids.gone]);
    expect((await infos({ transaction_amount: '[-1000 TO -1000]' })).map((info) => info.transaction_id)).toEqual([ids.partialRefund]);
    expect((await infos({ transaction_currency: 'EUR' })).map((info) => info.transaction_event_code)).toEqual(['T0300']);
    expect((await infos({ payment_instrument_type: 'CREDITCARD' })).map((info) => info.transaction_id)).toEqual([ids.kept, ids.gone]);
    expect((await infos({ payment_instrument_type: 'DEBITCARD' }))).toEqual([]);
    const filtered = await infos({ transaction_currency: 'USD' });
    expect(filtered.every((info) => info.ending_balance === undefined && info.available_balance !== undefined)).toBe(true);
    expect((await infos({ balance_affecting_records_only: 'N' })).length).toBe(5);
  });

  it('gives only transaction_info unless fields asks for more, and refuses unknown fields', async () => {
    const none = await search({ fields: 'payer_info' });
    expect(none.status).toBe(200);
    expect(none.body.transaction_details[0]).toEqual({});
    const all = await search({ fields: 'all' });
    expect(all.body.transaction_details[0].transaction_info.transaction_id).toBe(ids.kept);
    validated.push({ path: '/v1/reporting/transactions', status: all.status, body: all.body });
  });

  it('adds what the order knows of the payer, the shipping and the cart when fields asks for them', async () => {
    const erin = await t.createMerchant('erin-reporting@example.com');
    const order = await t.request('POST', '/v2/checkout/orders', {
      body: {
        intent: 'CAPTURE',
        purchase_units: [
          {
            amount: { currency_code: 'USD', value: '20.00', breakdown: { item_total: { currency_code: 'USD', value: '20.00' } } },
            items: [{ name: 'Widget', sku: 'W-1', quantity: '2', unit_amount: { currency_code: 'USD', value: '10.00' } }],
            shipping: { name: { full_name: 'Ann Buyer' }, address: { address_line_1: '1 Main St', admin_area_2: 'San Jose', admin_area_1: 'CA', postal_code: '95131', country_code: 'US' } },
          },
        ],
        payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } },
      },
      headers: { 'service-request-id': randomUUID(), prefer: 'return=representation' },
      token: erin.token,
    });
    expect(order.status, order.text).toBe(201);
    const captured = await t.request('POST', `/v2/checkout/orders/${order.body.id}/capture`, { headers: { prefer: 'return=representation' }, token: erin.token });
    expect(captured.status, captured.text).toBe(201);
    const result = await search({ fields: 'transaction_info,shipping_info,cart_info,payer_info' }, erin.token);
    validated.push({ path: '/v1/reporting/transactions', status: result.status, body: result.body });
    const [detail] = result.body.transaction_details;
    expect(detail.shipping_info).toEqual({ name: 'Ann Buyer', address: { line1: '1 Main St', city: 'San Jose', state: 'CA', country_code: 'US', postal_code: '95131' } });
    expect(detail.cart_info).toEqual({ item_details: [{ item_code: 'W-1', item_name: 'Widget', item_quantity: '2', item_unit_price: { currency_code: 'USD', value: '10.00' } }] });
    const only = await search({ fields: 'cart_info' }, erin.token);
    expect(Object.keys(only.body.transaction_details[0])).toEqual(['cart_info']);
  });

  const refusals: Array<[string, Record<string, string | undefined>, string, string]> = [
    ['no start_date', { start_date: undefined }, 'start_date', 'MISSING_REQUIRED_PARAMETER'],
    ['no end_date', { end_date: undefined }, 'end_date', 'MISSING_REQUIRED_PARAMETER'],
    ['a date without seconds', { start_date: '2026-11-01T10:00Z' }, 'start_date', 'INVALID_PARAMETER_SYNTAX'],
    ['a date that does not exist', { end_date: '2026-02-30T00:00:00Z' }, 'end_date', 'INVALID_PARAMETER_SYNTAX'],
    ['an end before the start', { start_date: '2026-11-02T00:00:00Z', end_date: '2026-11-01T00:00:00Z' }, 'end_date', 'INVALID_DATE_RANGE'],
    ['a range over 31 days', { start_date: '2026-11-01T00:00:00Z', end_date: '2026-12-02T00:00:01Z' }, 'end_date', 'DATE_RANGE_TOO_LARGE'],
    ['31 days across a zone offset', { start_date: '2026-11-01T00:00:00+02:00', end_date: '2026-12-02T00:00:00Z' }, 'end_date', 'DATE_RANGE_TOO_LARGE'],
    ['an amount that is not a range', { transaction_amount: '500-1000' }, 'transaction_amount', 'INVALID_PARAMETER_SYNTAX'],
    ['an amount with decimals', { transaction_amount: '5.00 TO 10.00' }, 'transaction_amount', 'INVALID_PARAMETER_SYNTAX'],
    ['an amount range upside down', { transaction_amount: '1000 TO 500' }, 'transaction_amount', 'INVALID_AMOUNT_RANGE'],
    ['an unknown event code', { transaction_type: 'T9999' }, 'transaction_type', 'INVALID_PARAMETER_VALUE'],
    ['an unknown status', { transaction_status: 'X' }, 'transaction_status', 'INVALID_PARAMETER_VALUE'],
    ['a lower-case currency', { transaction_currency: 'usd' }, 'transaction_currency', 'INVALID_PARAMETER_SYNTAX'],
    ['an unknown instrument', { payment_instrument_type: 'PAYPAL' }, 'payment_instrument_type', 'INVALID_PARAMETER_VALUE'],
    ['unknown fields', { fields: 'transaction_info,secrets' }, 'fields', 'INVALID_PARAMETER_VALUE'],
    ['balance_affecting_records_only not Y or N', { balance_affecting_records_only: 'yes' }, 'balance_affecting_records_only', 'INVALID_PARAMETER_VALUE'],
    ['page 0', { page: '0' }, 'page', 'INVALID_PARAMETER_SYNTAX'],
    ['a page that is not a number', { page: 'two' }, 'page', 'INVALID_PARAMETER_SYNTAX'],
    ['page_size over 500', { page_size: '501' }, 'page_size', 'INVALID_PARAMETER_SYNTAX'],
    ['a page past the end', { page: '2' }, 'page', 'PAGE_OUT_OF_RANGE'],
    ['a malformed transaction id', { transaction_id: "x'; --" }, 'transaction_id', 'INVALID_PARAMETER_SYNTAX'],
  ];
  it.each(refusals)('refuses %s in the service error shape', async (_label, change, field, issue) => {
    const params: Record<string, string> = { start_date: window.start, end_date: window.end };
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete params[name];
      else params[name] = value;
    }
    const result = await t.request('GET', `/v1/reporting/transactions?${new URLSearchParams(params).toString()}`);
    validated.push({ path: '/v1/reporting/transactions', status: result.status, body: result.body });
    expect(result.status, result.text).toBe(400);
    expect(result.body).toMatchObject({ name: 'INVALID_REQUEST', details: [{ field, issue, location: 'query' }] });
    expect(typeof result.body.debug_id).toBe('string');
  });

  it('accepts exactly 31 days, and a given parameter twice is refused', async () => {
    const exact = await t.request('GET', '/v1/reporting/transactions?start_date=2025-01-01T00:00:00Z&end_date=2025-02-01T00:00:00Z');
    validated.push({ path: '/v1/reporting/transactions', status: exact.status, body: exact.body });
    expect(exact.status, exact.text).toBe(200);
    expect(exact.body).toMatchObject({ total_items: 0, total_pages: 0, page: 1 });
    expect(exact.body.transaction_details).toBeUndefined();
    const twice = await t.request('GET', `/v1/reporting/transactions?start_date=${window.start}&end_date=${window.end}&page=1&page=2`);
    expect(twice.status).toBe(400);
    expect(twice.body.details[0]).toMatchObject({ field: 'page', issue: 'INVALID_PARAMETER_SYNTAX' });
  });

  it('pages: sizes, totals, links, the last page, and one past it', async () => {
    const first = await search({ page_size: '2' });
    expect(first.body).toMatchObject({ page: 1, total_items: 5, total_pages: 3 });
    expect(first.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'first', 'last', 'next']);
    const next = first.body.links.find((link: { rel: string }) => link.rel === 'next').href as string;
    const second = await t.request('GET', new URL(next).pathname + new URL(next).search);
    expect(second.body.page).toBe(2);
    expect(second.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'first', 'last', 'next', 'prev']);
    const last = await search({ page_size: '2', page: '3' });
    expect(last.body.transaction_details).toHaveLength(1);
    expect(last.body.links.map((link: { rel: string }) => link.rel)).toEqual(['self', 'first', 'last', 'prev']);
    const pages = [first, second, last].flatMap((page) => page.body.transaction_details.map((detail: { transaction_info: Info }) => detail.transaction_info.transaction_id));
    expect(pages).toEqual((await infos()).map((info) => info.transaction_id));
    const past = await search({ page_size: '2', page: '4' });
    expect(past.status).toBe(400);
    expect(past.body.details[0]).toMatchObject({ field: 'page', issue: 'PAGE_OUT_OF_RANGE', value: '4' });
    const exactFit = await search({ page_size: '5', page: '2' });
    expect(exactFit.status).toBe(400);
  });

  it('counts and pages a window of several days (whole days counted by day) as a filtered search does', async () => {
    const dana = await t.createMerchant('dana-reporting@example.com');
    const times: string[] = [];
    for (let n = 0; n < 9; n++) {
      const topUp = await t.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: `${n + 1}.00` }, token: dana.token });
      expect(topUp.status).toBe(200);
      times.push((await t.request('GET', '/v1/reporting/balances', { token: dana.token })).body.last_refresh_time);
      await t.advanceClock(7 * 3600, dana.token);
    }
    const first = Date.parse(times[0]!);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const windows = [
      [first - 1000, first + 4 * 86_400_000],
      [first + 1000, first + 40 * 3600_000],
      [Date.parse(`${day(first + 86_400_000)}T00:00:00Z`), first + 3 * 86_400_000],
      [Date.parse(`${day(first + 86_400_000)}T00:00:00Z`), Date.parse(`${day(first + 2 * 86_400_000)}T00:00:00Z`)],
    ];
    for (const [from, to] of windows) {
      const params = { start_date: new Date(from!).toISOString(), end_date: new Date(to!).toISOString() };
      const byDays = await t.request('GET', `/v1/reporting/transactions?${new URLSearchParams(params)}`, { token: dana.token });
      const byRows = await t.request('GET', `/v1/reporting/transactions?${new URLSearchParams({ ...params, transaction_currency: 'USD' })}`, { token: dana.token });
      const expected = times.filter((time) => Date.parse(time) >= from! && Date.parse(time) < to!).length;
      expect(byDays.body.total_items, JSON.stringify(params)).toBe(expected);
      expect(byRows.body.total_items).toBe(expected);
      const all = (byDays.body.transaction_details ?? []).map((detail: { transaction_info: Info }) => detail.transaction_info.transaction_id);
      for (const size of [1, 2, 4]) {
        const paged: string[] = [];
        for (let page = 1; page <= Math.ceil(expected / size); page++) {
          const answer = await t.request('GET', `/v1/reporting/transactions?${new URLSearchParams({ ...params, page: String(page), page_size: String(size) })}`, { token: dana.token });
          expect(answer.status, answer.text).toBe(200);
          paged.push(...answer.body.transaction_details.map((detail: { transaction_info: Info }) => detail.transaction_info.transaction_id));
        }
        expect(paged, `${JSON.stringify(params)} by ${size}`).toEqual(all);
      }
    }
  });

  it('is scoped to the caller: another merchant sees only its own', async () => {
    const theirs = await infos({}, bob.token);
    expect(theirs.map((info) => info.transaction_id)).toEqual([ids.bob]);
    expect(await infos({ transaction_id: ids.kept! }, bob.token)).toEqual([]);
    expect((await infos({ transaction_id: ids.bob! })).length).toBe(0);
    const anonymous = await t.request('GET', `/v1/reporting/transactions?start_date=${window.start}&end_date=${window.end}`, { token: null });
    expect(anonymous.status).toBe(401);
  });
});
