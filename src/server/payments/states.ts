// Lifecycles of authorizations, captures and refunds: which operation may move which status where,
// and the issue code each refusal carries.

import { storedStatus } from '../core/transitions.js';
import { serviceError, type ServiceError, type IssueCode } from '../http/errors.js';

export type AuthorizationStatus = 'CREATED' | 'CAPTURED' | 'DENIED' | 'PARTIALLY_CAPTURED' | 'VOIDED' | 'PENDING';
export type CaptureStatus = 'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED';
export type RefundStatus = 'CANCELLED' | 'FAILED' | 'PENDING' | 'COMPLETED';

export const AUTHORIZATION_TRANSITIONS: Record<AuthorizationStatus, readonly AuthorizationStatus[]> = {
  PENDING: ['CREATED', 'DENIED', 'VOIDED'],
  // CREATED -> CREATED: reauthorized (the original stays open until voided or expired).
  CREATED: ['CREATED', 'PARTIALLY_CAPTURED', 'CAPTURED', 'VOIDED'],
  PARTIALLY_CAPTURED: ['PARTIALLY_CAPTURED', 'CAPTURED', 'VOIDED'],
  CAPTURED: [],
  DENIED: [],
  VOIDED: [],
};

export const CAPTURE_TRANSITIONS: Record<CaptureStatus, readonly CaptureStatus[]> = {
  PENDING: ['COMPLETED', 'DECLINED'],
  // -> REFUNDED also by a reversal (a dispute lost), which the API has no status of its own for.
  COMPLETED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  REFUNDED: [],
  DECLINED: [],
  FAILED: [],
};

/**
 * This server settles a refund when it is made: it is created COMPLETED and never moves. PENDING is
 * the API's status for a refund waiting on funds, which then completes, fails or is cancelled; the
 * table holds those moves so that a refund that ever waits follows the API's lifecycle.
 */
