// Lifecycle of a checkout order: created, approved by the payer, then authorized or captured.

import { storedStatus } from '../core/transitions.js';
import { serviceError, type IssueCode } from '../http/errors.js';

export type OrderStatus = 'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED';
export type OrderOperation = 'approve' | 'authorize' | 'capture' | 'confirm';

export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  CREATED: ['APPROVED', 'PAYER_ACTION_REQUIRED'],
  PAYER_ACTION_REQUIRED: ['APPROVED'],
  SAVED: ['APPROVED', 'PAYER_ACTION_REQUIRED'],
  APPROVED: ['COMPLETED'],
  COMPLETED: [],
  VOIDED: [],
};

const REFUSALS: Record<OrderOperation, Partial<Record<OrderStatus, IssueCode>>> = {
  approve: { COMPLETED: 'ORDER_COMPLETED_OR_VOIDED', VOIDED: 'ORDER_COMPLETED_OR_VOIDED' },
  authorize: {
    CREATED: 'ORDER_NOT_APPROVED',
    PAYER_ACTION_REQUIRED: 'ORDER_NOT_APPROVED',
    SAVED: 'ORDER_NOT_APPROVED',
    COMPLETED: 'ORDER_ALREADY_AUTHORIZED',
    VOIDED: 'ORDER_COMPLETED_OR_VOIDED',
  },
  capture: {
    CREATED: 'ORDER_NOT_APPROVED',
    PAYER_ACTION_REQUIRED: 'ORDER_NOT_APPROVED',
    SAVED: 'ORDER_NOT_APPROVED',
    COMPLETED: 'ORDER_ALREADY_CAPTURED',
    VOIDED: 'ORDER_COMPLETED_OR_VOIDED',
  },
  confirm: {
    APPROVED: 'PAYMENT_ALREADY_APPROVED',
    COMPLETED: 'ORDER_CANNOT_BE_CONFIRMED',
    VOIDED: 'ORDER_CANNOT_BE_CONFIRMED',
  },
};

/** An order's details can be changed (PATCH) only before it is completed. */
const PATCHABLE: readonly OrderStatus[] = ['CREATED', 'APPROVED'];

export function assertCanUpdate(current: OrderStatus): void {
  if (PATCHABLE.includes(current)) return;
  const issue = current === 'COMPLETED' ? 'ORDER_ALREADY_COMPLETED' : 'NOT_PATCHABLE';
  throw serviceError('UNPROCESSABLE_ENTITY', issue, `Cannot update this order: its status is ${current} (only ${PATCHABLE.join(' or ')} orders can be updated).`);
}

/** A shipment tracker's status, as the API spells it. */
export const TRACKER_STATUSES = [
  'CANCELLED', 'DELIVERED', 'LOCAL_PICKUP', 'ON_HOLD', 'SHIPPED', 'SHIPMENT_CREATED', 'DROPPED_OFF', 'IN_TRANSIT', 'RETURNED',
  'LABEL_PRINTED', 'ERROR', 'UNCONFIRMED', 'PICKUP_FAILED', 'DELIVERY_DELAYED', 'DELIVERY_SCHEDULED', 'DELIVERY_FAILED',
  'INRETURN', 'IN_PROCESS', 'NEW', 'VOID', 'PROCESSED', 'NOT_SHIPPED', 'COMPLETED',
] as const;
export type TrackerStatus = (typeof TRACKER_STATUSES)[number];

/** A tracker is created with any status but CANCELLED; the only change the API allows is to CANCELLED, which is final. */
const TO_CANCELLED: readonly TrackerStatus[] = ['CANCELLED'];
export const TRACKER_TRANSITIONS: Record<TrackerStatus, readonly TrackerStatus[]> = {
  CANCELLED: [],
  DELIVERED: TO_CANCELLED,
  LOCAL_PICKUP: TO_CANCELLED,
  ON_HOLD: TO_CANCELLED,
  SHIPPED: TO_CANCELLED,
  SHIPMENT_CREATED: TO_CANCELLED,
  DROPPED_OFF: TO_CANCELLED,
  IN_TRANSIT: TO_CANCELLED,
  RETURNED: TO_CANCELLED,
  LABEL_PRINTED: TO_CANCELLED,
  ERROR: TO_CANCELLED,
  UNCONFIRMED: TO_CANCELLED,
  PICKUP_FAILED: TO_CANCELLED,
  DELIVERY_DELAYED: TO_CANCELLED,
  DELIVERY_SCHEDULED: TO_CANCELLED,
  DELIVERY_FAILED: TO_CANCELLED,
  INRETURN: TO_CANCELLED,
  IN_PROCESS: TO_CANCELLED,
  NEW: TO_CANCELLED,
  VOID: TO_CANCELLED,
  PROCESSED: TO_CANCELLED,
  NOT_SHIPPED: TO_CANCELLED,
  COMPLETED: TO_CANCELLED,
};

export function trackerStatusOf(value: string): TrackerStatus {
  return storedStatus(TRACKER_TRANSITIONS, 'tracker', value);
}

/** A tracker can be patched (items, payer notice, cancelling) while it can still move, i.e. until it is CANCELLED. */
export function assertTrackerCanChange(id: string, current: TrackerStatus): void {
  if (TRACKER_TRANSITIONS[current].length > 0) return;
  throw serviceError('UNPROCESSABLE_ENTITY', 'NOT_PATCHABLE', `Tracker ${id} is ${current}, which is final; add a new tracker instead.`, {
    field: 'tracker_id',
    value: id,
    location: 'path',
  });
}

export function orderStatusOf(value: string): OrderStatus {
  return storedStatus(ORDER_TRANSITIONS, 'order', value);
}

/** Throws the API's refusal unless `operation` may move the order from `current` to `target`. */
export function assertCanTransition(operation: OrderOperation, current: OrderStatus, target: OrderStatus): void {
  const allowed = ORDER_TRANSITIONS[current];
  if (allowed.includes(target)) return;
  const issue = REFUSALS[operation][current] ?? 'UNPROCESSABLE_ENTITY';
  const next = allowed.length > 0 ? `from there it can go to ${allowed.join(', ')}` : 'that status is final';
  throw serviceError('UNPROCESSABLE_ENTITY', issue, `Cannot ${operation} this order: its status is ${current} (${next}).`);
}
