// The sandbox fee schedule: what the service keeps from each capture, and what a refund gives back.
//
// Capture fee = 3.49 % of the captured amount (rounded half-up to the minor unit) + a fixed fee per
// currency: USD 0.49, EUR 0.39, GBP 0.29, JPY 49; any other currency 0.49 of its major unit,
// expressed in its minor units and rounded half-up (so zero-decimal currencies without an entry,
// HUF and TWD, pay no fixed part). The fee never exceeds the captured amount.
// A refund gives back the same share of the fee as its share of the capture; the refund that
// empties the capture gives back exactly what is left of the fee, so fees always add up.

import { currencyExponent, percentOf } from '../../lib/money.js';

/** 3.49 % in basis points. */
export const PERCENT_FEE_BASIS_POINTS = 349n;

/** Fixed fee per capture in minor units. */
const FIXED_FEES_MINOR: Readonly<Record<string, bigint>> = {
  USD: 49n,
  EUR: 39n,
  GBP: 29n,
  JPY: 49n,
};

/** 0.49 major units in `currency`'s minor units, rounded half-up. */
function defaultFixedFee(currency: string): bigint {
  const exponent = currencyExponent(currency);
  if (exponent >= 2) return 49n * 10n ** BigInt(exponent - 2);
  const divisor = 10n ** BigInt(2 - exponent);
  return (49n * 2n + divisor) / (2n * divisor);
}

export function fixedFee(currency: string): bigint {
  return FIXED_FEES_MINOR[currency] ?? defaultFixedFee(currency);
}

export function captureFee(amountMinor: bigint, currency: string): bigint {
  const fee = percentOf(amountMinor, PERCENT_FEE_BASIS_POINTS) + fixedFee(currency);
  return fee > amountMinor ? amountMinor : fee;
}

/** The fee a refund returns: proportional, rounded half-up; the last refund takes the remainder. */
export function refundFee(input: {
  captureAmount: bigint;
  captureFee: bigint;
  alreadyRefunded: bigint;
  alreadyReturnedFee: bigint;
  refundAmount: bigint;
}): bigint {
  if (input.alreadyRefunded + input.refundAmount === input.captureAmount) {
    return input.captureFee - input.alreadyReturnedFee;
  }
  const scaled = input.captureFee * input.refundAmount;
  const share = (scaled * 2n + input.captureAmount) / (2n * input.captureAmount);
  const remaining = input.captureFee - input.alreadyReturnedFee;
  return share > remaining ? remaining : share;
}
