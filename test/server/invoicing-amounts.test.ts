// Worked examples of the invoice arithmetic (bigint minor units; one half-up rounding per line).

import { describe, expect, it } from 'vitest';
import { computeAmounts, formatScaledDecimal, parseScaledDecimal, roundDiv, type AmountInput, type LineInput } from '../../src/server/invoicing/amounts.js';

const q = (text: string): bigint => {
  const value = parseScaledDecimal(text);
  if (value === undefined) throw new Error(text);
  return value;
};

/** Two lines, shipping and a custom amount, all taxed at 8.25 %. */
function example(overrides: Partial<AmountInput> = {}): AmountInput {
  const lines: LineInput[] = [
    // 2 × 10.00 = 20.00, less 10 % = 18.00
    { quantity: q('2'), unitAmount: 1000n, discount: { percent: q('10') }, taxPercent: q('8.25') },
    // 1.5 × 3.33 = 4.995 -> 5.00
    { quantity: q('1.5'), unitAmount: 333n, taxPercent: q('8.25') },
  ];
  return {
    lines,
    shipping: { amount: 500n, taxPercent: q('8.25') },
    custom: 100n,
    taxCalculatedAfterDiscount: true,
    taxInclusive: false,
    ...overrides,
  };
}

describe('decimal helpers', () => {
  it.each([
    ['1', 100_000n],
    ['1.5', 150_000n],
    ['0.00001', 1n],
    ['1.000010', 100_001n],
    ['-2.25', -225_000n],
  ])('parses %s', (text, scaled) => {
    expect(parseScaledDecimal(text)).toBe(scaled);
    expect(formatScaledDecimal(scaled)).toBe(text.replace(/0+$/, '').replace(/\.$/, ''));
  });

  it('refuses six decimals and non-numbers', () => {
    expect(parseScaledDecimal('0.000001')).toBeUndefined();
    expect(parseScaledDecimal('1e3')).toBeUndefined();
    expect(parseScaledDecimal('.5')).toBeUndefined();
  });

  it('reads whole numbers as BigInt would not let through: no blanks, hex, plus sign or empty text', () => {
    expect(parseScaledDecimal('-12')).toBe(-1_200_000n);
    expect(parseScaledDecimal('007')).toBe(700_000n);
    expect(parseScaledDecimal('-0')).toBe(0n);
    for (const text of ['', '-', '+1', ' 12', '12 ', '0x10', '1_000', '12\n']) expect(parseScaledDecimal(text), JSON.stringify(text)).toBeUndefined();
  });

  it.each([
    [5n, 2n, 3n], // 2.5 -> 3
    [-5n, 2n, -3n], // -2.5 -> -3 (half away from zero)
    [149n, 100n, 1n],
    [150n, 100n, 2n],
    [-149n, 100n, -1n],
  ])('roundDiv(%s, %s) = %s', (n, d, expected) => {
    expect(roundDiv(n, d)).toBe(expected);
  });
});

