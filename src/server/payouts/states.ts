// Payout batch and item statuses, in the API's spelling, and the moves each may make.

import { canTransition, sourcesOf } from '../core/transitions.js';
import { serviceError, type IssueCode } from '../http/errors.js';

export const BATCH_STATUSES = ['PENDING', 'PROCESSING', 'SUCCESS', 'DENIED', 'CANCELED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const ITEM_STATUSES = [
  'PENDING',
  'SUCCESS',
  'FAILED',
  'UNCLAIMED',
  'RETURNED',
  'ONHOLD',
  'BLOCKED',
  'REFUNDED',
  'REVERSED',
] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/**
 * A batch is checked against the balance when processing starts: DENIED as a whole when the
 * balance cannot cover it, else PROCESSING until every item is settled. CANCELED is the API's
 * status for a portal upload the sender cancelled; this server has no such upload, so nothing
 * leads to it.
 */
export const BATCH_TRANSITIONS: Record<BatchStatus, readonly BatchStatus[]> = {
  PENDING: ['PROCESSING', 'DENIED'],
  PROCESSING: ['SUCCESS'],
  SUCCESS: [],
  DENIED: [],
  CANCELED: [],
};

/**
 * Items settle once (PENDING to a result). An UNCLAIMED item goes back to the sender (RETURNED)
 * when cancelled or after 30 days, or is paid (SUCCESS) when its receiver opens an account.
 * REFUNDED and REVERSED are receiver-side outcomes this server never produces.
 */
export const ITEM_TRANSITIONS: Record<ItemStatus, readonly ItemStatus[]> = {
  PENDING: ['SUCCESS', 'FAILED', 'UNCLAIMED', 'ONHOLD', 'BLOCKED'],
  UNCLAIMED: ['RETURNED', 'SUCCESS'],
  SUCCESS: [],
  FAILED: [],
  RETURNED: [],
  ONHOLD: [],
  BLOCKED: [],
  REFUNDED: [],
  REVERSED: [],
};

/** Statuses in which the item's amount and fee have left the sender's balance. */
export const CHARGED_ITEM_STATUSES: readonly ItemStatus[] = ['SUCCESS', 'UNCLAIMED', 'ONHOLD'];

export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['SUCCESS', 'DENIED', 'CANCELED'];

function refuse(what: string, operation: string, from: string, allowedFrom: readonly string[], issue: IssueCode) {
  const allowed = allowedFrom.length > 0 ? allowedFrom.join(', ') : 'none';
  return serviceError(
    'UNPROCESSABLE_ENTITY',
    issue,
    `Cannot ${operation} a ${what} in status ${from}; allowed only from: ${allowed}.`,
    { value: from },
  );
}

export function assertBatchCanTransition(operation: string, from: BatchStatus, to: BatchStatus): void {
  if (!canTransition(BATCH_TRANSITIONS, from, to)) {
    throw refuse('payout batch', operation, from, sourcesOf(BATCH_TRANSITIONS, to), 'BATCH_INCORRECT_STATUS');
  }
}

export function assertItemCanTransition(operation: string, from: ItemStatus, to: ItemStatus): void {
  if (!canTransition(ITEM_TRANSITIONS, from, to)) {
    throw refuse('payout item', operation, from, sourcesOf(ITEM_TRANSITIONS, to), 'ITEM_INCORRECT_STATUS');
  }
}
