// How a generated step picks its amount: relative to what the model says is left, so that the
// boundaries (exactly the rest, one unit over, the over-capture limit) come up often, plus a few
// malformed amounts whose refusal the model also predicts.

import fc from 'fast-check';
import { currencyExponent, fromMinorUnits } from '../../../src/lib/money.js';

export const CURRENCIES = ['USD', 'EUR', 'JPY', 'HUF'] as const;
export type ModelCurrency = (typeof CURRENCIES)[number];

export type BadAmount = 'zero' | 'negative' | 'precision' | 'digits' | 'currency';

export type AmountChoice =
  /** No amount in the body: the server takes what is left. */
  | { kind: 'rest' }
  /** What is left, sent explicitly. */
  | { kind: 'exact' }
  /** One minor unit. */
  | { kind: 'one' }
  /** A share (per mille) of what is left, at least one unit. */
  | { kind: 'part'; permille: number }
  /** Exactly the ceiling (the over-capture limit, or what is left where there is none). */
  | { kind: 'ceiling' }
  /** One unit past the ceiling. */
  | { kind: 'over' }
  | { kind: 'bad'; what: BadAmount };

export const amountChoiceArb: fc.Arbitrary<AmountChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'rest' } as const) },
  { weight: 2, arbitrary: fc.constant({ kind: 'exact' } as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'one' } as const) },
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 999 }).map((permille) => ({ kind: 'part', permille }) as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'ceiling' } as const) },
  { weight: 2, arbitrary: fc.constant({ kind: 'over' } as const) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<BadAmount>('zero', 'negative', 'precision', 'digits', 'currency')
      .map((what) => ({ kind: 'bad', what }) as const),
  },
);

export function describeChoice(choice: AmountChoice): string {
  if (choice.kind === 'part') return `${choice.permille}‰`;
  if (choice.kind === 'bad') return `bad:${choice.what}`;
  return choice.kind;
}

/** An authorization or invoice amount: mostly ordinary, sometimes tiny or at the 15-digit edge ('max'). */
export type BaseAmount = bigint | 'max';
export const baseAmountArb: fc.Arbitrary<BaseAmount> = fc.oneof(
  { weight: 6, arbitrary: fc.bigInt({ min: 1n, max: 2_000_000n }) },
  { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 100n }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 10n ** 13n }) },
  { weight: 1, arbitrary: fc.constant('max' as const) },
);

export const resolveBase = (amount: BaseAmount, currency: string): bigint => (amount === 'max' ? maxAmount(currency) : amount);

/** The largest amount with 15 integer digits in `currency`. */
export function maxAmount(currency: string): bigint {
  return 10n ** BigInt(15 + currencyExponent(currency)) - 1n;
}

export interface AmountBounds {
  /** What is left (to capture, refund, pay). */
  remaining: bigint;
  /** The most that may be asked for (over-capture limit); defaults to `remaining`. */
  ceiling?: bigint;
}

/** What the step sends: `value` undefined means no amount at all. */
export interface AmountRequest {
  currency: string;
  value?: string;
  /** The amount in minor units when `value` is well-formed. */
  minor?: bigint;
  bad?: BadAmount;
}

function otherCurrency(currency: string): string {
  return CURRENCIES.find((code) => code !== currency) ?? 'USD';
}

export function amountRequest(choice: AmountChoice, currency: string, bounds: AmountBounds): AmountRequest {
  const ceiling = bounds.ceiling ?? bounds.remaining;
  const explicit = (minor: bigint): AmountRequest => ({ currency, value: fromMinorUnits(minor, currency), minor });
  switch (choice.kind) {
    case 'rest':
      return { currency };
    case 'exact':
      return explicit(bounds.remaining);
    case 'one':
      return explicit(1n);
    case 'part': {
      const share = (bounds.remaining * BigInt(choice.permille)) / 1000n;
      return explicit(share > 0n ? share : 1n);
    }
    case 'ceiling':
      return explicit(ceiling);
    case 'over':
      return explicit(ceiling + 1n);
    case 'bad':
      return badAmount(choice.what, currency);
  }
}

function badAmount(what: BadAmount, currency: string): AmountRequest {
  const exponent = currencyExponent(currency);
  switch (what) {
    case 'zero':
      return { currency, value: fromMinorUnits(0n, currency), minor: 0n, bad: what };
    case 'negative':
      return { currency, value: `-${fromMinorUnits(150n, currency)}`, minor: -150n, bad: what };
    case 'precision':
      return { currency, value: exponent === 0 ? '12.5' : `${fromMinorUnits(1234n, currency)}1`, bad: what };
    case 'digits':
      return { currency, value: `1${'0'.repeat(15)}`, bad: what };
    case 'currency': {
      const other = otherCurrency(currency);
      return { currency: other, value: fromMinorUnits(100n, other), minor: 100n, bad: what };
    }
  }
}

/** The issue a payments endpoint gives a malformed amount (currency mismatch has its own per endpoint). */
export function paymentsAmountIssue(request: AmountRequest, mismatchIssue: string): string | undefined {
  switch (request.bad) {
    case undefined:
      return request.minor !== undefined && request.minor > maxAmount(request.currency) ? 'MAX_VALUE_EXCEEDED' : undefined;
    case 'zero':
    case 'negative':
      return 'CANNOT_BE_ZERO_OR_NEGATIVE';
    case 'precision':
      return currencyExponent(request.currency) === 0 ? 'DECIMALS_NOT_SUPPORTED' : 'DECIMAL_PRECISION';
    case 'digits':
      return 'MAX_VALUE_EXCEEDED';
    case 'currency':
      return mismatchIssue;
  }
}

/** The issue (all 400 INVALID_REQUEST) the invoicing record endpoints give a malformed amount. */
export function invoicingAmountIssue(request: AmountRequest): string | undefined {
  switch (request.bad) {
    case undefined:
      return request.minor !== undefined && request.minor > maxAmount(request.currency) ? 'INVALID_INTEGER_VALUE' : undefined;
    case 'zero':
      return 'VALUE_CANNOT_BE_ZERO';
    case 'negative':
      return 'INVALID_PARAMETER_VALUE';
    case 'precision':
      return 'INVALID_DECIMAL_VALUE';
    case 'digits':
      return 'INVALID_INTEGER_VALUE';
    case 'currency':
      return 'NOT_SUPPORTED';
  }
}

export const moneyBody = (request: AmountRequest) =>
  request.value === undefined ? undefined : { currency_code: request.currency, value: request.value };
