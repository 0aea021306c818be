// The buyer's side, for testing on the control plane: opening a dispute and the buyer's actions.

import type { z } from 'zod';
import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId, upperId } from '../core/ids.js';
import { notFound, serviceError } from '../http/errors.js';
import { money } from '../../lib/money.js';
import { allowedBuyerActions, assertBuyerCan, offerPending } from './actions.js';
import { amountIn } from './amounts.js';
import { planEvidences, recordEvidences } from './evidence.js';
import { eventFor, loadDispute, moveTo, resolve, saveDispute } from './lifecycle.js';
import { viewOf, type Dispute } from './model.js';
import { captureOf, refundBuyer } from './money-effects.js';
import { renderDispute, type DisputeResource } from './render.js';
import type { BuyerAction, OfferEvent, openDisputeSchema } from './schema.js';
import { escalateToClaim } from './service.js';
import * as store from './store.js';

const DISPUTABLE = new Set(['COMPLETED', 'PARTIALLY_REFUNDED']);

/** The control plane's answers add what the buyer may do next. */
type BuyerView = DisputeResource & { buyer_actions: ReturnType<typeof allowedBuyerActions> };

function withBuyerActions(resource: DisputeResource, dispute: Dispute, ctx: ServiceContext): BuyerView {
  return { ...resource, buyer_actions: allowedBuyerActions(viewOf(dispute, ctx.now)) };
}

export async function openDispute(ctx: ServiceContext, input: z.infer<typeof openDisputeSchema>): Promise<BuyerView> {
  // Locked: two buyers' complaints at once must not both find the capture without an open dispute.
  const capture = await ctx.deps.domains.payments.findCapture(ctx, input.disputed_transaction_id, { forUpdate: true });
  if (!capture) throw notFound('capture', input.disputed_transaction_id, 'body');
  if (!DISPUTABLE.has(capture.status)) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TRANSACTION_NOT_DISPUTABLE', `A ${capture.status} capture cannot be disputed.`, {
      field: '/disputed_transaction_id',
      value: capture.id,
    });
  }
  const open = await store.findOpenDisputeForCapture(ctx.db, ctx.accountId, capture.id);
  if (open) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TRANSACTION_ALREADY_DISPUTED', `The capture already has an open dispute, ${open.id}.`, {
      field: '/disputed_transaction_id',
      value: capture.id,
    });
  }
  const left = capture.amountMinor - capture.refundedMinor;
  const amountMinor = input.amount ? amountIn(capture, input.amount, '/amount') : left;
  if (amountMinor > left) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'DISPUTE_AMOUNT_EXCEEDS_TRANSACTION', 'The disputed amount is more than the capture has left.', {
      field: '/amount/value',
      value: input.amount?.value,
    });
  }
  const now = isoMillis(ctx.now);
  const dispute: Dispute = {
    id: `PP-D-${upperId(ctx.deps.ids, 12)}`,
    accountId: ctx.accountId,
    captureId: capture.id,
    reason: input.reason,
    status: 'OPEN',
    stage: 'INQUIRY',
    currency: capture.currency,
    amountMinor,
    sellerDue: null,
    buyerDue: null,
    createTime: now,
    updateTime: now,
    details: {
      buyer_transaction_id: transactionId(ctx.deps.ids),
      buyer_name: 'Sandbox Buyer',
      transaction: {
        create_time: capture.createTime,
        gross_amount: money(capture.amountMinor, capture.currency),
        ...(capture.invoiceId ? { invoice_number: capture.invoiceId } : {}),
        ...(capture.customId ? { custom: capture.customId } : {}),
      },
      messages: input.message ? [{ posted_by: 'BUYER', time_posted: now, content: input.message, documents: [] }] : [],
      evidences: [],
      adjudications: [],
      money_movements: [],
      reversed_minor: '0',
    },
  };
  moveTo(ctx, dispute, 'open', 'WAITING_FOR_SELLER_RESPONSE');
  return withBuyerActions(await saveDispute(ctx, dispute, 'CREATED'), dispute, ctx);
}

function offerEvent(ctx: ServiceContext, dispute: Dispute, eventType: 'ACCEPTED' | 'DENIED', note: string | undefined): OfferEvent {
  const offer = dispute.details.offer;
  if (!offer) throw new Error('offer event without an offer');
  return {
    offer_time: isoMillis(ctx.now),
    actor: 'BUYER',
    event_type: eventType,
    offer_type: offer.offer_type,
    ...(offer.seller_offered_amount ? { offer_amount: offer.seller_offered_amount } : {}),
    ...(note ? { notes: note } : {}),
    dispute_life_cycle_stage: dispute.stage,
  };
}

