// Flag builders shared by commands, so that amounts, currencies and paging read the same everywhere.

import { Flags, type Interfaces } from '@oclif/core';
import { UsageError } from './api/errors.js';
import { MoneyParseError, canonicalDecimal, toMinorUnits, type Money } from './money.js';

/** The largest exponent any supported currency has: checks syntax before the currency is known. */
const WIDEST_CURRENCY = 'BHD';

/** A positive decimal amount, kept as the string the user typed. */
export const amountFlag = Flags.custom<string>({
  description: 'Amount as a decimal string, e.g. 12.34 (exact: never rounded)',
  helpValue: 'DECIMAL',
  async parse(input) {
    let minor: bigint;
    try {
      minor = toMinorUnits(input, WIDEST_CURRENCY);
    } catch (error) {
      if (error instanceof MoneyParseError) throw new UsageError(`--amount: ${error.message}`);
      throw error;
    }
    if (minor <= 0n) throw new UsageError(`the amount must be greater than zero; got "${input}"`);
    return input;
  },
});

/** A three-letter ISO 4217 code; lower case is accepted and upper-cased. */
export const currencyFlag = Flags.custom<string>({
  description: 'Three-letter currency code, e.g. USD',
  helpValue: 'CODE',
  async parse(input) {
    const code = input.toUpperCase();
    if (!/^[A-Z]{3}$/.test(code)) throw new UsageError(`"${input}" is not a three-letter currency code`);
    return code;
  },
});

/** The Service-Request-Id to send; reuse the one printed on a failure to retry safely. */
export const requestIdFlag = Flags.custom<string>({
  description: 'Service-Request-Id for this call; re-run with the same id to retry without repeating it',
  helpValue: 'ID',
  async parse(input) {
    if (input.length === 0 || input.length > 10_000) throw new UsageError('the request id must be 1 to 10000 characters');
    return input;
  },
});

/**
 * --admin-key: the server's admin key, for the /_payctl control plane (also from PAYCTL_ADMIN_KEY);
 * `when` says when the command needs it, e.g. "with --all".
 */
export function adminKeyFlag(when?: string) {
  return Flags.string({ description: when ? `The server's admin key (${when})` : "The server's admin key", env: 'PAYCTL_ADMIN_KEY' });
}

/** Skips the confirmation of money-moving and destructive commands; required without a terminal. */
export function yesFlag(options: { description?: string } = {}) {
  return Flags.boolean({ char: 'y', description: options.description ?? 'Do not ask for confirmation' });
}

/**
 * --page: a page number from 1 to `max`, the last page the endpoint serves. Each list endpoint has
 * its own limits, so each command passes them (oclif checks the bounds: exit 2 outside them).
 */
export function pageFlag(options: { max: number; default: number; exclusive?: string[] }): Interfaces.OptionFlag<number>;
export function pageFlag(options: { max: number; exclusive?: string[] }): Interfaces.OptionFlag<number | undefined>;
export function pageFlag(options: { max: number; default?: number; exclusive?: string[] }) {
  return Flags.integer({ description: `Page number (1 to ${options.max})`, min: 1, ...options });
}

/** --page-size: how many `items` (a plural noun for the help) per page, from 1 to the endpoint's `max`. */
export function pageSizeFlag(options: { max: number; items?: string; default: number }): Interfaces.OptionFlag<number>;
export function pageSizeFlag(options: { max: number; items?: string }): Interfaces.OptionFlag<number | undefined>;
export function pageSizeFlag(options: { max: number; items?: string; default?: number }) {
  const { items = 'Items', ...bounds } = options;
  return Flags.integer({ description: `${items} per page (1 to ${options.max})`, min: 1, ...bounds });
}

/**
 * The options a command passes on, less those the user did not give (undefined or an empty string),
 * so a call sends only what was asked: `givenOptions({ eventType: flags['event-type'] })`.
 */
export function givenOptions<T extends Record<string, unknown>>(options: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined && value !== '')) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** Checks an --amount against the currency it is in (decimals allowed) and builds the Money. */
export function moneyFromFlags(amount: string, currency: string): Money {
  try {
    toMinorUnits(amount, currency);
  } catch (error) {
    if (error instanceof MoneyParseError) throw new UsageError(`--amount: ${error.message}`);
    throw error;
  }
  return { currency_code: currency, value: canonicalDecimal(amount) };
}
