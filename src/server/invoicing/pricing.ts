// Turns an invoice body into the inputs of the amount arithmetic, refusing money that does not fit
// the invoice's currency, and renders the computed breakdown back into the API's shape.

import { serviceError, type IssueCode } from '../http/errors.js';
import { MAX_INTEGER_DIGITS, MoneyParseError, currencyExponent, isSupportedCurrency, money, toMinorUnits, type Money } from '../../lib/money.js';
import { computeAmounts, formatScaledDecimal, parseScaledDecimal, type InvoiceAmounts, type Reduction } from './amounts.js';
import type { AmountInputBody, ItemInput, MoneyInput } from './schema.js';
import type { AmountBreakdown, InvoiceAmount, InvoiceItem } from './types.js';

/** What the arithmetic needs from an invoice or template body. */
export interface PricedContent {
  detail: { currency_code: string };
  items?: ItemInput[] | undefined;
  amount?: AmountInputBody | undefined;
  configuration?: { tax_calculated_after_discount?: boolean | undefined; tax_inclusive?: boolean | undefined } | undefined;
}

const invalid = (issue: IssueCode, description: string, field: string, value?: unknown) =>
  serviceError('INVALID_REQUEST', issue, description, { field, ...(value === undefined ? {} : { value }), location: 'body' });

/** Minor units of a Money in the invoice's currency, or INVALID_REQUEST naming the field. */
export function minorIn(amount: MoneyInput, currency: string, pointer: string): bigint {
  if (amount.currency_code !== currency) {
    throw invalid('CURRENCY_MISMATCH', `The amount must be in the invoice currency ${currency}.`, `${pointer}/currency_code`, amount.currency_code);
  }
  try {
    return toMinorUnits(amount.value, currency);
  } catch (error) {
    if (error instanceof MoneyParseError) throw invalid(error.issue, error.message, `${pointer}/value`, amount.value);
    throw error;
  }
}

function scaled(text: string): bigint {
  const value = parseScaledDecimal(text);
  if (value === undefined) throw new Error(`unvalidated decimal ${text}`);
  return value;
}

function reduction(discount: { percent?: string | undefined; amount?: MoneyInput | undefined } | undefined, currency: string, pointer: string): Reduction | undefined {
  if (!discount) return undefined;
  if (discount.percent !== undefined) return { percent: scaled(discount.percent) };
  if (discount.amount !== undefined) {
    const amount = minorIn(discount.amount, currency, `${pointer}/amount`);
    if (amount < 0n) throw invalid('INVALID_PARAMETER_VALUE', 'A discount cannot be negative.', `${pointer}/amount/value`, discount.amount.value);
    return { amount };
  }
  return undefined;
}

const maxTotals = new Map<string, bigint>();

/** The largest total: 15 integer digits and every decimal of the currency (999999999999999.99 USD). */
function maxTotal(currency: string): bigint {
  let max = maxTotals.get(currency);
  if (max === undefined) {
    // A BigInt power per call was a tenth of pricing an invoice page (each read prices every invoice).
    max = 10n ** BigInt(MAX_INTEGER_DIGITS + currencyExponent(currency)) - 1n;
    maxTotals.set(currency, max);
  }
  return max;
}

