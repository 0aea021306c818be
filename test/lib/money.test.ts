import { describe, expect, it } from 'vitest';
import { MoneyParseError, canonicalDecimal, fromMinorUnits, parseCanonicalDecimal, parseMoney, percentOf, toMinorUnits } from '../../src/lib/money.js';

describe('toMinorUnits / fromMinorUnits', () => {
  const roundTrips: Array<{ currency: string; input: string; minor: bigint; formatted: string }> = [
    { currency: 'USD', input: '12.34', minor: 1234n, formatted: '12.34' },
    { currency: 'USD', input: '0.01', minor: 1n, formatted: '0.01' },
    { currency: 'USD', input: '10', minor: 1000n, formatted: '10.00' },
    { currency: 'USD', input: '10.5', minor: 1050n, formatted: '10.50' },
    { currency: 'USD', input: '007.10', minor: 710n, formatted: '7.10' },
    { currency: 'USD', input: '.5', minor: 50n, formatted: '0.50' },
    { currency: 'USD', input: '1.230', minor: 123n, formatted: '1.23' },
    { currency: 'USD', input: '999999999999999.99', minor: 99999999999999999n, formatted: '999999999999999.99' },
    { currency: 'JPY', input: '1500', minor: 1500n, formatted: '1500' },
    { currency: 'JPY', input: '1500.0', minor: 1500n, formatted: '1500' },
    { currency: 'JPY', input: '999999999999999', minor: 999999999999999n, formatted: '999999999999999' },
    { currency: 'BHD', input: '1.234', minor: 1234n, formatted: '1.234' },
    { currency: 'BHD', input: '0.001', minor: 1n, formatted: '0.001' },
    { currency: 'BHD', input: '5', minor: 5000n, formatted: '5.000' },
    { currency: 'USD', input: '-12.34', minor: -1234n, formatted: '-12.34' },
    { currency: 'USD', input: '-0.05', minor: -5n, formatted: '-0.05' },
    { currency: 'JPY', input: '-7', minor: -7n, formatted: '-7' },
    { currency: 'USD', input: '0', minor: 0n, formatted: '0.00' },
  ];

  it.each(roundTrips)('$currency "$input" -> $minor -> "$formatted"', ({ currency, input, minor, formatted }) => {
    expect(toMinorUnits(input, currency)).toBe(minor);
    expect(fromMinorUnits(minor, currency)).toBe(formatted);
    expect(toMinorUnits(formatted, currency)).toBe(minor);
  });

  const refused: Array<{ currency: string; input: string; issue: string }> = [
    { currency: 'USD', input: '1.234', issue: 'DECIMAL_PRECISION' },
    { currency: 'USD', input: '0.001', issue: 'DECIMAL_PRECISION' },
    { currency: 'BHD', input: '1.2345', issue: 'DECIMAL_PRECISION' },
    { currency: 'JPY', input: '1.5', issue: 'DECIMALS_NOT_SUPPORTED' },
    { currency: 'USD', input: '1000000000000000', issue: 'MAX_VALUE_EXCEEDED' },
    { currency: 'USD', input: '1000000000000000.00', issue: 'MAX_VALUE_EXCEEDED' },
    { currency: 'JPY', input: '-1000000000000000', issue: 'MAX_VALUE_EXCEEDED' },
    { currency: 'USD', input: '', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: '.', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: '1e3', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: '1,00', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: ' 1.00', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: '+1.00', issue: 'INVALID_PARAMETER_SYNTAX' },
    { currency: 'USD', input: '--1', issue: 'INVALID_PARAMETER_SYNTAX' },
  ];

  it.each(refused)('$currency "$input" is refused with $issue', ({ currency, input, issue }) => {
    let caught: unknown;
    try {
      toMinorUnits(input, currency);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MoneyParseError);
    expect((caught as MoneyParseError).issue).toBe(issue);
  });

  it('keeps 15 integer digits exact where a float would not', () => {
    const minor = toMinorUnits('123456789012345.67', 'USD');
    expect(minor).toBe(12345678901234567n);
    expect(fromMinorUnits(minor + 1n, 'USD')).toBe('123456789012345.68');
  });
});

describe('parseMoney', () => {
  it('checks the currency is supported', () => {
    expect(parseMoney({ currency_code: 'EUR', value: '3.50' })).toBe(350n);
    expect(() => parseMoney({ currency_code: 'XYZ', value: '3.50' })).toThrow(/not supported/);
  });
});

describe('percentOf', () => {
  const cases: Array<{ minor: bigint; basisPoints: bigint; expected: bigint }> = [
    { minor: 10000n, basisPoints: 290n, expected: 290n }, // 2.90 % of 100.00 = 2.90
    { minor: 1234n, basisPoints: 290n, expected: 36n }, // 35.786 -> 36
    { minor: 50n, basisPoints: 100n, expected: 1n }, // 0.5 -> 1 (half up)
    { minor: 49n, basisPoints: 100n, expected: 0n }, // 0.49 -> 0
    { minor: 150n, basisPoints: 100n, expected: 2n }, // 1.5 -> 2
    { minor: 250n, basisPoints: 100n, expected: 3n }, // 2.5 -> 3 (half up, not to even)
    { minor: -50n, basisPoints: 100n, expected: -1n }, // -0.5 -> -1 (away from zero)
    { minor: -49n, basisPoints: 100n, expected: 0n },
    { minor: 0n, basisPoints: 290n, expected: 0n },
    { minor: 99999999999999999n, basisPoints: 10000n, expected: 99999999999999999n },
  ];

  it.each(cases)('$basisPoints bp of $minor = $expected', ({ minor, basisPoints, expected }) => {
    expect(percentOf(minor, basisPoints)).toBe(expected);
  });
});

describe('canonicalDecimal', () => {
  it.each([
    ['12.50', '12.50'],
    ['10', '10'],
    ['05.50', '5.50'],
    ['00001.00', '1.00'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['-0', '0'],
    ['-0.00', '0.00'],
    ['000', '0'],
    ['-007', '-7'],
    ['1.000', '1.000'],
    ['1e3', '1e3'],
    ['', ''],
    ['.', '.'],
    ['abc', 'abc'],
  ])('%j -> %j', (text, canonical) => {
    expect(canonicalDecimal(text)).toBe(canonical);
  });

  it('writes what the server reads: every decimal toMinorUnits takes becomes canonical text of the same value', () => {
    for (const text of ['12.50', '05.50', '.5', '-.5', '-0', '-0.00', '000', '-007', '1.000', '999999999999999.99']) {
      const canonical = canonicalDecimal(text);
      expect(parseCanonicalDecimal(canonical), `${text} -> ${canonical}`).toBeDefined();
      expect(toMinorUnits(canonical, 'USD')).toBe(toMinorUnits(text, 'USD'));
    }
    for (const text of ['1e3', '', '.', 'abc', '05.50', '.5', '5.', '+5', '-.5']) expect(parseCanonicalDecimal(text), text).toBeUndefined();
    expect(parseCanonicalDecimal('-12.500')).toEqual({ negative: true, integer: '12', fraction: '5' });
  });
});
