// Lifecycle of a checkout order: created, approved by the payer, then authorized or captured.

import { serviceError } from '../http/errors.js';

export type OrderStatus = 'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED';
export type OrderOperation = 'approve' | 'authorize' | 'capture';

export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  CREATED: ['APPROVED'],
  PAYER_ACTION_REQUIRED: ['APPROVED'],
  SAVED: ['APPROVED'],
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
};

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