describe('invoice amounts, USD', () => {
  it('tax after item discounts (the default)', () => {
    const a = computeAmounts(example());
    // Line 1: gross 20.00, discount 2.00, net 18.00, tax 18.00 × 8.25 % = 1.485 -> 1.49
    // Line 2: gross 5.00 (4.995 rounded), tax 5.00 × 8.25 % = 0.4125 -> 0.41
    expect(a.lines).toEqual([
      { gross: 2000n, discount: 200n, net: 1800n, tax: 149n },
      { gross: 500n, discount: 0n, net: 500n, tax: 41n },
    ]);
    expect(a.itemTotal).toBe(2500n); // 25.00
    expect(a.itemDiscount).toBe(200n); // 2.00
    expect(a.subtotal).toBe(2300n); // 23.00
    expect(a.shippingTax).toBe(41n); // 5.00 × 8.25 % = 0.4125 -> 0.41
    expect(a.taxTotal).toBe(231n); // 1.49 + 0.41 + 0.41
    expect(a.total).toBe(3131n); // 23.00 + 2.31 + 5.00 shipping + 1.00 custom = 31.31
  });

  it('an invoice discount of 10 % lowers each line\'s tax base in proportion', () => {
    const a = computeAmounts(example({ invoiceDiscount: { percent: q('10') } }));
    expect(a.invoiceDiscount).toBe(230n); // 23.00 × 10 % = 2.30
    // Line 1: 18.00 × 0.9 × 8.25 % = 1.3365 -> 1.34; line 2: 5.00 × 0.9 × 8.25 % = 0.37125 -> 0.37
    expect(a.lines.map((line) => line.tax)).toEqual([134n, 37n]);
    expect(a.taxTotal).toBe(212n); // 1.34 + 0.37 + 0.41 shipping
    expect(a.total).toBe(2882n); // 23.00 - 2.30 + 2.12 + 5.00 + 1.00 = 28.82
  });

  it('a fixed invoice discount', () => {
    const a = computeAmounts(example({ invoiceDiscount: { amount: 300n } }));
    // Base factor (23.00 - 3.00) / 23.00: line 1 18.00 × 20/23 × 8.25 % = 1.2913 -> 1.29; line 2 0.3587 -> 0.36
    expect(a.lines.map((line) => line.tax)).toEqual([129n, 36n]);
    expect(a.total).toBe(2300n - 300n + 129n + 36n + 41n + 500n + 100n); // 27.06
  });

  it('tax before discount taxes the gross amounts', () => {
    const a = computeAmounts(example({ taxCalculatedAfterDiscount: false }));
    // Line 1: 20.00 × 8.25 % = 1.65; line 2 0.41; shipping 0.41
    expect(a.lines.map((line) => line.tax)).toEqual([165n, 41n]);
    expect(a.taxTotal).toBe(247n);
    expect(a.total).toBe(3147n); // 23.00 + 2.47 + 5.00 + 1.00 = 31.47
  });

  it('tax-inclusive prices: the tax is the part of the price, the total is not raised', () => {
    const a = computeAmounts({
      lines: [
        { quantity: q('1'), unitAmount: 1000n, taxPercent: q('20') },
        { quantity: q('1'), unitAmount: 1000n, taxPercent: q('20') },
      ],
      shipping: { amount: 600n, taxPercent: q('20') },
      taxCalculatedAfterDiscount: true,
      taxInclusive: true,
    });
    // 10.00 × 20/120 = 1.6667 -> 1.67 per line (rounded per line: 3.34, not 3.33 on the sum)
    expect(a.lines.map((line) => line.tax)).toEqual([167n, 167n]);
    expect(a.shippingTax).toBe(100n); // 6.00 × 20/120 = 1.00
    expect(a.taxTotal).toBe(434n);
    expect(a.total).toBe(2600n); // 10.00 + 10.00 + 6.00
  });

  it('a fixed item discount and five-decimal quantities', () => {
    const a = computeAmounts({
      lines: [
        // 0.33333 × 100.00 = 33.333 -> 33.33, less 3.33 = 30.00
        { quantity: q('0.33333'), unitAmount: 10_000n, discount: { amount: 333n } },
        // 0.00005 × 1,000,000.00 = 50.00 exactly
        { quantity: q('0.00005'), unitAmount: 100_000_000n },
        // 0.5 × 0.01 = 0.005 -> 0.01 (half up)
        { quantity: q('0.5'), unitAmount: 1n },
      ],
      taxCalculatedAfterDiscount: true,
      taxInclusive: false,
    });
    expect(a.lines.map((line) => [line.gross, line.discount, line.net])).toEqual([
      [3333n, 333n, 3000n],
      [5000n, 0n, 5000n],
      [1n, 0n, 1n],
    ]);
    expect(a.total).toBe(8001n); // 80.01
  });
});

describe('invoice amounts, zero-decimal currency (JPY)', () => {
  it('rounds to whole yen once per line', () => {
    const a = computeAmounts({
      lines: [
        // 3 × ¥333 = ¥999, tax 10 % = 99.9 -> ¥100
        { quantity: q('3'), unitAmount: 333n, taxPercent: q('10') },
        // 0.5 × ¥101 = 50.5 -> ¥51
        { quantity: q('0.5'), unitAmount: 101n, taxPercent: q('10') },
      ],
      // ¥1,050 × 5 % = 52.5 -> ¥53
      invoiceDiscount: { percent: q('5') },
      taxCalculatedAfterDiscount: true,
      taxInclusive: false,
    });
    expect(a.lines.map((line) => line.gross)).toEqual([999n, 51n]);
    expect(a.invoiceDiscount).toBe(53n);
    // ¥999 × 997/1050 × 10 % = 94.86 -> ¥95; ¥51 × 997/1050 × 10 % = 4.84 -> ¥5
    expect(a.lines.map((line) => line.tax)).toEqual([95n, 5n]);
    expect(a.total).toBe(1050n - 53n + 100n); // ¥1,097
  });
});
