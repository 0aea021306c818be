// Exact money: decimal strings at the edge, bigint minor units inside. Nothing here touches floats.

/** Currencies whose minor unit is not 1/100 (ISO 4217 exponents as the service applies them). */
const EXPONENT_OVERRIDES: Readonly<Record<string, number>> = {
  JPY: 0,
  HUF: 0,
  TWD: 0,
  KRW: 0,
  CLP: 0,
  VND: 0,
  ISK: 0,
  UGX: 0,
  XAF: 0,
  XOF: 0,
  PYG: 0,
  BHD: 3,
  KWD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
};

/** Currencies the service accepts. */
export const SUPPORTED_CURRENCIES: readonly string[] = [
  'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN',
  'TWD', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD',
];

/** Largest value accepted anywhere: 15 integer digits. */
export const MAX_INTEGER_DIGITS = 15;

const DECIMAL_PATTERN = /^(-?)([0-9]*)(?:\.([0-9]+))?$/;

export type MoneyParseIssue =
  | 'INVALID_PARAMETER_SYNTAX'
  | 'DECIMAL_PRECISION'
  | 'DECIMALS_NOT_SUPPORTED'
  | 'MAX_VALUE_EXCEEDED'
  | 'CURRENCY_NOT_SUPPORTED';

export class MoneyParseError extends Error {
  constructor(
    readonly issue: MoneyParseIssue,
    message: string,
  ) {
    super(message);
    this.name = 'MoneyParseError';
  }
}

export function isSupportedCurrency(code: string): boolean {
  return SUPPORTED_CURRENCIES.includes(code);
}

/** Number of decimals the currency takes (2 unless listed otherwise). */
export function currencyExponent(currency: string): number {
  return EXPONENT_OVERRIDES[currency] ?? 2;
}

/**
 * Parses a decimal string into minor units of `currency`.
 * Refuses more decimals than the currency has and more than 15 integer digits; the sign is kept
 * so that callers can give a business error for zero or negative amounts.
 */
export function toMinorUnits(value: string, currency: string): bigint {
  const match = DECIMAL_PATTERN.exec(value);
  if (!match || (match[2] === '' && match[3] === undefined)) {
    throw new MoneyParseError('INVALID_PARAMETER_SYNTAX', `"${value}" is not a decimal amount`);
  }
  const [, sign, rawInteger = '', fraction = ''] = match;
  const exponent = currencyExponent(currency);
  const integer = rawInteger.replace(/^0+(?=\d)/, '');
  if (integer.length > MAX_INTEGER_DIGITS) {
    throw new MoneyParseError(
      'MAX_VALUE_EXCEEDED',
      `"${value}" has more than ${MAX_INTEGER_DIGITS} digits before the decimal point`,
    );
  }
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > exponent) {
    throw new MoneyParseError(
      exponent === 0 ? 'DECIMALS_NOT_SUPPORTED' : 'DECIMAL_PRECISION',
      exponent === 0
        ? `${currency} does not take decimals; got "${value}"`
        : `${currency} takes at most ${exponent} decimals; got "${value}"`,
    );
  }
  const minor = BigInt((integer || '0') + significantFraction.padEnd(exponent, '0'));
  return sign === '-' ? -minor : minor;
}

/**
 * The same decimal as the server's strict parser wants it: no leading zeros and a digit before the
 * point ("05.50" -> "5.50", ".5" -> "0.5", "-0" -> "0"); other text is returned as it is, for the
 * parser to name. Digits and trailing zeros are kept, so nothing is rounded.
 */
export function canonicalDecimal(text: string): string {
  const match = DECIMAL_PATTERN.exec(text);
  if (!match || (match[2] === '' && match[3] === undefined)) return text;
  const [, sign = '', integer = '', fraction] = match;
  const digits = integer.replace(/^0+(?=[0-9])/, '') || '0';
  const zero = /^0*$/.test(digits) && /^0*$/.test(fraction ?? '');
  return `${zero ? '' : sign}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A decimal's sign, integer digits, and fraction digits without trailing zeros (they are not precision). */
export interface DecimalParts {
  negative: boolean;
  integer: string;
  fraction: string;
}

/**
 * Canonical decimal text, the only form the server accepts (canonicalDecimal writes it): an optional
 * minus, no leading zeros, digits on both sides of a point. Not: `.5`, `5.`, `+5`, `00001.00`, `1e3`,
 * ` 5`, `0x10`, `1_000`.
 */
const CANONICAL_DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** The parts of canonical decimal text, or undefined when the text is not in that form. */
export function parseCanonicalDecimal(text: string): DecimalParts | undefined {
  const match = CANONICAL_DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', integer = '0', fraction = ''] = match;
  return { negative: sign === '-', integer, fraction: fraction.replace(/0+$/, '') };
}

/** Formats minor units as the service's decimal string: always exactly the currency's decimals. */
export function fromMinorUnits(minor: bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const integer = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${negative ? '-' : ''}${integer}${fraction}`;
}

export interface Money {
  currency_code: string;
  value: string;
}

export function money(minor: bigint, currency: string): Money {
  return { currency_code: currency, value: fromMinorUnits(minor, currency) };
}

/** Parses a Money object, checking the currency too. */
export function parseMoney(amount: Money): bigint {
  if (!isSupportedCurrency(amount.currency_code)) {
    throw new MoneyParseError('CURRENCY_NOT_SUPPORTED', `currency ${amount.currency_code} is not supported`);
  }
  return toMinorUnits(amount.value, amount.currency_code);
}

/** Percentage of an amount, rounded half-up to the minor unit. `basisPoints` is percent × 100. */
export function percentOf(minor: bigint, basisPoints: bigint): bigint {
  const scaled = minor * basisPoints;
  const quotient = scaled / 10_000n;
  const remainder = scaled % 10_000n;
  if (remainder * 2n >= 10_000n) return quotient + 1n;
  if (remainder * 2n <= -10_000n) return quotient - 1n;
  return quotient;
}
