// The decimals table: every amount, quantity and percent is read by one strict parser at the edge.
// Malformed text (leading zeros, a bare point, an exponent, negative zero), a sign the field does not
// take, excess decimals and values out of range are each a 400 naming the field and the issue, with
// nothing written; the valid values beside them are accepted. No combination answers 500.

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { changedTables, snapshot } from './fixtures/http.js';

const t: TestServer = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
const figures = { refused: 0, accepted: 0 };

afterAll(async () => {
  await t.close();
  console.log(`decimals table: ${figures.refused} malformed or out-of-rule values refused with 400 naming field and issue, ${figures.accepted} valid values accepted`);
});

const usd = (value: string) => ({ currency_code: 'USD', value });
type Json = Record<string, unknown>;

/** An invoice with one item; `item` and `extra` replace parts of it. */
const invoice = (item: Json = {}, extra: Json = {}): Json => ({
  detail: { currency_code: 'USD' },
  items: [{ name: 'Widget', quantity: '2', unit_amount: usd('10.00'), ...item }],
  ...extra,
});
const template = (item: Json): Json => ({ name: `T-${randomUUID()}`, template_info: { detail: { currency_code: 'USD' }, items: [invoice(item).items as unknown as Json].flat() } });
const breakdown = (parts: Json) => ({ amount: { breakdown: parts } });

interface Row {
  label: string;
  path: string;
  body: Json;
  /** The field and issue of a refusal; undefined for a value that must be accepted. */
  field?: string;
  issue?: string;
}

const INVOICES = '/v2/invoicing/invoices';
const TEMPLATES = '/v2/invoicing/templates';
const BALANCES = '/_payctl/balances';
const ORDERS = '/v2/checkout/orders';
const PAYOUTS = '/v1/payments/payouts';

const refused = (label: string, path: string, body: Json, field: string, issue: string): Row => ({ label, path, body, field, issue });
const accepted = (label: string, path: string, body: Json): Row => ({ label, path, body });

const SYNTAX = 'INVALID_PARAMETER_SYNTAX';
const MALFORMED = ['-0', '-0.00', '00001.00', '01', '.5', '5.', '+1', '1e3', ' 1', '1 ', '0x10', '1_000', '1,5', '１', '--1', '', 'NaN', 'Infinity'];

const order = (value: string): Json => ({ intent: 'CAPTURE', purchase_units: [{ amount: usd(value) }] });
const payout = (value: string): Json => ({ sender_batch_header: { sender_batch_id: randomUUID(), recipient_type: 'EMAIL' }, items: [{ receiver: 'r@example.com', amount: { currency: 'USD', value } }] });

