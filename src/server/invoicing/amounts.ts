// Invoice arithmetic in bigint minor units: lines, discounts, taxes, shipping, custom amount, total.
//
// Rules (each rounding is half away from zero, to the currency's minor unit, once per line):
// - line gross    = quantity × unit amount
// - item discount = a fixed amount, or gross × percent
// - line net      = gross − item discount; subtotal = Σ net
// - invoice discount = a fixed amount, or subtotal × percent
// - line tax base = tax after discount (the default): net less the line's share of the invoice
//   discount (net × (subtotal − invoice discount) / subtotal, kept exact); else the gross
// - line tax      = base × t / 100, or with tax-inclusive prices base × t / (100 + t)
// - shipping tax  = shipping × t / 100 (or t / (100 + t)), rounded once
// - total = subtotal − invoice discount + shipping + custom (+ tax total unless tax-inclusive)

/** Quantities and percentages are decimal strings scaled by 10^5 (five decimals at most). */
export const DECIMAL_SCALE = 100_000n;
export const MAX_DECIMALS = 5;

const DECIMAL_TEXT = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;
const WHOLE_TEXT = /^-?[0-9]+$/;

/** Parses "12.5" to 1250000n (× 10^5); undefined when not a decimal or more than 5 decimals. */
export function parseScaledDecimal(text: string): bigint | undefined {
  // Whole numbers (most quantities) skip the fraction handling.
  if (WHOLE_TEXT.test(text)) return BigInt(text) * DECIMAL_SCALE;
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign, integer = '0', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > MAX_DECIMALS) return undefined;
  const scaled = BigInt(integer) * DECIMAL_SCALE + BigInt(significant.padEnd(MAX_DECIMALS, '0') || '0');
  return sign === '-' ? -scaled : scaled;
}

/** numerator / denominator rounded half away from zero; the denominator must not be zero. */
export function roundDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('denominator must not be zero');
  // A negative subtotal (a discount over its line, refused after pricing) must reach that refusal.
  if (denominator < 0n) return roundDiv(-numerator, -denominator);
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = magnitude / denominator;
  const rounded = (magnitude % denominator) * 2n >= denominator ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

export type Reduction = { percent: bigint } | { amount: bigint };

export interface LineInput {
  /** Quantity × 10^5. */
  quantity: bigint;
  unitAmount: bigint;
  discount?: Reduction;
  /** Tax percent × 10^5. */
  taxPercent?: bigint;
}

export interface AmountInput {
  lines: readonly LineInput[];
  invoiceDiscount?: Reduction;
  shipping?: { amount: bigint; taxPercent?: bigint };
  custom?: bigint;
  taxCalculatedAfterDiscount: boolean;
  taxInclusive: boolean;
}

export interface LineAmounts {
  gross: bigint;
  discount: bigint;
  net: bigint;
  tax: bigint;
}

export interface InvoiceAmounts {
  lines: LineAmounts[];
  itemTotal: bigint;
  itemDiscount: bigint;
  subtotal: bigint;
  invoiceDiscount: bigint;
  taxTotal: bigint;
  shipping: bigint;
  shippingTax: bigint;
  custom: bigint;
  total: bigint;
}

/** 100 % as a scaled percentage. */
const HUNDRED = 100n * DECIMAL_SCALE;

function reductionOf(base: bigint, reduction: Reduction | undefined): bigint {
  if (!reduction) return 0n;
  return 'amount' in reduction ? reduction.amount : roundDiv(base * reduction.percent, HUNDRED);
}

/** Tax on `base × factorNumerator / factorDenominator`, rounded once. */
function taxOn(base: bigint, factorNumerator: bigint, factorDenominator: bigint, percent: bigint | undefined, inclusive: boolean): bigint {
  if (percent === undefined || percent === 0n) return 0n;
  const rateDenominator = inclusive ? HUNDRED + percent : HUNDRED;
  return roundDiv(base * factorNumerator * percent, factorDenominator * rateDenominator);
}

export function computeAmounts(input: AmountInput): InvoiceAmounts {
  const partial = input.lines.map((line) => {
    const gross = roundDiv(line.quantity * line.unitAmount, DECIMAL_SCALE);
    const discount = reductionOf(gross, line.discount);
    return { gross, discount, net: gross - discount };
  });
  const itemTotal = partial.reduce((sum, line) => sum + line.gross, 0n);
  const itemDiscount = partial.reduce((sum, line) => sum + line.discount, 0n);
  const subtotal = itemTotal - itemDiscount;
  const invoiceDiscount = reductionOf(subtotal, input.invoiceDiscount);

  const lines: LineAmounts[] = partial.map((line, index) => {
    const percent = input.lines[index]?.taxPercent;
    let tax: bigint;
    if (!input.taxCalculatedAfterDiscount) tax = taxOn(line.gross, 1n, 1n, percent, input.taxInclusive);
    else if (subtotal === 0n || invoiceDiscount === 0n) tax = taxOn(line.net, 1n, 1n, percent, input.taxInclusive);
    else tax = taxOn(line.net, subtotal - invoiceDiscount, subtotal, percent, input.taxInclusive);
    return { ...line, tax };
  });

  const shipping = input.shipping?.amount ?? 0n;
  const shippingTax = taxOn(shipping, 1n, 1n, input.shipping?.taxPercent, input.taxInclusive);
  const taxTotal = lines.reduce((sum, line) => sum + line.tax, 0n) + shippingTax;
  const custom = input.custom ?? 0n;
  const total = subtotal - invoiceDiscount + shipping + custom + (input.taxInclusive ? 0n : taxTotal);
  return { lines, itemTotal, itemDiscount, subtotal, invoiceDiscount, taxTotal, shipping, shippingTax, custom, total };
}

/** Formats a 10^5-scaled decimal without trailing zeros: 1250000n -> "12.5". */
export function formatScaledDecimal(scaled: bigint): string {
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const integer = magnitude / DECIMAL_SCALE;
  const fraction = (magnitude % DECIMAL_SCALE).toString().padStart(MAX_DECIMALS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}`;
}
