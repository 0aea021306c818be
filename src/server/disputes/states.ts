// Dispute status and life-cycle stage: the API's values and which changes are allowed.

import { canTransition, type TransitionTable } from '../core/transitions.js';
import { serviceError, type IssueCode } from '../http/errors.js';

export const DISPUTE_STATUSES = [
  'OPEN',
  'WAITING_FOR_BUYER_RESPONSE',
  'WAITING_FOR_SELLER_RESPONSE',
  'UNDER_REVIEW',
  'RESOLVED',
  'OTHER',
] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** Status changes the service makes. RESOLVED -> UNDER_REVIEW is an appeal. */
export const STATUS_TRANSITIONS: Record<DisputeStatus, readonly DisputeStatus[]> = {
  OPEN: ['WAITING_FOR_SELLER_RESPONSE', 'WAITING_FOR_BUYER_RESPONSE', 'UNDER_REVIEW', 'RESOLVED'],
  WAITING_FOR_SELLER_RESPONSE: ['WAITING_FOR_BUYER_RESPONSE', 'UNDER_REVIEW', 'RESOLVED'],
  WAITING_FOR_BUYER_RESPONSE: ['WAITING_FOR_SELLER_RESPONSE', 'UNDER_REVIEW', 'RESOLVED'],
  UNDER_REVIEW: ['WAITING_FOR_SELLER_RESPONSE', 'WAITING_FOR_BUYER_RESPONSE', 'RESOLVED'],
  RESOLVED: ['UNDER_REVIEW'],
  OTHER: [],
};

export const DISPUTE_STAGES = ['INQUIRY', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];

/** Escalation moves an inquiry to a claim (CHARGEBACK); each appeal moves one stage further. */
export const STAGE_TRANSITIONS: Record<DisputeStage, readonly DisputeStage[]> = {
  INQUIRY: ['CHARGEBACK'],
  CHARGEBACK: ['PRE_ARBITRATION'],
  PRE_ARBITRATION: ['ARBITRATION'],
  ARBITRATION: [],
};

/** The state as one party sees it (the list filter `dispute_state`). */
export const DISPUTE_STATES = [
  'OPEN_INQUIRIES',
  'REQUIRED_ACTION',
  'REQUIRED_OTHER_PARTY_ACTION',
  'UNDER_PAYPAL_REVIEW',
  'APPEALABLE',
  'RESOLVED',
] as const;
export type DisputeState = (typeof DISPUTE_STATES)[number];

export { DISPUTE_REASONS, type DisputeReason } from '../../lib/disputes.js';

export const OUTCOME_CODES = [
  'RESOLVED_BUYER_FAVOUR',
  'RESOLVED_SELLER_FAVOUR',
  'RESOLVED_WITH_PAYOUT',
  'CANCELED_BY_BUYER',
  'ACCEPTED',
  'DENIED',
  'NONE',
] as const;

export function assertCanTransition(operation: string, from: DisputeStatus, to: DisputeStatus): void {
  assertMove(STATUS_TRANSITIONS, operation, from, to, { issue: 'INVALID_STATUS_TRANSITION', field: '/status', what: '', final: 'nothing' });
}

export function assertCanAdvanceStage(operation: string, from: DisputeStage, to: DisputeStage): void {
  assertMove(STAGE_TRANSITIONS, operation, from, to, {
    issue: 'INVALID_STAGE_TRANSITION',
    field: '/dispute_life_cycle_stage',
    what: 'stage ',
    final: 'nothing (final stage)',
  });
}

/** Staying put is always allowed; any other move must be in `table`. */
function assertMove<S extends string>(
  table: TransitionTable<S>,
  operation: string,
  from: S,
  to: S,
  refusal: { issue: IssueCode; field: string; what: string; final: string },
): void {
  if (from === to || canTransition(table, from, to)) return;
  const allowed = table[from];
  throw serviceError(
    'UNPROCESSABLE_ENTITY',
    refusal.issue,
    `${operation} cannot move a dispute from ${refusal.what}${from} to ${to}; from ${from} it can move to ${allowed.length ? allowed.join(', ') : refusal.final}.`,
    { field: refusal.field, value: from },
  );
}

/** The next stage an appeal leads to, if any. */
export function appealStageAfter(stage: DisputeStage): DisputeStage | undefined {
  return stage === 'INQUIRY' ? undefined : STAGE_TRANSITIONS[stage][0];
}

/** The merchant's view of the dispute's state (stored for the list filter, recomputed on every change). */
export function sellerStateOf(status: DisputeStatus, stage: DisputeStage, appealable: boolean): DisputeState {
  if (status === 'RESOLVED') return appealable ? 'APPEALABLE' : 'RESOLVED';
  if (status === 'UNDER_REVIEW') return 'UNDER_PAYPAL_REVIEW';
  if (status === 'WAITING_FOR_SELLER_RESPONSE') return 'REQUIRED_ACTION';
  if (stage === 'INQUIRY') return 'OPEN_INQUIRIES';
  return 'REQUIRED_OTHER_PARTY_ACTION';
}
