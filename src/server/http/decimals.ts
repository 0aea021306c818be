// The one strict parser for decimal text at the edge: amounts, quantities and percentages. Each field
// names its own rules (sign, decimals, range); a refusal names the issue for a 400 on that field.

import { z } from 'zod';

/**
 * Canonical decimal text: an optional minus, no leading zeros, digits on both sides of a point.
 * Refused: `.5`, `5.`, `+5`, `00001.00`, `1e3`, ` 5`, `0x10`, `1_000`, and negative zero (`-0`, `-0.00`).
 */
const STRICT_DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

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

interface Parsed {
  negative: boolean;
  integer: string;
  /** Without trailing zeros. */
  fraction: string;
}

function parse(text: string): Parsed | undefined {
  const match = STRICT_DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', integer = '0', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  return { negative: sign === '-', integer, fraction: significant };
}

const isZero = (value: Parsed): boolean => value.integer === '0' && value.fraction === '';

/** a - b as a sign (-1, 0, 1), exact for any length. */
function compare(a: Parsed, b: Parsed): number {
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
  const value = parse(text);
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
  const min = rule.min === undefined ? undefined : parse(rule.min);
  const max = rule.max === undefined ? undefined : parse(rule.max);
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
