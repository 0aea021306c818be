// Money round trips for every supported currency: parse and format are inverse up to 15 integer
// digits, excess precision and size are refused, formatting always shows the currency's decimals,
// and amounts sent to the server (captures, refunds, invoices) read back byte-identical.

import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_INTEGER_DIGITS,
  MoneyParseError,
  SUPPORTED_CURRENCIES,
  currencyExponent,
  fromMinorUnits,
  toMinorUnits,
} from '../../src/lib/money.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const RUNS_PER_CURRENCY = 300;
const SERVER_RUNS = Number(process.env.PAYCTL_MONEY_SERVER_RUNS ?? 48);

const largest = (currency: string): bigint => 10n ** BigInt(MAX_INTEGER_DIGITS + currencyExponent(currency)) - 1n;
/** Any amount with at most 15 integer digits, either sign. */
const minorArb = (currency: string) => fc.bigInt({ min: -largest(currency), max: largest(currency) });
/** Positive amounts, biased to both ends. */
const positiveArb = (currency: string) =>
  fc.oneof(
    fc.bigInt({ min: 1n, max: largest(currency) }),
    fc.bigInt({ min: 1n, max: 100_000n }),
    fc.constant(largest(currency)),
    fc.constant(1n),
  );
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

function issueOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof MoneyParseError) return error.issue;
    throw error;
  }
  return undefined;
}

/** The canonical form of a decimal string that fits the currency: no leading zeros, exactly its decimals. */
function canonical(integer: string, fraction: string, currency: string): string {
  const exponent = currencyExponent(currency);
  const int = integer.replace(/^0+(?=\d)/, '') || '0';
  const frac = fraction.replace(/0+$/, '').padEnd(exponent, '0');
  return exponent === 0 ? int : `${int}.${frac}`;
}

describe('money parsing and formatting', () => {
  it.each(SUPPORTED_CURRENCIES.map((currency) => [currency, currencyExponent(currency)] as const))(
    '%s (%i decimals): format then parse gives the same minor units, with exactly the currency decimals',
    (currency, exponent) => {
      const shape = exponent === 0 ? /^-?(0|[1-9][0-9]*)$/ : new RegExp(`^-?(0|[1-9][0-9]*)\\.[0-9]{${exponent}}$`);
      fc.assert(
        fc.property(minorArb(currency), (minor) => {
          const text = fromMinorUnits(minor, currency);
          expect(text).toMatch(shape);
          expect(text.replace(/^-/, '').split('.')[0]!.length).toBeLessThanOrEqual(MAX_INTEGER_DIGITS);
          expect(toMinorUnits(text, currency)).toBe(minor);
        }),
        { numRuns: RUNS_PER_CURRENCY },
      );
    },
  );

  it.each(SUPPORTED_CURRENCIES)('%s: parse then format gives the canonical text of any fitting decimal', (currency) => {
    const exponent = currencyExponent(currency);
    const decimalArb = fc.tuple(
      digits(1, MAX_INTEGER_DIGITS),
      digits(0, exponent),
      fc.nat({ max: 3 }), // trailing zeros past the currency's decimals are not precision
      fc.nat({ max: 3 }), // leading zeros
    );
    fc.assert(
      fc.property(decimalArb, ([integer, fraction, trailing, leading]) => {
        const fractionText = fraction + '0'.repeat(trailing);
        const text = `${'0'.repeat(leading)}${integer}${fractionText ? `.${fractionText}` : ''}`;
        expect(fromMinorUnits(toMinorUnits(text, currency), currency)).toBe(canonical(integer, fractionText, currency));
      }),
      { numRuns: RUNS_PER_CURRENCY },
    );
  });

  it.each(SUPPORTED_CURRENCIES)('%s: more decimals than the currency has, or more than 15 integer digits, are refused', (currency) => {
    const exponent = currencyExponent(currency);
    const precisionIssue = exponent === 0 ? 'DECIMALS_NOT_SUPPORTED' : 'DECIMAL_PRECISION';
    fc.assert(
      fc.property(
        digits(1, MAX_INTEGER_DIGITS),
        digits(exponent, exponent + 4),
        fc.constantFrom(...'123456789'),
        fc.boolean(),
        (integer, fraction, last, negative) => {
          // The last decimal is not zero, so the value really has more decimals than allowed.
          const text = `${negative ? '-' : ''}${integer}.${fraction}${last}`;
          expect(issueOf(() => toMinorUnits(text, currency))).toBe(precisionIssue);
        },
      ),
      { numRuns: RUNS_PER_CURRENCY },
    );
    fc.assert(
      fc.property(fc.constantFrom(...'123456789'), digits(MAX_INTEGER_DIGITS, MAX_INTEGER_DIGITS + 5), digits(0, exponent), (first, rest, fraction) => {
        const text = `${first}${rest}${fraction ? `.${fraction}` : ''}`;
        expect(issueOf(() => toMinorUnits(text, currency))).toBe('MAX_VALUE_EXCEEDED');
      }),
      { numRuns: RUNS_PER_CURRENCY },
    );
    // The edges themselves.
    expect(toMinorUnits(fromMinorUnits(largest(currency), currency), currency)).toBe(largest(currency));
    expect(issueOf(() => toMinorUnits(`1${'0'.repeat(MAX_INTEGER_DIGITS)}`, currency))).toBe('MAX_VALUE_EXCEEDED');
  });
});

