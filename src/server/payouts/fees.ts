// The payout fee schedule: 2% of each item's amount, rounded half-up to the minor unit, capped at
// 20 whole units of the item's currency (20.00 USD, 20 JPY). Charged only when an item is paid out
// (SUCCESS, UNCLAIMED, ONHOLD) and given back with the amount when an item is RETURNED.

import { currencyExponent, percentOf } from '../../lib/money.js';

export const FEE_BASIS_POINTS = 200n;
export const FEE_CAP_WHOLE_UNITS = 20n;

export function payoutItemFee(amountMinor: bigint, currency: string): bigint {
  const fee = percentOf(amountMinor, FEE_BASIS_POINTS);
  const cap = FEE_CAP_WHOLE_UNITS * 10n ** BigInt(currencyExponent(currency));
  return fee < cap ? fee : cap;
}
