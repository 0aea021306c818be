// Schema parsing at the HTTP boundary: zod issues become the service's validation details.

import { z } from 'zod';
import { FULL_DATE_PATTERN, isCalendarDate, parseRfc3339 } from '../core/rfc3339.js';
import { ServiceError, displayValue, serviceError, type ErrorDetail, type ErrorLocation, type ErrorName } from './errors.js';

/**
 * Custom refinements can name their issue code: `ctx.addIssue({ code: 'custom', params: { issue } })`
 * or `.refine(fn, { params: { issue: 'X' } })`.
 */
function issueCode(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return input === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_SYNTAX';
    case 'too_big':
      if (issue.origin === 'string') return 'INVALID_STRING_MAX_LENGTH';
      if (issue.origin === 'array' || issue.origin === 'set') return 'INVALID_ARRAY_MAX_ITEMS';
      return 'INVALID_INTEGER_MAX_VALUE';
    case 'too_small':
      if (issue.origin === 'string') return 'INVALID_STRING_LENGTH';
      if (issue.origin === 'array' || issue.origin === 'set') return 'INVALID_ARRAY_MIN_ITEMS';
      return 'INVALID_INTEGER_MIN_VALUE';
    case 'invalid_format':
      return 'INVALID_PARAMETER_SYNTAX';
    case 'invalid_value':
    case 'invalid_union':
      return input === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_VALUE';
    case 'not_multiple_of':
      return 'INVALID_PARAMETER_VALUE';
    case 'custom': {
      const named = (issue.params as { issue?: unknown } | undefined)?.issue;
      return typeof named === 'string' ? named : 'INVALID_PARAMETER_VALUE';
    }
    default:
      return 'INVALID_PARAMETER_VALUE';
  }
}

function describe(issue: z.core.$ZodIssue, code: string): string {
  switch (code) {
    case 'MISSING_REQUIRED_PARAMETER':
      return 'A required field is missing.';
    case 'INVALID_STRING_MAX_LENGTH':
      return `The value is too long: at most ${String((issue as { maximum?: unknown }).maximum)} characters.`;
    case 'INVALID_STRING_LENGTH':
      return `The value is too short: at least ${String((issue as { minimum?: unknown }).minimum)} characters.`;
    case 'INVALID_INTEGER_MAX_VALUE':
      return `The value exceeds the maximum of ${String((issue as { maximum?: unknown }).maximum)}.`;
    case 'INVALID_INTEGER_MIN_VALUE':
      return `The value is below the minimum of ${String((issue as { minimum?: unknown }).minimum)}.`;
    case 'INVALID_ARRAY_MAX_ITEMS':
      return `Too many items: at most ${String((issue as { maximum?: unknown }).maximum)}.`;
    case 'INVALID_ARRAY_MIN_ITEMS':
      return `Too few items: at least ${String((issue as { minimum?: unknown }).minimum)}.`;
    default:
      return issue.message;
  }
}

/** JSON pointer (RFC 6901) of a path. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return `/${path.map((part) => String(part).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

export function toDetails(error: z.ZodError, input: unknown, location: ErrorLocation): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path as PropertyKey[];
    const value = valueAt(input, path);
    const issueName = issueCode(issue, value);
    const detail: ErrorDetail = {
      field: jsonPointer(path),
      location,
      issue: issueName,
      description: describe(issue, issueName),
    };
    if (value !== undefined && (typeof value !== 'object' || value === null)) detail.value = displayValue(value);
    return detail;
  });
}

/** Parses `input` or throws INVALID_REQUEST naming every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, location: ErrorLocation): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ServiceError('INVALID_REQUEST', toDetails(result.error, input, location));
}

/** No body at all means no fields; a JSON `null` body is a value of the wrong type, like `[]` or `1`. */
export const parseBody = <S extends z.ZodType>(schema: S, body: unknown): z.output<S> =>
  parseWith(schema, body === undefined ? {} : body, 'body');
export const parseQuery = <S extends z.ZodType>(schema: S, query: unknown): z.output<S> =>
  parseWith(schema, query ?? {}, 'query');
export const parsePath = <S extends z.ZodType>(schema: S, params: unknown): z.output<S> =>
  parseWith(schema, params ?? {}, 'path');

/**
 * A query parameter that may be given once: its text, or undefined when it is absent. Given twice
 * (an array) it is `errorName` with INVALID_PARAMETER_SYNTAX on that parameter.
 */
export function singleQueryValue(query: Record<string, unknown>, name: string, errorName: ErrorName): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw serviceError(errorName, 'INVALID_PARAMETER_SYNTAX', `Give ${name} once.`, { field: name, value, location: 'query' });
  return value;
}

/** Query-string integers arrive as text: a strict integer parse with the service's issue codes. */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^-?[0-9]{1,12}$/, 'Expected an integer.')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** A date as YYYY-MM-DD that exists on the calendar (core/rfc3339.ts), kept as sent. */
export function calendarDateSchema() {
  return z
    .string()
    .regex(FULL_DATE_PATTERN, 'Expected a date as YYYY-MM-DD.')
    .refine(isCalendarDate, { message: 'The date does not exist on the calendar.', params: { issue: 'INVALID_PARAMETER_SYNTAX' } });
}

/** An RFC 3339 date and time (core/rfc3339.ts), kept as sent. */
export function dateTimeSchema() {
  return z
    .string()
    .max(64)
    .refine((text) => parseRfc3339(text) !== undefined, { message: 'Expected an RFC 3339 date and time.', params: { issue: 'INVALID_PARAMETER_SYNTAX' } });
}

/** An RFC 3339 date and time as the stored form: UTC with milliseconds, so it compares as text. */
export function utcTimestampSchema() {
  return dateTimeSchema().transform((text) => (parseRfc3339(text) as Date).toISOString());
}

/**
 * Optional strings, each with its maximum length: `z.object(optionalStrings({ given_name: 140 }))`
 * is `z.object({ given_name: z.string().max(140).optional() })`, in the order written.
 */
export function optionalStrings<K extends string>(maxLengths: Record<K, number>): Record<K, z.ZodOptional<z.ZodString>> {
  const shape: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const [key, max] of Object.entries<number>(maxLengths)) shape[key] = z.string().max(max).optional();
  return shape as Record<K, z.ZodOptional<z.ZodString>>;
}

/** The API's portable address (address_portable), shared by invoices and dispute returns. */
export function portableAddressSchema() {
  return z.object({
    country_code: z.string().regex(/^([A-Z]{2}|C2)$/, 'Expected a two-letter country code.'),
    ...optionalStrings({
      address_line_1: 300,
      address_line_2: 300,
      address_line_3: 100,
      admin_area_4: 100,
      admin_area_3: 100,
      admin_area_2: 120,
      admin_area_1: 300,
      postal_code: 60,
    }),
  });
}

export function queryBoolean() {
  return z.enum(['true', 'false']).transform((value) => value === 'true');
}
