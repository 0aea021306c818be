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

/**
 * Every issue code the service puts in an error's details, one a line: serviceError takes only
 * these, so a misspelt or new code fails the type check until it is added here. (Issue codes of
 * schema failures and of the mock response header are the caller's; they are not listed.)
 */
export const ISSUE_CODES = [
  'ACCEPT_CLAIM_TYPE_NOT_ALLOWED',
  'ACTION_DOES_NOT_MATCH_INTENT',
  'AMOUNT_MISMATCH',
  'AMOUNT_SHOULD_NOT_BE_PASSED',
  'AUTHORIZATION_ALREADY_CAPTURED',
  'AUTHORIZATION_AMOUNT_EXCEEDED',
  'AUTHORIZATION_DENIED',
  'AUTHORIZATION_EXPIRED',
  'AUTHORIZATION_NOT_PENDING',
  'AUTHORIZATION_VOIDED',
  'AUTH_CAPTURE_CURRENCY_MISMATCH',
  'AUTH_CURRENCY_MISMATCH',
  'BATCH_INCORRECT_STATUS',
  'CANNOT_BE_NEGATIVE',
  'CANNOT_BE_VOIDED',
  'CANNOT_BE_ZERO_OR_NEGATIVE',
  'CANNOT_CANCEL_DRAFT_INVOICE',
  'CANNOT_CANCEL_INVOICE',
  'CANNOT_CANCEL_PAID_INVOICE',
  'CANNOT_CANCEL_REFUNDED_INVOICE',
  'CANNOT_CANCEL_SCHEDULED_INVOICE',
  'CANNOT_DELETE_EXTERNAL_PAYMENT',
  'CANNOT_DELETE_GLOBAL_TEMPLATE',
  'CANNOT_DELETE_INVOICE',
  'CANNOT_PROCESS_PAYMENTS',
  'CANNOT_PROCESS_REFUNDS',
  'CANNOT_REMIND_INVOICE',
  'CANNOT_SEND_INVOICE',
  'CANNOT_UPDATE_INVOICE',
  'CAPTURE_FULLY_REFUNDED',
  'CAPTURE_ID_NOT_FOUND',
  'CAPTURE_NOT_PENDING',
  'CAPTURE_STATUS_NOT_VALID',
  'CARD_EXPIRED',
  'CURRENCY_MISMATCH',
  'CURRENCY_NOT_SUPPORTED',
  'DATE_CAN_NOT_BE_IN_FUTURE',
  'DATE_RANGE_TOO_LARGE',
  'DECIMALS_NOT_SUPPORTED',
  'DECIMAL_PRECISION',
  'DISPUTE_AMOUNT_EXCEEDS_TRANSACTION',
  'DISPUTE_RESOLVED',
  'DUPLICATE_EMAIL',
  'DUPLICATE_INVOICE_ID',
  'DUPLICATE_INVOICE_NUMBER',
  'DUPLICATE_REFERENCE_ID',
  'DUPLICATE_REQUEST_ID',
  'INVALID_ACCESS_TOKEN',
  'INVALID_AMOUNT_RANGE',
  'INVALID_AUTH_ASSERTION',
  'INVALID_CURRENCY_CODE',
  'INVALID_DATE_RANGE',
  'INVALID_DECIMAL_VALUE',
  'INVALID_DISPUTE_STAGE',
  'INVALID_DISPUTE_STATUS',
  'INVALID_EVIDENCE_FILE',
  'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT',
  'INVALID_INTEGER_VALUE',
  'INVALID_JSON_POINTER_FORMAT',
  'INVALID_PAGE_SIZE',
  'INVALID_PARAMETER_SYNTAX',
  'INVALID_PARAMETER_VALUE',
  'INVALID_PATCH_OPERATION',
  'INVALID_REFUND_AMOUNT',
  'INVALID_RESOURCE_ID',
  'INVALID_RETURN_SHIPPING_ADDRESS_FORMAT',
  'INVALID_STAGE_TRANSITION',
  'INVALID_START_TIME_FORMAT',
  'INVALID_START_TIME_RANGE',
  'INVALID_STATUS_TRANSITION',
  'INVALID_STRING_LENGTH',
  'INVALID_STRING_MAX_LENGTH',
  'INVOICE_CANCELED_ALREADY',
  'INVOICE_NOT_SENT',
  'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES',
  'ITEM_INCORRECT_STATUS',
  'ITEM_SKU_MISMATCH',
  'ITEM_TOTAL_MISMATCH',
  'ITEM_TOTAL_REQUIRED',
  'MALFORMED_REQUEST',
  'MALFORMED_REQUEST_JSON',
  'MAX_CAPTURE_AMOUNT_EXCEEDED',
  'MAX_CAPTURE_COUNT_EXCEEDED',
  'MAX_DEPTH_EXCEEDED',
  'MAX_NUMBER_OF_REFUNDS_EXCEEDED',
  'MAX_VALUE_EXCEEDED',
  'MISSING_EVIDENCE_INFO',
  'MISSING_EVIDENCE_TYPE',
  'MISSING_OFFER_AMOUNT',
  'MISSING_REFUND_AMOUNT',
  'MISSING_REFUND_ID',
  'MISSING_REQUIRED_PARAMETER',
  'MISSING_RETURN_SHIPPING_ADDRESS',
  'MISSING_TRACKING_INFO',
  'MSP_NOT_SUPPORTED',
  'MULTI_CURRENCY_ORDER',
  'NOT_APPEALABLE',
  'NOT_PATCHABLE',
  'NOT_SUPPORTED',
  'NO_OPEN_OFFER',
  'NO_RETURN_PENDING',
  'OFFER_AMOUNT_EXCEEDS_ALLOWED_REFUND',
  'OFFER_PENDING',
  'OFFER_TYPE_NOT_ALLOWED',
  'ORDER_ALREADY_AUTHORIZED',
  'ORDER_ALREADY_CAPTURED',
  'ORDER_ALREADY_COMPLETED',
  'ORDER_CANNOT_BE_CONFIRMED',
  'ORDER_COMPLETED_OR_VOIDED',
  'ORDER_NOT_APPROVED',
  'PAGE_OUT_OF_RANGE',
  'PATCH_PATH_REQUIRED',
  'PATCH_VALUE_REQUIRED',
  'PAYEE_ACCOUNT_INVALID',
  'PAYLOAD_TOO_LARGE',
  'PAYMENT_ALREADY_APPROVED',
  'PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE',
  'PAYPAL_REQUEST_ID_REQUIRED',
  'PENDING_CAPTURE',
  'PERMISSION_DENIED',
  'PREVIOUSLY_CAPTURED',
  'PREVIOUSLY_VOIDED',
  'REAUTHORIZATION_NOT_SUPPORTED',
  'REFERENCE_ID_NOT_FOUND',
  'REFERENCE_ID_REQUIRED',
  'REFUND_AMOUNT_EXCEEDED',
  'REFUND_AMOUNT_EXCEEDS_ALLOWED_REFUND',
  'REFUND_CAPTURE_CURRENCY_MISMATCH',
  'REFUND_FAILED_INSUFFICIENT_FUNDS',
  'REFUND_NOT_ALLOWED',
  'REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK',
  'REFUND_TIME_LIMIT_EXCEEDED',
  'REQUEST_TIMEOUT',
  'RETURN_IN_PROGRESS',
  'REVERSAL_NOT_ALLOWED',
  'SHIPPING_ADDRESS_SHOULD_NOT_BE_PASSED',
  'TAX_TOTAL_MISMATCH',
  'TAX_TOTAL_REQUIRED',
  'TEMPLATE_LIMIT_REACHED',
  'TEMPLATE_NAME_ALREADY_EXISTS',
  'TRACKER_ALREADY_EXISTS',
  'TRACKER_ID_NOT_FOUND',
  'TRANSACTION_ALREADY_DISPUTED',
  'TRANSACTION_DISPUTED',
  'TRANSACTION_NOT_DISPUTABLE',
  'TRANSACTION_REFUSED',
  'UNKNOWN_CLIENT_ID',
  'UNPROCESSABLE_ENTITY',
  'UNSUPPORTED_INTENT',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALUE_CANNOT_BE_ZERO',
  'WEBHOOK_LOOKUP_ALREADY_EXISTS',
  'WEBHOOK_NUMBER_LIMIT_EXCEEDED',
  'WEBHOOK_URL_ALREADY_EXISTS',
] as const;
export type IssueCode = (typeof ISSUE_CODES)[number];

/** Shorthand for the common case of one issue. */
export function serviceError(
  errorName: ErrorName,
  issue: IssueCode,
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
