// Lifecycle of a checkout order: created, approved by the payer, then authorized or captured.

import { serviceError } from '../http/errors.js';

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

const REFUSALS: Record<OrderOperation, Partial<Record<OrderStatus, string>>> = {
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

/** A shipment tracker: any tracking status until it is cancelled, which is final. */
export type TrackerStatus = string;

export function assertTrackerCanChange(id: string, current: TrackerStatus): void {
  if (current !== 'CANCELLED') return;
  throw serviceError('UNPROCESSABLE_ENTITY', 'NOT_PATCHABLE', `Tracker ${id} is CANCELLED, which is final; add a new tracker instead.`, {
    field: 'tracker_id',
    value: id,
    location: 'path',
  });
}

export function orderStatusOf(value: string): OrderStatus {
  if (!(value in ORDER_TRANSITIONS)) throw new Error(`unknown order status in storage: ${value}`);
  return value as OrderStatus;
}

/** Throws the API's refusal unless `operation` may move the order from `current` to `target`. */
export function assertCanTransition(operation: OrderOperation, current: OrderStatus, target: OrderStatus): void {
  const allowed = ORDER_TRANSITIONS[current];
  if (allowed.includes(target)) return;
  const issue = REFUSALS[operation][current] ?? 'UNPROCESSABLE_ENTITY';
  const next = allowed.length > 0 ? `from there it can go to ${allowed.join(', ')}` : 'that status is final';
  throw serviceError('UNPROCESSABLE_ENTITY', issue, `Cannot ${operation} this order: its status is ${current} (${next}).`);
}
