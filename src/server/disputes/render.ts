// The dispute as the API shows it: the full resource, the list summary, and the action links.

import { money, type Money } from '../../lib/money.js';
import type { ServiceContext } from '../core/deps.js';
import { link, type Link } from '../http/links.js';
import type { StoredCapture } from '../payments/api.js';
import { allowedSellerActions, isAppealable, type SellerAction } from './actions.js';
import type { Dispute } from './model.js';
import { viewOf } from './model.js';
import type { DocumentRef } from './schema.js';
import { sellerStateOf, type DisputeReason, type DisputeStage, type DisputeState, type DisputeStatus } from './states.js';
import type {
  AllowedResponseOptions,
  DisputeAdjudication,
  DisputeCommunicationDetails,
  DisputeDocument,
  DisputedTransaction,
  DisputedTransactionStatus,
  DisputeEvidence,
  DisputeMessage,
  DisputeMoneyMovement,
  DisputeOffer,
  DisputeOutcome,
  DisputeSupportingInfo,
} from './types.js';

/**
 * The API's dispute, the merchant's view (declared once here, its nested parts in types.ts; the
 * CLI's client parses what it shows, src/lib/api/disputes.ts).
 */
export interface DisputeResource {
  dispute_id: string;
  create_time: string;
  update_time: string;
  disputed_transactions: DisputedTransaction[];
  reason: DisputeReason;
  status: DisputeStatus;
  dispute_amount: Money;
  dispute_outcome?: DisputeOutcome;
  adjudications?: DisputeAdjudication[];
  money_movements?: DisputeMoneyMovement[];
  dispute_life_cycle_stage: DisputeStage;
  dispute_channel: 'INTERNAL';
  messages?: DisputeMessage[];
  evidences?: DisputeEvidence[];
  supporting_info?: DisputeSupportingInfo[];
  communication_details?: DisputeCommunicationDetails;
  buyer_response_due_date?: string;
  seller_response_due_date?: string;
  offer?: DisputeOffer;
  refund_details?: { allowed_refund_amount: Money };
  allowed_response_options?: AllowedResponseOptions;
  links: Link[];
}

/** One row of the list (dispute_info). */
export type DisputeSummary = Pick<DisputeResource, 'dispute_id' | 'create_time' | 'update_time' | 'reason' | 'status' | 'dispute_amount' | 'dispute_life_cycle_stage' | 'dispute_channel' | 'buyer_response_due_date' | 'seller_response_due_date' | 'links'> & { dispute_state: DisputeState };

export const disputePath = (id: string): string => `/v1/customer/disputes/${encodeURIComponent(id)}`;

/** PayPal's rel names for the action links. */
const LINK_RELS: Record<SellerAction, string> = {
  'send-message': 'send_message',
  'make-offer': 'make_offer',
  'accept-claim': 'accept_claim',
  'provide-evidence': 'provide_evidence',
  escalate: 'escalate',
  appeal: 'appeal',
  'acknowledge-return-item': 'acknowledge_return_item',
  adjudicate: 'adjudicate',
  'require-evidence': 'require_evidence',
  'provide-supporting-info': 'provide_supporting_info',
};

export function actionLinks(dispute: Dispute, ctx: ServiceContext): Link[] {
  const path = disputePath(dispute.id);
  return [
    link(ctx.baseUrl, path, 'self', 'GET'),
    ...allowedSellerActions(viewOf(dispute, ctx.now)).map((action) => link(ctx.baseUrl, `${path}/${action}`, LINK_RELS[action], 'POST')),
  ];
}

function documents(refs: readonly DocumentRef[], dispute: Dispute, ctx: ServiceContext): DisputeDocument[] {
  return refs.map((ref) => ({ name: ref.name, url: `${ctx.baseUrl}${disputePath(dispute.id)}/documents/${ref.document_id}` }));
}

const TRANSACTION_STATUSES = new Set(['COMPLETED', 'DENIED', 'FAILED', 'PENDING', 'PARTIALLY_REFUNDED', 'REFUNDED', 'REVERSED']);

function transactionStatus(capture: StoredCapture | undefined): DisputedTransactionStatus {
  if (!capture) return 'COMPLETED';
  if (capture.status === 'DECLINED') return 'DENIED';
  // The dispute's transaction enumeration has REVERSED; the capture shows REFUNDED with the reason.
  if (capture.reversed) return 'REVERSED';
  return TRANSACTION_STATUSES.has(capture.status) ? (capture.status as DisputedTransactionStatus) : 'COMPLETED';
}

/** What may still be refunded to settle the dispute: the disputed amount, within what the capture has left. */
export function allowedRefundMinor(dispute: Dispute, capture: StoredCapture | undefined): bigint {
  if (!capture) return dispute.amountMinor;
  const left = capture.reversed ? 0n : capture.amountMinor - capture.refundedMinor;
  return left < dispute.amountMinor ? (left > 0n ? left : 0n) : dispute.amountMinor;
}

function responseOptions(actions: readonly SellerAction[], dispute: Dispute): AllowedResponseOptions {
  const options: AllowedResponseOptions = {};
  if (actions.includes('accept-claim')) options.accept_claim = { accept_claim_types: acceptClaimTypesFor(dispute) };
  if (actions.includes('make-offer')) options.make_offer = { offer_types: offerTypesFor(dispute) };
  if (actions.includes('acknowledge-return-item')) {
    options.acknowledge_return_item = {
      acknowledgement_types: ['ITEM_RECEIVED', 'ITEM_NOT_RECEIVED', 'DAMAGED', 'EMPTY_PACKAGE_OR_DIFFERENT', 'MISSING_ITEMS'],
    };
  }
  return options;
}

