// The dispute as the service works on it: a row's scalar columns plus its parsed JSON details.

import { isoMillis } from '../core/clock.js';
import { ServiceError } from '../http/errors.js';
import { isAppealable, type DisputeView } from './actions.js';
import { detailsSchema, type DisputeDetails } from './schema.js';
import type { DisputeRow } from './store.js';
import {
  DISPUTE_REASONS,
  DISPUTE_STAGES,
  DISPUTE_STATUSES,
  sellerStateOf,
  type DisputeReason,
  type DisputeStage,
  type DisputeStatus,
} from './states.js';

export interface Dispute {
  id: string;
  accountId: string;
  captureId: string;
  reason: DisputeReason;
  status: DisputeStatus;
  stage: DisputeStage;
  currency: string;
  amountMinor: bigint;
  sellerDue: string | null;
  buyerDue: string | null;
  createTime: string;
  updateTime: string;
  details: DisputeDetails;
}

function oneOf<T extends string>(values: readonly T[], value: string, what: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new ServiceError('INTERNAL_SERVER_ERROR', [], { message: `stored dispute has an unknown ${what}: ${value}` });
}

export function disputeFromRow(row: DisputeRow): Dispute {
  const parsed = detailsSchema.safeParse(JSON.parse(row.details));
  if (!parsed.success) throw new ServiceError('INTERNAL_SERVER_ERROR', [], { message: `stored dispute ${row.id} is unreadable` });
  return {
    id: row.id,
    accountId: row.account_id,
    captureId: row.capture_id,
    reason: oneOf(DISPUTE_REASONS, row.reason, 'reason'),
    status: oneOf(DISPUTE_STATUSES, row.status, 'status'),
    stage: oneOf(DISPUTE_STAGES, row.stage, 'stage'),
    currency: row.currency,
    amountMinor: row.amount_minor,
    sellerDue: row.seller_due,
    buyerDue: row.buyer_due,
    createTime: row.create_time,
    updateTime: row.update_time,
    details: parsed.data,
  };
}

export function viewOf(dispute: Dispute, now: Date): DisputeView {
  return { status: dispute.status, stage: dispute.stage, reason: dispute.reason, details: dispute.details, now };
}

/** The deadline the scheduler acts on next: the one of the party whose turn it is, or the appeal window. */
export function nextDeadline(dispute: Dispute, now: Date): string | null {
  if (dispute.status === 'WAITING_FOR_SELLER_RESPONSE') return dispute.sellerDue;
  if (dispute.status === 'WAITING_FOR_BUYER_RESPONSE') return dispute.buyerDue;
  if (isAppealable(viewOf(dispute, now))) return dispute.details.appeal_due ?? null;
  return null;
}

export function disputeToRow(dispute: Dispute, now: Date): DisputeRow {
  return {
    id: dispute.id,
    account_id: dispute.accountId,
    capture_id: dispute.captureId,
    reason: dispute.reason,
    status: dispute.status,
    stage: dispute.stage,
    dispute_state: sellerStateOf(dispute.status, dispute.stage, isAppealable(viewOf(dispute, now))),
    currency: dispute.currency,
    amount_minor: dispute.amountMinor,
    outcome: dispute.status === 'RESOLVED' ? (dispute.details.outcome?.outcome_code ?? null) : null,
    seller_due: dispute.sellerDue,
    buyer_due: dispute.buyerDue,
    deadline_at: nextDeadline(dispute, now),
    create_time: dispute.createTime,
    update_time: isoMillis(now),
    details: JSON.stringify(dispute.details),
  };
}
