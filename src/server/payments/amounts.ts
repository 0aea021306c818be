// Business checks on amounts sent by callers: supported currency, decimals, size, sign, breakdown.

import { MoneyParseError, fromMinorUnits, parseMoney } from '../../lib/money.js';
import { serviceError, type IssueCode } from '../http/errors.js';
import { BREAKDOWN_PARTS, type AmountWithBreakdownInput, type MoneyInput } from './schema.js';

const ISSUE_FOR_PARSE: Record<MoneyParseError['issue'], IssueCode> = {
  INVALID_PARAMETER_SYNTAX: 'INVALID_PARAMETER_SYNTAX',
  DECIMAL_PRECISION: 'DECIMAL_PRECISION',
  DECIMALS_NOT_SUPPORTED: 'DECIMALS_NOT_SUPPORTED',
  MAX_VALUE_EXCEEDED: 'MAX_VALUE_EXCEEDED',
  CURRENCY_NOT_SUPPORTED: 'INVALID_CURRENCY_CODE',
};

/** Minor units of a Money, refusing unsupported currencies and excess precision or size (422). */
export function amountOf(amount: MoneyInput, pointer: string, sign: 'positive' | 'non-negative' = 'positive'): bigint {
  let minor: bigint;
  try {
    minor = parseMoney(amount);
  } catch (error) {
    if (!(error instanceof MoneyParseError)) throw error;
    const issue = ISSUE_FOR_PARSE[error.issue];
    const field = issue === 'INVALID_CURRENCY_CODE' ? `${pointer}/currency_code` : `${pointer}/value`;
    const value = issue === 'INVALID_CURRENCY_CODE' ? amount.currency_code : amount.value;
    const name = issue === 'INVALID_PARAMETER_SYNTAX' ? 'INVALID_REQUEST' : 'UNPROCESSABLE_ENTITY';
    throw serviceError(name, issue, error.message, { field, value });
  }
  if (sign === 'positive' && minor <= 0n) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_BE_ZERO_OR_NEGATIVE', 'The amount must be greater than zero.', {
      field: `${pointer}/value`,
      value: amount.value,
    });
  }
  if (sign === 'non-negative' && minor < 0n) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_BE_NEGATIVE', 'The amount must not be negative.', {
      field: `${pointer}/value`,
      value: amount.value,
    });
  }
  return minor;
}

/**
 * Minor units of an amount taken from an existing payment (a capture of an authorization, a refund
 * of a capture, a reauthorization), which must be in that payment's currency, else 422 `mismatch`.
 */
export function amountInCurrencyOf(amount: MoneyInput, currency: string, mismatch: { issue: IssueCode; description: string }): bigint {
  if (amount.currency_code !== currency) {
    throw serviceError('UNPROCESSABLE_ENTITY', mismatch.issue, mismatch.description, {
      field: '/amount/currency_code',
      value: amount.currency_code,
    });
  }
  return amountOf(amount, '/amount');
}

/** Checks a breakdown against its total: amount = sum of additions - discounts, one currency. */
export function checkBreakdown(amount: AmountWithBreakdownInput, pointer: string, total: bigint): Map<string, bigint> {
  const parts = new Map<string, bigint>();
  if (!amount.breakdown) return parts;
  for (const part of BREAKDOWN_PARTS) {
    const money = amount.breakdown[part];
    if (!money) continue;
    const field = `${pointer}/breakdown/${part}`;
    if (money.currency_code !== amount.currency_code) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'CURRENCY_MISMATCH', 'Every part of the breakdown must be in the currency of the amount.', {
        field: `${field}/currency_code`,
        value: money.currency_code,
      });
    }
    parts.set(part, amountOf(money, field, 'non-negative'));
  }
  let sum = 0n;
  for (const [part, minor] of parts) sum += part === 'shipping_discount' || part === 'discount' ? -minor : minor;
  if (sum !== total) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'AMOUNT_MISMATCH',
      `The amount (${amount.value}) must equal item_total + tax_total + shipping + handling + insurance + gratuity - shipping_discount - discount (${fromMinorUnits(sum, amount.currency_code)}).`,
      { field: `${pointer}/value`, value: amount.value },
    );
  }
  return parts;
}
