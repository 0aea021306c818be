// Moving a dispute: status and stage changes with their deadlines, outcomes, saving and events.

import { addSeconds, isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { writeEventIn } from '../core/events.js';
import type { ReadOptions } from '../db/prepared.js';
import { notFound } from '../http/errors.js';
import { money } from '../../lib/money.js';
import { captureOf } from './money-effects.js';
import { disputeFromRow, disputeToRow, type Dispute } from './model.js';
import { renderDispute, type DisputeResource } from './render.js';
import type { DisputeDetails } from './schema.js';
import * as store from './store.js';
import { assertCanAdvanceStage, assertCanTransition, type DisputeStage, type DisputeStatus } from './states.js';

/** How long a party has to answer when it is its turn, and how long a decision stays appealable. */
export const RESPONSE_WINDOW_SECONDS = 10 * 86_400;
export const APPEAL_WINDOW_SECONDS = 10 * 86_400;

const DISPUTE_ID = /^[A-Za-z0-9-]{1,255}$/;

/**
 * The dispute. For a change, `forUpdate`: locked until the transaction ends, so that two actions
 * (two request ids, two replicas) cannot both act on the state they read. Its money effects then
 * lock the capture (refunds, reversals): the dispute is locked before its capture on every path.
 */
export async function loadDispute(ctx: ServiceContext, id: string, options: ReadOptions = {}): Promise<Dispute> {
  const row = DISPUTE_ID.test(id) ? await store.findDispute(ctx.db, ctx.accountId, id, options) : undefined;
  if (!row) throw notFound('dispute', id);
  return disputeFromRow(row);
}

/** Changes the status, setting the due date of the party whose turn it becomes (kept if already its turn). */
export function moveTo(ctx: ServiceContext, dispute: Dispute, operation: string, status: DisputeStatus): void {
  assertCanTransition(operation, dispute.status, status);
  const due = isoMillis(addSeconds(ctx.now, RESPONSE_WINDOW_SECONDS));
  if (status === 'WAITING_FOR_SELLER_RESPONSE') {
    if (dispute.status !== status || !dispute.sellerDue) dispute.sellerDue = due;
    dispute.buyerDue = null;
  } else if (status === 'WAITING_FOR_BUYER_RESPONSE') {
    if (dispute.status !== status || !dispute.buyerDue) dispute.buyerDue = due;
    dispute.sellerDue = null;
  } else {
    dispute.sellerDue = null;
    dispute.buyerDue = null;
  }
  dispute.status = status;
}

export function advanceStage(dispute: Dispute, operation: string, stage: DisputeStage): void {
  assertCanAdvanceStage(operation, dispute.stage, stage);
  dispute.stage = stage;
}

export type Outcome = NonNullable<DisputeDetails['outcome']>;

/** Closes the dispute. A decision against the seller in a claim stage can be appealed for a while. */
export function resolve(
  ctx: ServiceContext,
  dispute: Dispute,
  operation: string,
  outcome: { code: Outcome['outcome_code']; decidedBy: Outcome['decided_by']; refundedMinor?: bigint },
): void {
  moveTo(ctx, dispute, operation, 'RESOLVED');
  dispute.details.return_request = undefined;
  dispute.details.outcome = {
    outcome_code: outcome.code,
    decided_by: outcome.decidedBy,
    ...(outcome.refundedMinor !== undefined ? { amount_refunded: money(outcome.refundedMinor, dispute.currency) } : {}),
  };
  const appealable =
    outcome.decidedBy === 'ARBITER' && outcome.code === 'RESOLVED_BUYER_FAVOUR' && (dispute.stage === 'CHARGEBACK' || dispute.stage === 'PRE_ARBITRATION');
  dispute.details.appeal_due = appealable ? isoMillis(addSeconds(ctx.now, APPEAL_WINDOW_SECONDS)) : undefined;
}

export type DisputeEvent = 'CREATED' | 'UPDATED' | 'RESOLVED';

/** Writes the dispute and its event (CUSTOMER.DISPUTE.*) in the caller's transaction; returns the resource. */
export async function saveDispute(
  ctx: ServiceContext,
  dispute: Dispute,
  event: DisputeEvent,
): Promise<DisputeResource> {
  const row = disputeToRow(dispute, ctx.now);
  dispute.updateTime = row.update_time;
  if (event === 'CREATED') await store.insertDispute(ctx.db, row);
  else {
    const { id: _id, account_id: _account, capture_id: _capture, create_time: _created, ...changes } = row;
    await store.updateDispute(ctx.db, ctx.accountId, dispute.id, changes);
  }
  const resource = renderDispute(dispute, await captureOf(ctx, dispute), ctx);
  const summaries: Record<DisputeEvent, string> = {
    CREATED: `A new dispute ${dispute.id} was opened`,
    UPDATED: `Dispute ${dispute.id} was updated`,
    RESOLVED: `Dispute ${dispute.id} was resolved`,
  };
  await writeEventIn(ctx, {
      accountId: ctx.accountId,
      eventType: `CUSTOMER.DISPUTE.${event}`,
      resourceType: 'dispute',
      resourceId: dispute.id,
      resource,
      summary: summaries[event],
      resourceVersion: '1.0',
    },
  );
  return resource;
}

/** UPDATED, or RESOLVED when this change closed the dispute. */
export function eventFor(before: DisputeStatus, dispute: Dispute): DisputeEvent {
  return dispute.status === 'RESOLVED' && before !== 'RESOLVED' ? 'RESOLVED' : 'UPDATED';
}
