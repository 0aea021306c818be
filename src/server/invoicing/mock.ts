// Sandbox negative testing for invoicing: `Service-Mock-Response: {"mock_application_codes":"X"}`
// (or PayPal-Mock-Response) answers with the error X names instead of running the operation.

import type { FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, ServiceError, serviceError, type ErrorName } from '../http/errors.js';
import { MOCK_RESPONSE_HEADERS, boundedHeader } from '../http/headers.js';

/** Issue codes that can be simulated, with the error name each comes under. */
const MOCKABLE_ISSUES: Record<string, ErrorName> = {
  TEMPLATE_NAME_ALREADY_EXISTS: 'INVALID_REQUEST',
  INVALID_INTEGER_MAX_VALUE: 'INVALID_REQUEST',
  INVALID_INTEGER_MIN_VALUE: 'INVALID_REQUEST',
  PERMISSION_DENIED: 'NOT_AUTHORIZED',
  INVALID_REFUND_AMOUNT: 'UNPROCESSABLE_ENTITY',
  CANNOT_PROCESS_REFUNDS: 'UNPROCESSABLE_ENTITY',
  CANNOT_PROCESS_PAYMENTS: 'UNPROCESSABLE_ENTITY',
  PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE: 'UNPROCESSABLE_ENTITY',
  CANNOT_REMIND_INVOICE: 'UNPROCESSABLE_ENTITY',
  USER_NOT_FOUND: 'UNPROCESSABLE_ENTITY',
};

/** Throws the simulated error when the request asks for one. */
export function throwMockedError(request: FastifyRequest): void {
  const header = boundedHeader(request, MOCK_RESPONSE_HEADERS, 10_000);
  if (header === undefined) return;
  let code: unknown;
  try {
    code = (JSON.parse(header) as { mock_application_codes?: unknown }).mock_application_codes;
  } catch {
    code = undefined;
  }
  if (typeof code !== 'string') {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', 'The mock header must be {"mock_application_codes":"<CODE>"}.', {
      field: 'Service-Mock-Response',
      location: 'header',
    });
  }
  if (code in ERROR_CATALOGUE) throw new ServiceError(code as ErrorName);
  const name = MOCKABLE_ISSUES[code];
  if (name) throw serviceError(name, code, `Simulated ${code}.`);
  throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', `No simulation is defined for "${code}".`, {
    field: 'Service-Mock-Response',
    value: code,
    location: 'header',
  });
}