const ROWS: Row[] = [
  // Quantity: positive, at most 5 decimals, at most 1,000,000.
  refused('quantity -1 with a tax and discounts (was 500)', INVOICES, invoice({ quantity: '-1', tax: { name: 'VAT', percent: '10' }, discount: { percent: '10' } }, breakdown({ discount: { invoice_discount: { percent: '5' } } })), '/items/0/quantity', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  refused('quantity -1.00', INVOICES, invoice({ quantity: '-1.00' }), '/items/0/quantity', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  refused('quantity 0', INVOICES, invoice({ quantity: '0' }), '/items/0/quantity', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  refused('quantity 0.000001', INVOICES, invoice({ quantity: '0.000001' }), '/items/0/quantity', 'DECIMAL_PRECISION'),
  refused('quantity 1000000.00001', INVOICES, invoice({ quantity: '1000000.00001' }), '/items/0/quantity', 'INVALID_PARAMETER_VALUE'),
  ...MALFORMED.filter((text) => text.length <= 14).map((text) => refused(`quantity ${JSON.stringify(text)}`, INVOICES, invoice({ quantity: text }), '/items/0/quantity', SYNTAX)),
  refused('template quantity -1.00', TEMPLATES, template({ quantity: '-1.00' }), '/template_info/items/0/quantity', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  refused('template quantity 00001.00', TEMPLATES, template({ quantity: '00001.00' }), '/template_info/items/0/quantity', SYNTAX),
  accepted('quantity 0.00001', INVOICES, invoice({ quantity: '0.00001' })),
  accepted('quantity 1000000', INVOICES, invoice({ quantity: '1000000', unit_amount: usd('1.00') })),
  accepted('quantity 1.50000', INVOICES, invoice({ quantity: '1.50000' })),
  accepted('template quantity 2.5', TEMPLATES, template({ quantity: '2.5' })),
  // Unit amount: not negative, the currency's decimals, 15 integer digits.
  refused('unit amount -1.00', INVOICES, invoice({ unit_amount: usd('-1.00') }), '/items/0/unit_amount/value', 'CANNOT_BE_NEGATIVE'),
  refused('unit amount 0.001', INVOICES, invoice({ unit_amount: usd('0.001') }), '/items/0/unit_amount/value', 'DECIMAL_PRECISION'),
  refused('unit amount 16 integer digits', INVOICES, invoice({ quantity: '1', unit_amount: usd('1000000000000000.00') }), '/items/0/unit_amount/value', 'MAX_VALUE_EXCEEDED'),
  ...MALFORMED.map((text) => refused(`unit amount ${JSON.stringify(text)}`, INVOICES, invoice({ unit_amount: usd(text) }), '/items/0/unit_amount/value', SYNTAX)),
  accepted('unit amount 0', INVOICES, invoice({ unit_amount: usd('0') })),
  accepted('unit amount 10.5', INVOICES, invoice({ unit_amount: usd('10.5') })),
  // Percentages (item tax, item discount, invoice discount, shipping tax): 0 to 100, 5 decimals.
  refused('tax -1', INVOICES, invoice({ tax: { name: 'VAT', percent: '-1' } }), '/items/0/tax/percent', 'CANNOT_BE_NEGATIVE'),
  refused('tax -0', INVOICES, invoice({ tax: { name: 'VAT', percent: '-0' } }), '/items/0/tax/percent', SYNTAX),
  refused('tax 010', INVOICES, invoice({ tax: { name: 'VAT', percent: '010' } }), '/items/0/tax/percent', SYNTAX),
  refused('tax 100.00001', INVOICES, invoice({ tax: { name: 'VAT', percent: '100.00001' } }), '/items/0/tax/percent', 'INVALID_PARAMETER_VALUE'),
  refused('tax 0.000001', INVOICES, invoice({ tax: { name: 'VAT', percent: '0.000001' } }), '/items/0/tax/percent', 'DECIMAL_PRECISION'),
  refused('item discount 101', INVOICES, invoice({ discount: { percent: '101' } }), '/items/0/discount/percent', 'INVALID_PARAMETER_VALUE'),
  refused('invoice discount .5', INVOICES, invoice({}, breakdown({ discount: { invoice_discount: { percent: '.5' } } })), '/amount/breakdown/discount/invoice_discount/percent', SYNTAX),
  refused('shipping tax -5', INVOICES, invoice({}, breakdown({ shipping: { amount: usd('5.00'), tax: { name: 'VAT', percent: '-5' } } })), '/amount/breakdown/shipping/tax/percent', 'CANNOT_BE_NEGATIVE'),
  accepted('tax 100 and 8.25 and 0.00001', INVOICES, invoice({ tax: { name: 'VAT', percent: '8.25' }, discount: { percent: '0.00001' } }, breakdown({ shipping: { amount: usd('5.00'), tax: { name: 'VAT', percent: '100' } } }))),
  // Other amounts: discounts and shipping not negative, the minimum due positive, custom either sign.
  refused('discount amount -1.00', INVOICES, invoice({ discount: { amount: usd('-1.00') } }), '/items/0/discount/amount/value', 'CANNOT_BE_NEGATIVE'),
  refused('discount over its line, with a tax and an invoice discount (was 500)', INVOICES, invoice({ quantity: '1', unit_amount: usd('1.00'), tax: { name: 'VAT', percent: '10' }, discount: { amount: usd('5.00') } }, breakdown({ discount: { invoice_discount: { percent: '10' } } })), '/items/0/discount', 'INVALID_PARAMETER_VALUE'),
  refused('shipping -5.00', INVOICES, invoice({}, breakdown({ shipping: { amount: usd('-5.00') } })), '/amount/breakdown/shipping/amount/value', 'CANNOT_BE_NEGATIVE'),
  refused('custom -0', INVOICES, invoice({}, breakdown({ custom: { label: 'Fee', amount: usd('-0') } })), '/amount/breakdown/custom/amount/value', SYNTAX),
  refused('minimum due 0', INVOICES, invoice({}, { configuration: { partial_payment: { allow_partial_payment: true, minimum_amount_due: usd('0') } } }), '/configuration/partial_payment/minimum_amount_due/value', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  accepted('custom -1.00', INVOICES, invoice({}, breakdown({ custom: { label: 'Credit', amount: usd('-1.00') } }))),
  // Balance top-ups: positive, the currency's decimals, 15 integer digits.
  ...MALFORMED.map((text) => refused(`top-up ${JSON.stringify(text)}`, BALANCES, { currency: 'USD', value: text }, '/value', SYNTAX)),
  refused('top-up -1.00', BALANCES, { currency: 'USD', value: '-1.00' }, '/value', 'CANNOT_BE_ZERO_OR_NEGATIVE'),
  refused('top-up 1.005', BALANCES, { currency: 'USD', value: '1.005' }, '/value', 'DECIMAL_PRECISION'),
  refused('top-up 1.5 JPY', BALANCES, { currency: 'JPY', value: '1.5' }, '/value', 'DECIMALS_NOT_SUPPORTED'),
  refused('top-up 16 integer digits', BALANCES, { currency: 'USD', value: '1000000000000000' }, '/value', 'MAX_VALUE_EXCEEDED'),
  accepted('top-up 0.5', BALANCES, { currency: 'USD', value: '0.5' }),
  accepted('top-up 100', BALANCES, { currency: 'USD', value: '100' }),
  // Payouts and orders: the same syntax (their sign and size rules are the domain's own 422s).
  refused('payout .5', PAYOUTS, payout('.5'), '/items/0/amount/value', SYNTAX),
  refused('payout -0', PAYOUTS, payout('-0'), '/items/0/amount/value', SYNTAX),
  refused('order 00001.00', ORDERS, order('00001.00'), '/purchase_units/0/amount/value', SYNTAX),
  refused('order .5', ORDERS, order('.5'), '/purchase_units/0/amount/value', SYNTAX),
  refused('order -0', ORDERS, order('-0'), '/purchase_units/0/amount/value', SYNTAX),
  accepted('order 5', ORDERS, order('5')),
];

describe('the decimals table', () => {
  it.each(ROWS.filter((row) => row.issue).map((row) => [row.label, row] as const))('%s: 400 naming the field and issue, nothing written', async (_label, row) => {
    const before = await snapshot(t.server.db);
    const answer = await t.request('POST', row.path, { body: row.body, headers: { 'paypal-request-id': randomUUID() } });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.details, answer.text).toEqual([expect.objectContaining({ field: row.field, issue: row.issue, location: 'body' })]);
    expect(changedTables(before, await snapshot(t.server.db))).toEqual([]);
    figures.refused += 1;
  });

  it.each(ROWS.filter((row) => !row.issue).map((row) => [row.label, row] as const))('%s: accepted', async (_label, row) => {
    const answer = await t.request('POST', row.path, { body: row.body, headers: { 'paypal-request-id': randomUUID() } });
    expect(answer.status, answer.text).toBeLessThan(300);
    figures.accepted += 1;
  });
});
