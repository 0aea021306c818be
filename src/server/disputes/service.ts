// The merchant's dispute operations: show, list, and the actions of the public API.

import type { z } from 'zod';
import type { ServiceContext } from '../core/deps.js';
import { isoMillis } from '../core/clock.js';
import { money } from '../../lib/money.js';
import { serviceError } from '../http/errors.js';
import { assertSellerCan, offerPending } from './actions.js';
import { amountIn, returnAddress } from './amounts.js';
import { planEvidences, recordEvidences, storeDocuments, type EvidencePlan } from './evidence.js';
import type { UploadedFile } from './files.js';
import { advanceStage, eventFor, loadDispute, moveTo, resolve, saveDispute } from './lifecycle.js';
import { viewOf, type Dispute } from './model.js';
import { captureOf, refundBuyer, reinstateSeller, reverseForBuyer } from './money-effects.js';
import { acceptClaimTypesFor, allowedRefundMinor, offerTypesFor, renderDispute, type DisputeResource } from './render.js';
import type {
  acceptClaimSchema,
  acknowledgeReturnSchema,
  adjudicateSchema,
  escalateSchema,
  evidencesBodySchema,
  makeOfferSchema,
  requireEvidenceSchema,
  sendMessageSchema,
  supportingInfoSchema,
} from './schema.js';
import { appealStageAfter } from './states.js';


export async function showDispute(ctx: ServiceContext, id: string): Promise<DisputeResource> {
  const dispute = await loadDispute(ctx, id);
  return renderDispute(dispute, await captureOf(ctx, dispute), ctx);
}

/** Loads, checks the action is the seller's to take now, applies `change`, saves with its event. */
async function sellerAction(
  ctx: ServiceContext,
  id: string,
  action: Parameters<typeof assertSellerCan>[1],
  change: (dispute: Dispute) => Promise<void>,
): Promise<DisputeResource> {
  const dispute = await loadDispute(ctx, id, { forUpdate: true });
  assertSellerCan(viewOf(dispute, ctx.now), action);
  const before = dispute.status;
  await change(dispute);
  return saveDispute(ctx, dispute, eventFor(before, dispute));
}

export function sendMessage(ctx: ServiceContext, id: string, input: z.infer<typeof sendMessageSchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'send-message', async (dispute) => {
    dispute.details.messages.push({
      posted_by: 'SELLER',
      time_posted: isoMillis(ctx.now),
      content: input.message,
      documents: await storeDocuments(ctx, dispute, files),
    });
    // Answering the buyer hands the turn over, unless an item return is under way.
    if (dispute.status === 'WAITING_FOR_SELLER_RESPONSE' && !dispute.details.return_request) {
      moveTo(ctx, dispute, 'send-message', 'WAITING_FOR_BUYER_RESPONSE');
    }
  });
}

export function makeOffer(ctx: ServiceContext, id: string, input: z.infer<typeof makeOfferSchema>) {
  return sellerAction(ctx, id, 'make-offer', async (dispute) => {
    const allowed = offerTypesFor(dispute);
    if (!allowed.includes(input.offer_type)) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'OFFER_TYPE_NOT_ALLOWED', `For a ${dispute.reason} dispute the offer types are ${allowed.join(', ')}.`, {
        field: '/offer_type',
        value: input.offer_type,
      });
    }
    const withRefund = input.offer_type !== 'REPLACEMENT_WITHOUT_REFUND';
    let offeredMinor: bigint | undefined;
    if (withRefund) {
      if (!input.offer_amount) {
        throw serviceError('VALIDATION_ERROR', 'MISSING_OFFER_AMOUNT', `A ${input.offer_type} offer needs an offer_amount.`, { field: '/offer_amount' });
      }
      offeredMinor = amountIn(dispute, input.offer_amount, '/offer_amount');
      const limit = allowedRefundMinor(dispute, await captureOf(ctx, dispute));
      if (offeredMinor > limit) {
        throw serviceError('UNPROCESSABLE_ENTITY', 'OFFER_AMOUNT_EXCEEDS_ALLOWED_REFUND', 'The offer is more than can be refunded for this dispute.', {
          field: '/offer_amount/value',
          value: input.offer_amount.value,
        });
      }
    } else if (input.offer_amount) {
      throw serviceError('VALIDATION_ERROR', 'AMOUNT_SHOULD_NOT_BE_PASSED', 'A replacement without refund takes no offer_amount.', { field: '/offer_amount' });
    }
    const address = returnAddress(input.return_shipping_address, input.offer_type === 'REFUND_WITH_RETURN');
    const offeredAmount = offeredMinor !== undefined ? money(offeredMinor, dispute.currency) : undefined;
    dispute.details.offer = {
      offer_type: input.offer_type,
      ...(offeredAmount ? { seller_offered_amount: offeredAmount } : {}),
      ...(address ? { return_shipping_address: address } : {}),
      history: [
        ...(dispute.details.offer?.history ?? []),
        {
          offer_time: isoMillis(ctx.now),
          actor: 'SELLER',
          event_type: 'PROPOSED',
          offer_type: input.offer_type,
          ...(offeredAmount ? { offer_amount: offeredAmount } : {}),
          notes: input.note,
          dispute_life_cycle_stage: dispute.stage,
        },
      ],
    };
    moveTo(ctx, dispute, 'make-offer', 'WAITING_FOR_BUYER_RESPONSE');
  });
}

