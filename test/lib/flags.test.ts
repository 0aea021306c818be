import { describe, expect, it } from 'vitest';
import { UsageError, exitCodeFor } from '../../src/lib/api/errors.js';
import { amountFlag, currencyFlag, moneyFromFlags, pageFlag, pageSizeFlag } from '../../src/lib/flags.js';

/** Runs a flag's own parse function as oclif would. */
async function parseWith<T>(flag: { parse?: (input: string, context: never, options: never) => Promise<T> }, input: string): Promise<T> {
  if (!flag.parse) throw new Error('flag has no parse');
  return flag.parse(input, {} as never, {} as never);
}

describe('amount flag', () => {
  it.each(['12.34', '0.001', '999999999999999.99', '10'])('keeps %s as the string typed', async (input) => {
    await expect(parseWith(amountFlag(), input)).resolves.toBe(input);
  });

  it.each([
    ['0', /greater than zero/],
    ['-5.00', /greater than zero/],
    ['1.2345', /at most 3 decimals/],
    ['1000000000000000', /more than 15 digits/],
    ['12,34', /not a decimal amount/],
    ['1e3', /not a decimal amount/],
  ])('refuses %s', async (input, message) => {
    await expect(parseWith(amountFlag(), input)).rejects.toThrow(message);
  });
});

describe('currency flag', () => {
  it('upper-cases a three-letter code and refuses anything else', async () => {
    await expect(parseWith(currencyFlag(), 'usd')).resolves.toBe('USD');
    await expect(parseWith(currencyFlag(), 'US')).rejects.toThrow(/three-letter/);
    await expect(parseWith(currencyFlag(), 'US1')).rejects.toThrow(/three-letter/);
  });
});

describe('page flags', () => {
  // oclif passes the flag's own options (min, max) to its parse function.
  const parseBounded = (flag: { parse: (input: string, context: never, options: never) => Promise<unknown> }, input: string) =>
    flag.parse(input, {} as never, flag as never);

  it('take the bounds the command passes, and say them in the help', async () => {
    const size = pageSizeFlag({ max: 50, items: 'Disputes' });
    expect(size.description).toBe('Disputes per page (1 to 50)');
    await expect(parseBounded(size, '50')).resolves.toBe(50);
    await expect(parseBounded(size, '51')).rejects.toThrow(/less than or equal to 50/);
    await expect(parseBounded(size, '0')).rejects.toThrow(/greater than or equal to 1/);
    await expect(parseBounded(size, '2.5')).rejects.toThrow(/integer/);
    const page = pageFlag({ max: 1000 });
    expect(page.description).toBe('Page number (1 to 1000)');
    await expect(parseBounded(page, '1000')).resolves.toBe(1000);
    await expect(parseBounded(page, '1001')).rejects.toThrow(/less than or equal to 1000/);
  });
});

describe('moneyFromFlags', () => {
  it('checks the decimals against the currency and keeps the string', () => {
    expect(moneyFromFlags('12.30', 'USD')).toEqual({ currency_code: 'USD', value: '12.30' });
    expect(moneyFromFlags('1500', 'JPY')).toEqual({ currency_code: 'JPY', value: '1500' });
    let caught: unknown;
    try {
      moneyFromFlags('12.5', 'JPY');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect(exitCodeFor(caught)).toBe(2);
    expect((caught as Error).message).toContain('--amount');
  });
});
