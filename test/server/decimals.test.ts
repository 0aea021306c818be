// The edge's strict decimal parser: syntax, negative zero, sign, significant decimals, exact bounds.

import { describe, expect, it } from 'vitest';
import { decimalProblem, type DecimalRule } from '../../src/server/http/decimals.js';

const ANY: DecimalRule = { sign: 'any' };
const PERCENT: DecimalRule = { sign: 'non-negative', maxDecimals: 5, max: '100' };
const QUANTITY: DecimalRule = { sign: 'positive', maxDecimals: 5, max: '1000000' };
const issueOf = (text: string, rule: DecimalRule) => decimalProblem(text, rule)?.issue;

describe('decimalProblem', () => {
  it.each(['0', '1', '10', '0.5', '12.50', '-1', '-0.01', '123456789012345678901234567890.123'])('accepts %s in any-sign fields', (text) => {
    expect(issueOf(text, ANY)).toBeUndefined();
  });

  it.each(['-0', '-0.0', '-00', '00', '01', '00001.00', '.5', '-.5', '5.', '+5', '1e3', '1E3', ' 1', '1 ', '0x10', '1_000', '1,5', '１', '٣', '--1', '', '-', '.', 'NaN', 'Infinity', '1.2.3', '1\n'])(
    'refuses %j as syntax',
    (text) => {
      expect(issueOf(text, ANY)).toBe('INVALID_PARAMETER_SYNTAX');
    },
  );

  it.each([
    ['100', undefined],
    ['100.00000', undefined],
    ['100.00001', 'INVALID_PARAMETER_VALUE'],
    ['1000', 'INVALID_PARAMETER_VALUE'],
    ['99.99999', undefined],
    ['0', undefined],
    ['0.000001', 'DECIMAL_PRECISION'],
    ['0.0000010', 'DECIMAL_PRECISION'],
    ['0.100000', undefined],
    ['-1', 'CANNOT_BE_NEGATIVE'],
    ['-0.00001', 'CANNOT_BE_NEGATIVE'],
  ])('percent %s -> %s', (text, issue) => {
    expect(issueOf(text, PERCENT)).toBe(issue);
  });

  it.each([
    ['0', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['0.00000', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['-1', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    ['0.00001', undefined],
    ['1000000', undefined],
    ['1000000.00001', 'INVALID_PARAMETER_VALUE'],
    ['999999.99999', undefined],
    ['10000000', 'INVALID_PARAMETER_VALUE'],
  ])('quantity %s -> %s', (text, issue) => {
    expect(issueOf(text, QUANTITY)).toBe(issue);
  });

  it('compares bounds exactly across signs and lengths', () => {
    const band: DecimalRule = { sign: 'any', min: '-2.5', max: '10' };
    expect(['-2.5', '-2.49999', '0', '9.99', '10', '10.0'].map((text) => issueOf(text, band))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(['-2.50001', '-3', '-10', '10.00001', '11', '100'].map((text) => issueOf(text, band))).toEqual(Array(6).fill('INVALID_PARAMETER_VALUE'));
  });
});