export function offerTypesFor(dispute: Dispute): string[] {
  if (dispute.reason === 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED') {
    return ['REFUND', 'REFUND_WITH_RETURN', 'REFUND_WITH_REPLACEMENT', 'REPLACEMENT_WITHOUT_REFUND'];
  }
  if (dispute.reason === 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED') return ['REFUND', 'REFUND_WITH_REPLACEMENT', 'REPLACEMENT_WITHOUT_REFUND'];
  return ['REFUND'];
}

export function acceptClaimTypesFor(dispute: Dispute): string[] {
  return dispute.reason === 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED' ? ['REFUND', 'REFUND_WITH_RETURN', 'PARTIAL_REFUND'] : ['REFUND', 'PARTIAL_REFUND'];
}

const nonEmpty = <T>(items: readonly T[]): T[] | undefined => (items.length > 0 ? [...items] : undefined);

/** The full dispute resource (the merchant's view). */
export function renderDispute(dispute: Dispute, capture: StoredCapture | undefined, ctx: ServiceContext): DisputeResource {
  const { details } = dispute;
  const amount: Money = money(dispute.amountMinor, dispute.currency);
  const actions = allowedSellerActions(viewOf(dispute, ctx.now));
  const transaction: DisputedTransaction = {
    buyer_transaction_id: details.buyer_transaction_id,
    seller_transaction_id: dispute.captureId,
    create_time: details.transaction.create_time,
    transaction_status: transactionStatus(capture),
    gross_amount: details.transaction.gross_amount,
    ...(details.transaction.invoice_number ? { invoice_number: details.transaction.invoice_number } : {}),
    ...(details.transaction.custom ? { custom: details.transaction.custom } : {}),
    buyer: { name: details.buyer_name },
    seller: { merchant_id: dispute.accountId },
  };
  // Built in the API's field order; the fields set below complete it.
  const resource = {
    dispute_id: dispute.id,
    create_time: dispute.createTime,
    update_time: dispute.updateTime,
    disputed_transactions: [transaction],
    reason: dispute.reason,
    status: dispute.status,
    dispute_amount: amount,
  } as DisputeResource;
  if (dispute.status === 'RESOLVED' && details.outcome) {
    resource.dispute_outcome = {
      outcome_code: details.outcome.outcome_code,
      ...(details.outcome.amount_refunded ? { amount_refunded: details.outcome.amount_refunded } : {}),
    };
  }
  if (details.adjudications.length > 0) resource.adjudications = details.adjudications;
  if (details.money_movements.length > 0) resource.money_movements = details.money_movements;
  resource.dispute_life_cycle_stage = dispute.stage;
  resource.dispute_channel = 'INTERNAL';
  const messages = nonEmpty(details.messages.map((message) => ({
    posted_by: message.posted_by,
    time_posted: message.time_posted,
    content: message.content,
    ...(message.documents.length > 0 ? { documents: documents(message.documents, dispute, ctx) } : {}),
  })));
  if (messages) resource.messages = messages;
  const evidences = nonEmpty(details.evidences.map((evidence) => {
    const { documents: refs, ...rest } = evidence;
    return { ...rest, ...(refs.length > 0 ? { documents: documents(refs, dispute, ctx) } : {}) };
  }));
  if (evidences) resource.evidences = evidences;
  const supporting = nonEmpty((details.supporting_info ?? []).map((info) => {
    const { documents: refs, ...rest } = info;
    return { ...rest, ...(refs.length > 0 ? { documents: documents(refs, dispute, ctx) } : {}) };
  }));
  if (supporting) resource.supporting_info = supporting;
  if (details.communication_details) resource.communication_details = details.communication_details;
  if (dispute.buyerDue && dispute.status === 'WAITING_FOR_BUYER_RESPONSE') resource.buyer_response_due_date = dispute.buyerDue;
  if (dispute.sellerDue && dispute.status === 'WAITING_FOR_SELLER_RESPONSE') resource.seller_response_due_date = dispute.sellerDue;
  if (details.offer) {
    resource.offer = {
      buyer_requested_amount: amount,
      ...(details.offer.seller_offered_amount ? { seller_offered_amount: details.offer.seller_offered_amount } : {}),
      offer_type: details.offer.offer_type,
      history: details.offer.history,
    };
  }
  if (dispute.status !== 'RESOLVED') {
    resource.refund_details = { allowed_refund_amount: money(allowedRefundMinor(dispute, capture), dispute.currency) };
  }
  const options = responseOptions(actions, dispute);
  if (Object.keys(options).length > 0) resource.allowed_response_options = options;
  resource.links = actionLinks(dispute, ctx);
  return resource;
}

/** One row of the list (dispute_info). */
export function renderSummary(dispute: Dispute, ctx: ServiceContext): DisputeSummary {
  const appealable = isAppealable(viewOf(dispute, ctx.now));
  return {
    dispute_id: dispute.id,
    create_time: dispute.createTime,
    update_time: dispute.updateTime,
    reason: dispute.reason,
    status: dispute.status,
    dispute_state: sellerStateOf(dispute.status, dispute.stage, appealable),
    dispute_amount: money(dispute.amountMinor, dispute.currency),
    dispute_life_cycle_stage: dispute.stage,
    dispute_channel: 'INTERNAL',
    ...(dispute.status === 'WAITING_FOR_BUYER_RESPONSE' && dispute.buyerDue ? { buyer_response_due_date: dispute.buyerDue } : {}),
    ...(dispute.status === 'WAITING_FOR_SELLER_RESPONSE' && dispute.sellerDue ? { seller_response_due_date: dispute.sellerDue } : {}),
    links: [link(ctx.baseUrl, disputePath(dispute.id), 'self', 'GET')],
  };
}
