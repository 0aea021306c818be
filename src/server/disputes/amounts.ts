// Amounts and addresses in dispute requests, with the dispute API's issue codes.

import { MoneyParseError, toMinorUnits } from '../../lib/money.js';
import { serviceError } from '../http/errors.js';
import type { Dispute } from './model.js';
import { addressSchema, type Address, type MoneyInput } from './schema.js';

/** A positive amount in the dispute's currency, in minor units. */
export function amountIn(dispute: Pick<Dispute, 'currency'>, value: MoneyInput, field: string): bigint {
  if (value.currency_code !== dispute.currency) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CURRENCY_MISMATCH', `The amount must be in ${dispute.currency}, the currency of the disputed transaction.`, {
      field: `${field}/currency_code`,
      value: value.currency_code,
    });
  }
  let minor: bigint;
  try {
    minor = toMinorUnits(value.value, dispute.currency);
  } catch (error) {
    if (error instanceof MoneyParseError) {
      throw serviceError(error.issue === 'INVALID_PARAMETER_SYNTAX' ? 'INVALID_REQUEST' : 'UNPROCESSABLE_ENTITY', error.issue, error.message, {
        field: `${field}/value`,
        value: value.value,
      });
    }
    throw error;
  }
  if (minor <= 0n) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_BE_ZERO_OR_NEGATIVE', 'The amount must be greater than zero.', {
      field: `${field}/value`,
      value: value.value,
    });
  }
  return minor;
}

/** A return shipping address, required or refused as the action's type says. */
export function returnAddress(value: unknown, required: boolean, field = '/return_shipping_address'): Address | undefined {
  if (value === undefined) {
    if (required) {
      throw serviceError('VALIDATION_ERROR', 'MISSING_RETURN_SHIPPING_ADDRESS', 'A return needs a return_shipping_address.', { field });
    }
    return undefined;
  }
  if (!required) {
    throw serviceError('VALIDATION_ERROR', 'SHIPPING_ADDRESS_SHOULD_NOT_BE_PASSED', 'A return shipping address is only given for a return.', { field });
  }
  const parsed = addressSchema.safeParse(value);
  if (!parsed.success) {
    throw serviceError(
      'VALIDATION_ERROR',
      'INVALID_RETURN_SHIPPING_ADDRESS_FORMAT',
      'The return shipping address needs a two-letter country_code, and its lines must be within the address limits.',
      { field },
    );
  }
  return parsed.data;
}