export function priceContent(content: PricedContent): InvoiceAmounts {
  const currency = content.detail.currency_code;
  if (!isSupportedCurrency(currency)) {
    throw invalid('CURRENCY_NOT_SUPPORTED', `The currency ${currency} is not supported.`, '/detail/currency_code', currency);
  }
  const items = content.items ?? [];
  const lines = items.map((item, index) => {
    const pointer = `/items/${index}`;
    const discount = reduction(item.discount, currency, `${pointer}/discount`);
    return {
      quantity: scaled(item.quantity),
      unitAmount: minorIn(item.unit_amount, currency, `${pointer}/unit_amount`),
      ...(discount ? { discount } : {}),
      ...(item.tax ? { taxPercent: scaled(item.tax.percent) } : {}),
    };
  });
  const breakdown = content.amount?.breakdown;
  const invoiceDiscount = reduction(breakdown?.discount?.invoice_discount, currency, '/amount/breakdown/discount/invoice_discount');
  const shippingAmount = breakdown?.shipping?.amount ? minorIn(breakdown.shipping.amount, currency, '/amount/breakdown/shipping/amount') : undefined;
  if (shippingAmount !== undefined && shippingAmount < 0n) {
    throw invalid('INVALID_PARAMETER_VALUE', 'Shipping cannot be negative.', '/amount/breakdown/shipping/amount/value');
  }
  const custom = breakdown?.custom?.amount ? minorIn(breakdown.custom.amount, currency, '/amount/breakdown/custom/amount') : undefined;
  const amounts = computeAmounts({
    lines,
    ...(invoiceDiscount ? { invoiceDiscount } : {}),
    ...(shippingAmount !== undefined
      ? { shipping: { amount: shippingAmount, ...(breakdown?.shipping?.tax ? { taxPercent: scaled(breakdown.shipping.tax.percent) } : {}) } }
      : {}),
    ...(custom !== undefined ? { custom } : {}),
    taxCalculatedAfterDiscount: content.configuration?.tax_calculated_after_discount ?? true,
    taxInclusive: content.configuration?.tax_inclusive ?? false,
  });
  amounts.lines.forEach((line, index) => {
    if (line.gross >= 0n && line.discount > line.gross) {
      throw invalid('INVALID_PARAMETER_VALUE', 'The item discount is larger than the item amount.', `/items/${index}/discount`);
    }
  });
  if (amounts.invoiceDiscount > amounts.subtotal && amounts.invoiceDiscount > 0n) {
    throw invalid('INVALID_PARAMETER_VALUE', 'The invoice discount is larger than the items after their discounts.', '/amount/breakdown/discount/invoice_discount');
  }
  if (amounts.total < 0n) throw invalid('INVALID_PARAMETER_VALUE', 'The invoice total cannot be negative.', '/amount');
  if (amounts.total > maxTotal(currency)) {
    throw invalid('MAX_VALUE_EXCEEDED', 'The invoice total has more than 15 digits before the decimal point.', '/amount');
  }
  return amounts;
}

/** Items as returned: with their ids, the computed tax and discount amounts. */
export function renderItems(items: readonly ItemInput[], ids: readonly string[], amounts: InvoiceAmounts, currency: string): InvoiceItem[] {
  return items.map((item, index) => {
    const line = amounts.lines[index];
    // The tax, discount and unit are the input's until set below.
    const rendered = { id: ids[index] ?? `ITEM-${index + 1}`, ...item, quantity: formatScaledDecimal(scaled(item.quantity)) } as InvoiceItem;
    if (item.tax && line) rendered.tax = { ...item.tax, amount: money(line.tax, currency) };
    if (item.discount && line) {
      rendered.discount = { ...(item.discount.percent !== undefined ? { percent: item.discount.percent } : {}), amount: money(line.discount, currency) };
    }
    if (item.unit_of_measure === undefined) rendered.unit_of_measure = 'QUANTITY';
    return rendered;
  });
}

/** `amount` with its breakdown; discounts are shown as positive amounts that were subtracted. */
export function renderAmount(content: PricedContent, amounts: InvoiceAmounts): InvoiceAmount {
  const currency = content.detail.currency_code;
  const m = (minor: bigint): Money => money(minor, currency);
  // tax_total is set below, after the discount (the API's field order).
  const breakdown = { item_total: m(amounts.itemTotal) } as AmountBreakdown;
  const input = content.amount?.breakdown;
  if (amounts.itemDiscount !== 0n || input?.discount?.invoice_discount) {
    const discount: NonNullable<AmountBreakdown['discount']> = { item_discount: m(amounts.itemDiscount) };
    const invoiceDiscount = input?.discount?.invoice_discount;
    if (invoiceDiscount) {
      discount.invoice_discount = {
        ...(invoiceDiscount.percent !== undefined ? { percent: invoiceDiscount.percent } : {}),
        amount: m(amounts.invoiceDiscount),
      };
    }
    breakdown.discount = discount;
  }
  breakdown.tax_total = m(amounts.taxTotal);
  if (input?.shipping?.amount) {
    breakdown.shipping = {
      amount: m(amounts.shipping),
      ...(input.shipping.tax ? { tax: { ...input.shipping.tax, amount: m(amounts.shippingTax) } } : {}),
    };
  }
  if (input?.custom) breakdown.custom = { label: input.custom.label, amount: m(amounts.custom) };
  return { currency_code: currency, value: m(amounts.total).value, breakdown };
}