export function acceptClaim(ctx: ServiceContext, id: string, input: z.infer<typeof acceptClaimSchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'accept-claim', async (dispute) => {
    const type = input.accept_claim_type ?? 'REFUND';
    const allowed = acceptClaimTypesFor(dispute);
    if (!allowed.includes(type)) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'ACCEPT_CLAIM_TYPE_NOT_ALLOWED', `For a ${dispute.reason} dispute the accept-claim types are ${allowed.join(', ')}.`, {
        field: '/accept_claim_type',
        value: type,
      });
    }
    const limit = allowedRefundMinor(dispute, await captureOf(ctx, dispute));
    let refundMinor = limit;
    if (type === 'PARTIAL_REFUND') {
      if (!input.refund_amount) {
        throw serviceError('VALIDATION_ERROR', 'MISSING_REFUND_AMOUNT', 'A PARTIAL_REFUND needs a refund_amount.', { field: '/refund_amount' });
      }
      refundMinor = amountIn(dispute, input.refund_amount, '/refund_amount');
      if (refundMinor > limit) {
        throw serviceError('UNPROCESSABLE_ENTITY', 'REFUND_AMOUNT_EXCEEDS_ALLOWED_REFUND', 'The refund is more than can be refunded for this dispute.', {
          field: '/refund_amount/value',
          value: input.refund_amount.value,
        });
      }
    } else if (input.refund_amount) {
      throw serviceError('VALIDATION_ERROR', 'AMOUNT_SHOULD_NOT_BE_PASSED', `A ${type} claim acceptance refunds the disputed amount; omit refund_amount.`, {
        field: '/refund_amount',
      });
    }
    const address = returnAddress(input.return_shipping_address, type === 'REFUND_WITH_RETURN');
    if (files.length > 0) {
      const plan: EvidencePlan = { evidence: { evidence_type: 'OTHER' }, files };
      await recordEvidences(ctx, dispute, [plan], 'SUBMITTED_BY_SELLER', { action: 'ACCEPT_CLAIM', response_option: type });
    }
    if (type === 'REFUND_WITH_RETURN') {
      dispute.details.return_request = { phase: 'AWAITING_RETURN', refund_minor: refundMinor.toString(), ...(address ? { address } : {}), origin: 'ACCEPT_CLAIM' };
      moveTo(ctx, dispute, 'accept-claim', 'WAITING_FOR_BUYER_RESPONSE');
      return;
    }
    await refundBuyer(ctx, dispute, refundMinor, undefined);
    resolve(ctx, dispute, 'accept-claim', { code: 'RESOLVED_BUYER_FAVOUR', decidedBy: 'SELLER', refundedMinor: refundMinor });
  });
}

export function provideEvidence(ctx: ServiceContext, id: string, input: z.infer<typeof evidencesBodySchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'provide-evidence', async (dispute) => {
    const plans = planEvidences(dispute, input.evidences, files, { required: true });
    await recordEvidences(ctx, dispute, plans, 'SUBMITTED_BY_SELLER', { action: 'PROVIDE_EVIDENCE' });
    moveTo(ctx, dispute, 'provide-evidence', dispute.stage === 'INQUIRY' ? 'WAITING_FOR_BUYER_RESPONSE' : 'UNDER_REVIEW');
  });
}

/** Escalation by either party: the inquiry becomes a claim and the seller is asked to answer it. */
export function escalateToClaim(ctx: ServiceContext, dispute: Dispute): void {
  advanceStage(dispute, 'escalate', 'CHARGEBACK');
  if (offerPending(dispute.details)) dispute.details.offer = undefined;
  moveTo(ctx, dispute, 'escalate', 'WAITING_FOR_SELLER_RESPONSE');
}

export function escalate(ctx: ServiceContext, id: string, _input: z.infer<typeof escalateSchema>) {
  return sellerAction(ctx, id, 'escalate', async (dispute) => escalateToClaim(ctx, dispute));
}

export function appeal(ctx: ServiceContext, id: string, input: z.infer<typeof evidencesBodySchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'appeal', async (dispute) => {
    const plans = planEvidences(dispute, input.evidences, files, { required: true });
    const next = appealStageAfter(dispute.stage);
    if (next) advanceStage(dispute, 'appeal', next);
    moveTo(ctx, dispute, 'appeal', 'UNDER_REVIEW');
    dispute.details.outcome = undefined;
    dispute.details.appeal_due = undefined;
    await recordEvidences(ctx, dispute, plans, 'SUBMITTED_BY_SELLER', { action: 'APPEAL' });
  });
}