async function acceptOffer(ctx: ServiceContext, dispute: Dispute, note: string | undefined): Promise<void> {
  const offer = dispute.details.offer;
  if (!offer) return;
  offer.history.push(offerEvent(ctx, dispute, 'ACCEPTED', note));
  const offeredMinor = offer.seller_offered_amount ? amountIn(dispute, offer.seller_offered_amount, '/offer') : 0n;
  if (offer.offer_type === 'REFUND_WITH_RETURN') {
    dispute.details.return_request = {
      phase: 'AWAITING_RETURN',
      refund_minor: offeredMinor.toString(),
      ...(offer.return_shipping_address ? { address: offer.return_shipping_address } : {}),
      origin: 'OFFER',
    };
    dispute.buyerDue = null; // a fresh window to send the item back
    moveTo(ctx, dispute, 'accept-offer', 'WAITING_FOR_BUYER_RESPONSE');
    return;
  }
  await refundBuyer(ctx, dispute, offeredMinor, note);
  resolve(ctx, dispute, 'accept-offer', { code: 'ACCEPTED', decidedBy: 'BUYER', ...(offeredMinor > 0n ? { refundedMinor: offeredMinor } : {}) });
}

async function applyBuyerAction(ctx: ServiceContext, dispute: Dispute, action: BuyerAction): Promise<void> {
  switch (action.action) {
    case 'message':
      dispute.details.messages.push({ posted_by: 'BUYER', time_posted: isoMillis(ctx.now), content: action.message, documents: [] });
      // Answering hands the turn to the seller, unless the buyer still owes an answer to an offer or a return.
      if (dispute.status === 'WAITING_FOR_BUYER_RESPONSE' && !dispute.details.return_request && !offerPending(dispute.details)) {
        moveTo(ctx, dispute, 'message', 'WAITING_FOR_SELLER_RESPONSE');
      }
      return;
    case 'accept-offer':
      return acceptOffer(ctx, dispute, action.note);
    case 'deny-offer':
      dispute.details.offer?.history.push(offerEvent(ctx, dispute, 'DENIED', action.note));
      moveTo(ctx, dispute, 'deny-offer', 'WAITING_FOR_SELLER_RESPONSE');
      return;
    case 'escalate':
      escalateToClaim(ctx, dispute);
      return;
    case 'provide-evidence': {
      const plans = planEvidences(dispute, action.evidences, [], { required: true });
      await recordEvidences(ctx, dispute, plans, 'SUBMITTED_BY_BUYER', { action: 'PROVIDE_EVIDENCE' });
      moveTo(ctx, dispute, 'provide-evidence', dispute.stage === 'INQUIRY' ? 'WAITING_FOR_SELLER_RESPONSE' : 'UNDER_REVIEW');
      return;
    }
    case 'return-item': {
      const plans = planEvidences(dispute, action.evidences, [], { required: false });
      await recordEvidences(ctx, dispute, plans, 'SUBMITTED_BY_BUYER', { action: 'ACKNOWLEDGE_RETURN_ITEM' });
      const request = dispute.details.return_request;
      if (request) request.phase = 'AWAITING_ACKNOWLEDGEMENT';
      moveTo(ctx, dispute, 'return-item', 'WAITING_FOR_SELLER_RESPONSE');
      return;
    }
  }
}

export async function actAsBuyer(ctx: ServiceContext, id: string, action: BuyerAction): Promise<BuyerView> {
  const dispute = await loadDispute(ctx, id, { forUpdate: true });
  assertBuyerCan(viewOf(dispute, ctx.now), action.action);
  const before = dispute.status;
  await applyBuyerAction(ctx, dispute, action);
  return withBuyerActions(await saveDispute(ctx, dispute, eventFor(before, dispute)), dispute, ctx);
}

/** The dispute as the control plane shows it: the resource plus what the buyer may do next. */
export async function showForBuyer(ctx: ServiceContext, id: string): Promise<BuyerView> {
  const dispute = await loadDispute(ctx, id);
  return withBuyerActions(renderDispute(dispute, await captureOf(ctx, dispute), ctx), dispute, ctx);
}
