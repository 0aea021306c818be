// Sandbox negative testing, the same in every domain: `Service-Mock-Response:
// {"mock_application_codes":"CODE"}` (alias PayPal-Mock-Response) answers with the error CODE names
// instead of running the call, and changes nothing. CODE is an issue code, answered under the error
// name below, or else an error name of the catalogue (that error, as the server would answer it), or
// else any other issue code, answered as UNPROCESSABLE_ENTITY.

import type { FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, ServiceError, serviceError, type ErrorName } from './errors.js';
import { MOCK_RESPONSE_HEADERS, boundedHeader } from './headers.js';

const NAME_FOR_ISSUE: Readonly<Record<string, ErrorName>> = {
  INVALID_PARAMETER_VALUE: 'INVALID_REQUEST',
  MISSING_REQUIRED_PARAMETER: 'INVALID_REQUEST',
  INVALID_STRING_LENGTH: 'INVALID_REQUEST',
  INVALID_STRING_MAX_LENGTH: 'INVALID_REQUEST',
  INVALID_PARAMETER_SYNTAX: 'INVALID_REQUEST',
  INVALID_ARRAY_MIN_ITEMS: 'INVALID_REQUEST',
  INVALID_ARRAY_MAX_ITEMS: 'INVALID_REQUEST',
  INVALID_COUNTRY_CODE: 'INVALID_REQUEST',
  INVALID_INTEGER_MAX_VALUE: 'INVALID_REQUEST',
  INVALID_INTEGER_MIN_VALUE: 'INVALID_REQUEST',
  MALFORMED_REQUEST_JSON: 'INVALID_REQUEST',
  NOT_SUPPORTED: 'INVALID_REQUEST',
  PAYPAL_REQUEST_ID_REQUIRED: 'INVALID_REQUEST',
  TEMPLATE_NAME_ALREADY_EXISTS: 'INVALID_REQUEST',
  INVALID_ACCOUNT_STATUS: 'AUTHENTICATION_FAILURE',
  PERMISSION_DENIED: 'NOT_AUTHORIZED',
  CONSENT_NEEDED: 'NOT_AUTHORIZED',
  INVALID_RESOURCE_ID: 'RESOURCE_NOT_FOUND',
  PREVIOUS_REQUEST_IN_PROGRESS: 'RESOURCE_CONFLICT',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  RATE_LIMIT_REACHED: 'RATE_LIMIT_REACHED',
};

const CODE_PATTERN = /^[A-Z][A-Z0-9_]{1,99}$/;

/** The code the caller asked to simulate, if any; a header that is not `{"mock_application_codes":"CODE"}` is a 400. */
function mockedCodeOf(request: FastifyRequest): string | undefined {
  const header = boundedHeader(request, MOCK_RESPONSE_HEADERS, 10_000);
  if (header === undefined) return undefined;
  let code: unknown;
  try {
    code = (JSON.parse(header) as { mock_application_codes?: unknown } | null)?.mock_application_codes;
  } catch {
    code = undefined;
  }
  if (typeof code !== 'string' || !CODE_PATTERN.test(code)) {
    throw serviceError(
      'INVALID_REQUEST',
      'INVALID_PARAMETER_SYNTAX',
      'The mock header must be JSON like {"mock_application_codes":"INSTRUMENT_DECLINED"}.',
      { field: 'Service-Mock-Response', location: 'header' },
    );
  }
  return code;
}

function mockError(code: string): ServiceError {
  const name = NAME_FOR_ISSUE[code];
  if (name === undefined && Object.hasOwn(ERROR_CATALOGUE, code)) return new ServiceError(code as ErrorName);
  // The caller's code, not one of the catalogue's ISSUE_CODES: the detail is built here, not by serviceError.
  return new ServiceError(name ?? 'UNPROCESSABLE_ENTITY', [{ issue: code, description: `Simulated by the mock response header (${code}).` }]);
}

/**
 * Throws the simulated error unless the code is one of `outcomes` this call knows how to produce;
 * returns that outcome (or undefined without a mock header).
 */
export function applyMock(request: FastifyRequest, outcomes: readonly string[] = []): string | undefined {
  const code = mockedCodeOf(request);
  if (code === undefined) return undefined;
  if (outcomes.includes(code)) return code;
  throw mockError(code);
}
