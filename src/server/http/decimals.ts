// The one strict check of decimal text at the edge: amounts, quantities and percentages, in the
// canonical form money.ts defines. Each field names its own rules (sign, decimals, range); a refusal
// names the issue for a 400 on that field.

import { z } from 'zod';
import { parseCanonicalDecimal, type DecimalParts } from '../../lib/money.js';

export type DecimalSign = 'positive' | 'non-negative' | 'any';

export interface DecimalRule {
  sign: DecimalSign;
  /** Significant decimals allowed (trailing zeros are not precision); undefined when the caller checks them (per currency). */
  maxDecimals?: number;
  /** Inclusive bounds, as decimal text in the same canonical form. */
  min?: string;
  max?: string;
}

export interface DecimalProblem {
  issue: 'INVALID_PARAMETER_SYNTAX' | 'DECIMAL_PRECISION' | 'CANNOT_BE_NEGATIVE' | 'CANNOT_BE_ZERO_OR_NEGATIVE' | 'INVALID_PARAMETER_VALUE';
  description: string;
}

const isZero = (value: DecimalParts): boolean => value.integer === '0' && value.fraction === '';

/** a - b as a sign (-1, 0, 1), exact for any length. */
function compare(a: DecimalParts, b: DecimalParts): number {
  if (isZero(a) && isZero(b)) return 0;
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const flip = a.negative ? -1 : 1;
  if (a.integer.length !== b.integer.length) return (a.integer.length > b.integer.length ? 1 : -1) * flip;
  if (a.integer !== b.integer) return (a.integer > b.integer ? 1 : -1) * flip;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0');
  const fb = b.fraction.padEnd(width, '0');
  return fa === fb ? 0 : (fa > fb ? 1 : -1) * flip;
}

/** Why `text` breaks `rule`, or undefined when it is a valid value of the field. */
export function decimalProblem(text: string, rule: DecimalRule): DecimalProblem | undefined {
  const value = parseCanonicalDecimal(text);
  if (!value) {
    return { issue: 'INVALID_PARAMETER_SYNTAX', description: 'Expected a decimal such as 12 or 12.50: no leading zeros, digits on both sides of a point, no exponent.' };
  }
  if (value.negative && isZero(value)) return { issue: 'INVALID_PARAMETER_SYNTAX', description: 'Negative zero is not a decimal value; send 0.' };
  if (rule.maxDecimals !== undefined && value.fraction.length > rule.maxDecimals) {
    return { issue: 'DECIMAL_PRECISION', description: `At most ${rule.maxDecimals} decimals.` };
  }
  if (rule.sign === 'non-negative' && value.negative) return { issue: 'CANNOT_BE_NEGATIVE', description: 'The value must not be negative.' };
  if (rule.sign === 'positive' && (value.negative || isZero(value))) {
    return { issue: 'CANNOT_BE_ZERO_OR_NEGATIVE', description: 'The value must be greater than zero.' };
  }
  const min = rule.min === undefined ? undefined : parseCanonicalDecimal(rule.min);
  const max = rule.max === undefined ? undefined : parseCanonicalDecimal(rule.max);
  if ((min && compare(value, min) < 0) || (max && compare(value, max) > 0)) {
    return { issue: 'INVALID_PARAMETER_VALUE', description: `The value must be from ${rule.min ?? 'any'} to ${rule.max ?? 'any'}.` };
  }
  return undefined;
}

/** A zod string checked by `decimalProblem`: the issue lands on the field with its code. */
export function strictDecimal(rule: DecimalRule, maxLength = 32) {
  return z
    .string()
    .max(maxLength)
    .superRefine((text, ctx) => {
      const problem = decimalProblem(text, rule);
      if (problem) ctx.addIssue({ code: 'custom', message: problem.description, params: { issue: problem.issue } });
    });
}