export const REFUND_TRANSITIONS: Record<RefundStatus, readonly RefundStatus[]> = {
  PENDING: ['COMPLETED', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

/**
 * A reversed capture is REFUNDED (the spec's six statuses have no REVERSED) with one of these
 * status_details reasons; the reversal itself is carried by PAYMENT.CAPTURE.REVERSED and the dispute.
 */
export const REVERSAL_REASONS: ReadonlySet<string> = new Set(['BUYER_COMPLAINT', 'CHARGEBACK']);

export function isReversedCapture(status: string, statusReason: string | null): boolean {
  return status === 'REFUNDED' && statusReason !== null && REVERSAL_REASONS.has(statusReason);
}

/** Statuses in which an authorization can still expire (and be voided by the server). */
export const OPEN_AUTHORIZATION_STATUSES: readonly AuthorizationStatus[] = ['PENDING', 'CREATED', 'PARTIALLY_CAPTURED'];

export type AuthorizationOperation = 'capture' | 'void' | 'reauthorize' | 'review' | 'expire';
export type CaptureOperation = 'refund' | 'complete' | 'decline' | 'reverse';
export type RefundOperation = 'complete' | 'fail' | 'cancel';

/** The issue each operation answers for a status it cannot act on. */
const AUTHORIZATION_REFUSALS: Record<AuthorizationOperation, Partial<Record<AuthorizationStatus, IssueCode>>> = {
  capture: {
    PENDING: 'TRANSACTION_REFUSED',
    CAPTURED: 'AUTHORIZATION_ALREADY_CAPTURED',
    DENIED: 'AUTHORIZATION_DENIED',
    VOIDED: 'AUTHORIZATION_VOIDED',
  },
  void: {
    CAPTURED: 'PREVIOUSLY_CAPTURED',
    VOIDED: 'PREVIOUSLY_VOIDED',
    DENIED: 'CANNOT_BE_VOIDED',
  },
  reauthorize: {
    PENDING: 'TRANSACTION_REFUSED',
    PARTIALLY_CAPTURED: 'AUTHORIZATION_ALREADY_CAPTURED',
    CAPTURED: 'AUTHORIZATION_ALREADY_CAPTURED',
    DENIED: 'AUTHORIZATION_DENIED',
    VOIDED: 'AUTHORIZATION_VOIDED',
  },
  review: {
    CREATED: 'AUTHORIZATION_NOT_PENDING',
    PARTIALLY_CAPTURED: 'AUTHORIZATION_NOT_PENDING',
    CAPTURED: 'AUTHORIZATION_NOT_PENDING',
    DENIED: 'AUTHORIZATION_NOT_PENDING',
    VOIDED: 'AUTHORIZATION_NOT_PENDING',
  },
  expire: {},
};

const CAPTURE_REFUSALS: Record<CaptureOperation, Partial<Record<CaptureStatus, IssueCode>>> = {
  refund: {
    PENDING: 'PENDING_CAPTURE',
    REFUNDED: 'CAPTURE_FULLY_REFUNDED',
    DECLINED: 'REFUND_NOT_ALLOWED',
    FAILED: 'REFUND_NOT_ALLOWED',
  },
  complete: {},
  decline: {},
  reverse: {},
};

function refusal(
  resource: string,
  operation: string,
  current: string,
  allowed: readonly string[],
  issue: IssueCode,
): ServiceError {
  const from = allowed.length > 0 ? `from there it can go to ${allowed.join(', ')}` : 'that status is final';
  return serviceError('UNPROCESSABLE_ENTITY', issue, `Cannot ${operation} this ${resource}: its status is ${current} (${from}).`);
}

/** Throws the API's refusal unless `operation` may move an authorization from `current` to `target`. */
export function assertCanTransition(
  operation: AuthorizationOperation,
  current: AuthorizationStatus,
  target: AuthorizationStatus,
): void {
  const allowed = AUTHORIZATION_TRANSITIONS[current];
  if (allowed.includes(target)) return;
  const issue = AUTHORIZATION_REFUSALS[operation][current] ?? 'TRANSACTION_REFUSED';
  throw refusal('authorization', operation, current, allowed, issue);
}

/** Refuses to refund a reversed capture (a dispute lost) with the issue of its own the API gives it. */
export function assertNotReversed(current: CaptureStatus, statusReason: string | null): void {
  if (!isReversedCapture(current, statusReason)) return;
  throw refusal('capture', 'refund', `${current} (reversed)`, CAPTURE_TRANSITIONS[current], 'REFUND_NOT_PERMITTED_DUE_TO_CHARGEBACK');
}

/** The capture counterpart of assertCanTransition. */
export function assertCaptureCanTransition(operation: CaptureOperation, current: CaptureStatus, target: CaptureStatus): void {
  const allowed = CAPTURE_TRANSITIONS[current];
  if (allowed.includes(target)) return;
  const fallback = operation === 'refund' ? 'REFUND_NOT_ALLOWED' : operation === 'reverse' ? 'REVERSAL_NOT_ALLOWED' : 'CAPTURE_NOT_PENDING';
  const issue = CAPTURE_REFUSALS[operation][current] ?? fallback;
  throw refusal('capture', operation, current, allowed, issue);
}

/** The refund counterpart of assertCanTransition. */
export function assertRefundCanTransition(operation: RefundOperation, current: RefundStatus, target: RefundStatus): void {
  const allowed = REFUND_TRANSITIONS[current];
  if (allowed.includes(target)) return;
  throw refusal('refund', operation, current, allowed, 'REFUND_NOT_ALLOWED');
}

export function authorizationStatusOf(value: string): AuthorizationStatus {
  return storedStatus(AUTHORIZATION_TRANSITIONS, 'authorization', value);
}

export function captureStatusOf(value: string): CaptureStatus {
  return storedStatus(CAPTURE_TRANSITIONS, 'capture', value);
}

export function refundStatusOf(value: string): RefundStatus {
  return storedStatus(REFUND_TRANSITIONS, 'refund', value);
}