describe('amounts through the server', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });

  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: unknown = {}) =>
    t.request('POST', path, { body, headers: { 'service-request-id': randomUUID(), prefer: 'return=representation' } });

  async function authorization(currency: string, value: string): Promise<string> {
    const order = await post('/v2/checkout/orders', {
      intent: 'AUTHORIZE',
      purchase_units: [{ amount: { currency_code: currency, value } }],
      payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } },
    });
    expect(order.status, order.text).toBe(201);
    const authorized = await post(`/v2/checkout/orders/${order.body.id}/authorize`);
    expect(authorized.status, authorized.text).toBe(201);
    return authorized.body.purchase_units[0].payments.authorizations[0].id;
  }

  it('a capture and a refund of random valid amounts read back byte-identical, in every currency', async () => {
    const caseArb = fc
      .constantFrom(...SUPPORTED_CURRENCIES)
      .chain((currency) =>
        fc.tuple(fc.constant(currency), positiveArb(currency)).chain(([code, authorized]) =>
          fc.tuple(fc.constant(code), fc.constant(authorized), fc.bigInt({ min: 1n, max: authorized }), fc.bigInt({ min: 1n, max: 1000n })),
        ),
      );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ([currency, authorized, captured, refundPermille]) => {
        const authorizedText = fromMinorUnits(authorized, currency);
        const authId = await authorization(currency, authorizedText);
        const auth = await t.request('GET', `/v2/payments/authorizations/${authId}`);
        expect(auth.body.amount).toEqual({ currency_code: currency, value: authorizedText });

        const capturedText = fromMinorUnits(captured, currency);
        const capture = await post(`/v2/payments/authorizations/${authId}/capture`, { amount: { currency_code: currency, value: capturedText } });
        expect(capture.status, capture.text).toBe(200);
        const read = await t.request('GET', `/v2/payments/captures/${capture.body.id}`);
        expect(read.body.amount).toEqual({ currency_code: currency, value: capturedText });
        expect(read.text).toContain(`"value":"${capturedText}"`);
        const { gross_amount: gross, paypal_fee: fee, net_amount: net } = read.body.seller_receivable_breakdown;
        expect(gross.value).toBe(capturedText);
        expect(toMinorUnits(fee.value, currency) + toMinorUnits(net.value, currency)).toBe(captured);

        const refunded = (captured * refundPermille) / 1000n || 1n;
        const refundedText = fromMinorUnits(refunded, currency);
        const refund = await post(`/v2/payments/captures/${capture.body.id}/refund`, { amount: { currency_code: currency, value: refundedText } });
        expect(refund.status, refund.text).toBe(200);
        const refundRead = await t.request('GET', `/v2/payments/refunds/${refund.body.id}`);
        expect(refundRead.body.amount).toEqual({ currency_code: currency, value: refundedText });
        checked += 1;
      }),
      { numRuns: SERVER_RUNS },
    );
    expect(checked).toBe(SERVER_RUNS);
    const audit = await t.request('GET', '/_payctl/audit');
    expect(audit.body.ok, JSON.stringify(audit.body)).toBe(true);
  });

  it('invoice totals and recorded payments keep every digit, up to 15 integer digits, in every currency', async () => {
    for (const currency of SUPPORTED_CURRENCIES) {
      for (const minor of [largest(currency), 1n, 10n ** BigInt(currencyExponent(currency) + 7) + 1n]) {
        const value = fromMinorUnits(minor, currency);
        const created = await post('/v2/invoicing/invoices', {
          detail: { currency_code: currency },
          primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
          items: [{ name: 'Service', quantity: '1', unit_amount: { currency_code: currency, value } }],
        });
        expect(created.status, `${value} ${currency}: ${created.text}`).toBe(201);
        expect(created.body.amount).toMatchObject({ currency_code: currency, value });
        expect((await post(`/v2/invoicing/invoices/${created.body.id}/send`)).status).toBe(200);
        const paid = await post(`/v2/invoicing/invoices/${created.body.id}/payments`, { method: 'CASH', amount: { currency_code: currency, value } });
        expect(paid.status, paid.text).toBe(200);
        const read = await t.request('GET', `/v2/invoicing/invoices/${created.body.id}`);
        expect(read.body.payments.paid_amount).toEqual({ currency_code: currency, value });
        expect(read.body.status).toBe('MARKED_AS_PAID');
      }
    }
  });

  it('one unit past 15 integer digits is refused by captures and invoices alike', async () => {
    const authId = await authorization('USD', '100.00');
    const capture = await post(`/v2/payments/authorizations/${authId}/capture`, { amount: { currency_code: 'USD', value: '1000000000000000.00' } });
    expect(capture.status).toBe(422);
    expect(capture.body.details[0].issue).toBe('MAX_VALUE_EXCEEDED');
    const invoice = await post('/v2/invoicing/invoices', {
      detail: { currency_code: 'USD' },
      items: [
        { name: 'A', quantity: '1', unit_amount: { currency_code: 'USD', value: '999999999999999.99' } },
        { name: 'B', quantity: '1', unit_amount: { currency_code: 'USD', value: '0.01' } },
      ],
    });
    expect(invoice.status).toBe(400);
    expect(invoice.body.details[0].issue).toBe('MAX_VALUE_EXCEEDED');
  });
});
