// The one catalogue of service errors and the error body every failure is rendered as.

import { randomBytes } from 'node:crypto';

export type ErrorLocation = 'body' | 'query' | 'path' | 'header';

export interface ErrorDetail {
  field?: string;
  value?: string;
  location?: ErrorLocation;
  issue: string;
  description?: string;
}

export interface ErrorLink {
  href: string;
  rel: string;
  method?: string;
}

export interface ErrorBody {
  name: string;
  message: string;
  debug_id: string;
  details?: ErrorDetail[];
  links?: ErrorLink[];
  information_link?: string;
}

interface CatalogueEntry {
  status: number;
  message: string;
}

/** Error names with their HTTP status and fixed message. */
export const ERROR_CATALOGUE = {
  INVALID_REQUEST: { status: 400, message: 'Request is not well-formed, syntactically incorrect, or violates schema.' },
  AUTHENTICATION_FAILURE: {
    status: 401,
    message: 'Authentication failed due to missing authorization header, or invalid authentication credentials.',
  },
  NOT_AUTHORIZED: { status: 403, message: 'Authorization failed due to insufficient permissions.' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'The specified resource does not exist.' },
  METHOD_NOT_SUPPORTED: { status: 405, message: 'The server does not implement the requested HTTP method.' },
  NOT_ACCEPTABLE: { status: 406, message: 'The server does not implement the media type that would be acceptable to the client.' },
  RESOURCE_CONFLICT: { status: 409, message: 'The server has detected a conflict while processing this request.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request payload is larger than the server accepts.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The server does not support the request payload's media type." },
  UNPROCESSABLE_ENTITY: {
    status: 422,
    message: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
  },
  RATE_LIMIT_REACHED: { status: 429, message: 'Too many requests. Blocked due to rate limiting.' },
  INTERNAL_SERVER_ERROR: { status: 500, message: 'An internal server error occurred.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service Unavailable.' },
  // The dispute API's own names (sandbox simulation and permission failures).
  FORBIDDEN: { status: 403, message: 'No permission for the requested operation.' },
  AUTHORIZATION_ERROR: { status: 403, message: 'Authorization error occurred.' },
  INVALID_RESOURCE_ID: { status: 404, message: 'Requested resource ID was not found.' },
  VALIDATION_ERROR: { status: 400, message: 'Invalid request - see details.' },
  INTERNAL_SERVICE_ERROR: { status: 500, message: 'Internal service error.' },
  // Payouts: a business rule refused the request (e.g. a sender_batch_id already used).
  USER_BUSINESS_ERROR: { status: 400, message: 'User business error.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorName = keyof typeof ERROR_CATALOGUE;

const INFORMATION_BASE = 'https://developer.payctl.dev/docs/errors';

/** A failure the service reports to the caller in the error shape. */
export class ServiceError extends Error {
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  /** Links to related resources (e.g. the earlier batch a duplicate refers to), after information_link. */
  readonly links: ErrorLink[];

  constructor(
    readonly errorName: ErrorName,
    details: ErrorDetail[] = [],
    options: { headers?: Record<string, string>; message?: string; links?: ErrorLink[] } = {},
  ) {
    const entry = ERROR_CATALOGUE[errorName];
    super(options.message ?? entry.message);
    this.name = 'ServiceError';
    this.status = entry.status;
    this.details = details;
    this.headers = options.headers ?? {};
    this.links = options.links ?? [];
  }
}

/** Shorthand for the common case of one issue. */
export function serviceError(
  errorName: ErrorName,
  issue: string,
  description: string,
  where: { field?: string; value?: unknown; location?: ErrorLocation } = {},
): ServiceError {
  const detail: ErrorDetail = { issue, description };
  if (where.field !== undefined) detail.field = where.field;
  if (where.value !== undefined) detail.value = displayValue(where.value);
  if (where.field !== undefined || where.location !== undefined) detail.location = where.location ?? 'body';
  return new ServiceError(errorName, [detail]);
}

export function notFound(what: string, id: string, location: ErrorLocation = 'path'): ServiceError {
  return serviceError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', `Specified resource ID does not exist. Please check the resource ID and try again.`, {
    field: `${what}_id`,
    value: id,
    location,
  });
}

export function newDebugId(): string {
  return randomBytes(7).toString('hex');
}

/** Renders an error as the body the caller receives. 5xx bodies never carry details. */
export function errorBody(error: ServiceError, debugId: string): ErrorBody {
  const body: ErrorBody = { name: error.errorName, message: error.message, debug_id: debugId };
  const fragment = `#${error.errorName}`;
  if (error.status >= 500) {
    body.links = [{ href: `${INFORMATION_BASE}${fragment}`, rel: 'information_link', method: 'GET' }];
    return body;
  }
  if (error.details.length > 0) {
    body.details = error.details;
    const issue = error.details[0]?.issue;
    body.links = [
      { href: `${INFORMATION_BASE}${issue ? `#${issue}` : fragment}`, rel: 'information_link', method: 'GET' },
    ];
  } else {
    body.links = [{ href: `${INFORMATION_BASE}${fragment}`, rel: 'information_link', method: 'GET' }];
  }
  body.links.push(...error.links);
  return body;
}

/** A value as it is shown in an error detail: strings as they are, others as JSON, long ones cut. */
export function displayValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > 256 ? `${text.slice(0, 253)}...` : text;
}

/** Issue codes of the reporting API's refusals (400 INVALID_REQUEST, location query). */
export const REPORTING_ISSUES = [
  'MISSING_REQUIRED_PARAMETER',
  'INVALID_PARAMETER_SYNTAX',
  'INVALID_PARAMETER_VALUE',
  'INVALID_DATE_RANGE',
  'DATE_RANGE_TOO_LARGE',
  'INVALID_AMOUNT_RANGE',
  'PAGE_OUT_OF_RANGE',
] as const;
export type ReportingIssue = (typeof REPORTING_ISSUES)[number];