export function acknowledgeReturnItem(ctx: ServiceContext, id: string, input: z.infer<typeof acknowledgeReturnSchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'acknowledge-return-item', async (dispute) => {
    const type = input.acknowledgement_type;
    const plans: EvidencePlan[] =
      input.evidences && input.evidences.length > 0
        ? planEvidences(dispute, input.evidences, files, { required: false })
        : files.length > 0
          ? [{ evidence: { evidence_type: 'OTHER', ...(input.note ? { notes: input.note } : {}) }, files }]
          : [];
    await recordEvidences(ctx, dispute, plans, 'SUBMITTED_BY_SELLER', { action: 'ACKNOWLEDGE_RETURN_ITEM', response_option: type });
    const request = dispute.details.return_request;
    if (type !== 'ITEM_RECEIVED' || !request) {
      // A problem with the return goes to review; the decision settles the money.
      dispute.details.return_request = undefined;
      moveTo(ctx, dispute, 'acknowledge-return-item', 'UNDER_REVIEW');
      return;
    }
    const refundMinor = BigInt(request.refund_minor);
    await refundBuyer(ctx, dispute, refundMinor, undefined);
    if (request.origin === 'OFFER') dispute.details.offer?.history.push(offerClosing(ctx, dispute));
    resolve(ctx, dispute, 'acknowledge-return-item', {
      code: request.origin === 'OFFER' ? 'ACCEPTED' : 'RESOLVED_BUYER_FAVOUR',
      decidedBy: 'SELLER',
      refundedMinor: refundMinor,
    });
  });
}

function offerClosing(ctx: ServiceContext, dispute: Dispute) {
  const offer = dispute.details.offer;
  return {
    offer_time: isoMillis(ctx.now),
    actor: 'SELLER' as const,
    event_type: 'ACCEPTED' as const,
    offer_type: offer?.offer_type ?? ('REFUND_WITH_RETURN' as const),
    ...(offer?.seller_offered_amount ? { offer_amount: offer.seller_offered_amount } : {}),
    notes: 'Returned item received; the offered refund was paid.',
    dispute_life_cycle_stage: dispute.stage,
  };
}

/** Sandbox: the service's decision on a dispute under review. */
export function adjudicate(ctx: ServiceContext, id: string, input: z.infer<typeof adjudicateSchema>) {
  return sellerAction(ctx, id, 'adjudicate', async (dispute) => {
    const forBuyer = input.adjudication_outcome === 'BUYER_FAVOR';
    dispute.details.adjudications.push({
      type: forBuyer ? 'PAYOUT_TO_BUYER' : 'DENY_BUYER',
      adjudication_time: isoMillis(ctx.now),
      dispute_life_cycle_stage: dispute.stage,
    });
    if (forBuyer) {
      const refunded = await reverseForBuyer(ctx, dispute);
      resolve(ctx, dispute, 'adjudicate', { code: 'RESOLVED_BUYER_FAVOUR', decidedBy: 'ARBITER', refundedMinor: refunded });
    } else {
      await reinstateSeller(ctx, dispute);
      resolve(ctx, dispute, 'adjudicate', { code: 'RESOLVED_SELLER_FAVOUR', decidedBy: 'ARBITER' });
    }
  });
}

/** Sandbox: the service asks one party for (more) evidence. */
export function requireEvidence(ctx: ServiceContext, id: string, input: z.infer<typeof requireEvidenceSchema>) {
  return sellerAction(ctx, id, 'require-evidence', async (dispute) => {
    const fromSeller = input.action === 'SELLER_EVIDENCE';
    dispute.details.evidences.push({
      source: fromSeller ? 'REQUESTED_FROM_SELLER' : 'REQUESTED_FROM_BUYER',
      date: isoMillis(ctx.now),
      dispute_life_cycle_stage: dispute.stage,
      documents: [],
    });
    moveTo(ctx, dispute, 'require-evidence', fromSeller ? 'WAITING_FOR_SELLER_RESPONSE' : 'WAITING_FOR_BUYER_RESPONSE');
  });
}

/** Notes and documents for PayPal's review of a claim; the dispute stays where it is. */
export function provideSupportingInfo(ctx: ServiceContext, id: string, input: z.infer<typeof supportingInfoSchema>, files: UploadedFile[]) {
  return sellerAction(ctx, id, 'provide-supporting-info', async (dispute) => {
    if (input.notes === undefined && files.length === 0) {
      throw serviceError('VALIDATION_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Give notes, a supporting document, or both.', { field: '/notes' });
    }
    const documents = await storeDocuments(ctx, dispute, files);
    dispute.details.supporting_info = [
      ...(dispute.details.supporting_info ?? []),
      {
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        documents,
        source: 'SUBMITTED_BY_SELLER',
        provided_time: isoMillis(ctx.now),
        dispute_life_cycle_stage: dispute.stage,
      },
    ];
  });
}
