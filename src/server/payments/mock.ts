// Sandbox negative testing: `Service-Mock-Response: {"mock_application_codes":"ISSUE"}` (alias
// PayPal-Mock-Response) makes a payments or orders call answer with the error carrying ISSUE.

import type { FastifyRequest } from 'fastify';
import { serviceError, type ErrorName, type ServiceError } from '../http/errors.js';
import { MOCK_RESPONSE_HEADERS, boundedHeader } from '../http/headers.js';

const NAME_FOR_ISSUE: Readonly<Record<string, ErrorName>> = {
  INVALID_PARAMETER_VALUE: 'INVALID_REQUEST',
  MISSING_REQUIRED_PARAMETER: 'INVALID_REQUEST',
  INVALID_STRING_LENGTH: 'INVALID_REQUEST',
  INVALID_STRING_MAX_LENGTH: 'INVALID_REQUEST',
  INVALID_PARAMETER_SYNTAX: 'INVALID_REQUEST',
  INVALID_ARRAY_MIN_ITEMS: 'INVALID_REQUEST',
  INVALID_ARRAY_MAX_ITEMS: 'INVALID_REQUEST',
  INVALID_COUNTRY_CODE: 'INVALID_REQUEST',
  MALFORMED_REQUEST_JSON: 'INVALID_REQUEST',
  NOT_SUPPORTED: 'INVALID_REQUEST',
  PAYPAL_REQUEST_ID_REQUIRED: 'INVALID_REQUEST',
  INVALID_ACCOUNT_STATUS: 'AUTHENTICATION_FAILURE',
  PERMISSION_DENIED: 'NOT_AUTHORIZED',
  CONSENT_NEEDED: 'NOT_AUTHORIZED',
  INVALID_RESOURCE_ID: 'RESOURCE_NOT_FOUND',
  PREVIOUS_REQUEST_IN_PROGRESS: 'RESOURCE_CONFLICT',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  RATE_LIMIT_REACHED: 'RATE_LIMIT_REACHED',
};

const ISSUE_PATTERN = /^[A-Z][A-Z0-9_]{1,99}$/;

/** The issue the caller asked to simulate, if any. */
export function mockIssueOf(request: FastifyRequest): string | undefined {
  const header = boundedHeader(request, MOCK_RESPONSE_HEADERS, 10_000);
  if (header === undefined) return undefined;
  let issue: unknown;
  try {
    issue = (JSON.parse(header) as { mock_application_codes?: unknown } | null)?.mock_application_codes;
  } catch {
    issue = undefined;
  }
  if (typeof issue !== 'string' || !ISSUE_PATTERN.test(issue)) {
    throw serviceError(
      'INVALID_REQUEST',
      'INVALID_PARAMETER_SYNTAX',
      'The mock header must be JSON like {"mock_application_codes":"INSTRUMENT_DECLINED"}.',
      { field: 'Service-Mock-Response', location: 'header' },
    );
  }
  return issue;
}

export function mockError(issue: string): ServiceError {
  const name = NAME_FOR_ISSUE[issue] ?? 'UNPROCESSABLE_ENTITY';
  return serviceError(name, issue, `Simulated by the mock response header (${issue}).`);
}

/**
 * Throws the simulated error unless the issue is one of `outcomes` this call knows how to produce;
 * returns that outcome (or undefined without a mock header).
 */
export function applyMock(request: FastifyRequest, outcomes: readonly string[] = []): string | undefined {
  const issue = mockIssueOf(request);
  if (issue === undefined) return undefined;
  if (outcomes.includes(issue)) return issue;
  throw mockError(issue);
}
