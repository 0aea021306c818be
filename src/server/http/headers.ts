// Request headers with the service's names and their PayPal-* aliases, with the spec's length limits.

import type { FastifyRequest } from 'fastify';
import { serviceError } from './errors.js';

export const REQUEST_ID_HEADERS = ['service-request-id', 'paypal-request-id'] as const;
export const AUTH_ASSERTION_HEADERS = ['service-auth-assertion', 'paypal-auth-assertion'] as const;
export const MOCK_RESPONSE_HEADERS = ['service-mock-response', 'paypal-mock-response'] as const;

const DISPLAY_NAMES: Record<string, string> = {
  'service-request-id': 'Service-Request-Id',
  'paypal-request-id': 'PayPal-Request-Id',
  'service-auth-assertion': 'Service-Auth-Assertion',
  'paypal-auth-assertion': 'PayPal-Auth-Assertion',
  'service-mock-response': 'Service-Mock-Response',
  'paypal-mock-response': 'PayPal-Mock-Response',
  authorization: 'Authorization',
};

/**
 * The value of `names` (one header under its service and PayPal-* names), checked against
 * 1..maxLength characters. Both names may be sent (payctl's client does) but with one value: two
 * different values would make one key mean two requests, so they are refused.
 */
export function boundedHeader(
  request: FastifyRequest,
  names: readonly string[],
  maxLength: number,
): string | undefined {
  let found: { name: string; value: string } | undefined;
  for (const name of names) {
    const raw = request.headers[name];
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    if (found && found.value !== value) {
      const [first, second] = [DISPLAY_NAMES[found.name] ?? found.name, DISPLAY_NAMES[name] ?? name];
      throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', `${first} and ${second} name the same header: send one value under both, not two different ones.`, {
        field: second,
        location: 'header',
      });
    }
    found ??= { name, value };
  }
  if (!found) return undefined;
  return checkedLength(found.name, found.value, maxLength);
}

function checkedLength(name: string, value: string, maxLength: number): string {
  const field = DISPLAY_NAMES[name] ?? name;
  if (value.length === 0) {
    throw serviceError('INVALID_REQUEST', 'INVALID_STRING_LENGTH', `${field} must be 1 to ${maxLength} characters.`, {
      field,
      location: 'header',
    });
  }
  if (value.length > maxLength) {
    throw serviceError('INVALID_REQUEST', 'INVALID_STRING_MAX_LENGTH', `${field} must be at most ${maxLength} characters.`, {
      field,
      location: 'header',
    });
  }
  return value;
}

export const requestIdOf = (request: FastifyRequest): string | undefined =>
  boundedHeader(request, REQUEST_ID_HEADERS, 10_000);
