// Which action each party may take now (API-NOTES §6.5), shared by the checks and the HATEOAS links.

import { serviceError, type IssueCode } from '../http/errors.js';
import type { DisputeDetails } from './schema.js';
import type { DisputeReason, DisputeStage, DisputeStatus } from './states.js';

export interface DisputeView {
  status: DisputeStatus;
  stage: DisputeStage;
  reason: DisputeReason;
  details: DisputeDetails;
  now: Date;
}

export const SELLER_ACTIONS = [
  'send-message',
  'make-offer',
  'accept-claim',
  'provide-evidence',
  'escalate',
  'appeal',
  'acknowledge-return-item',
  'adjudicate',
  'require-evidence',
  'provide-supporting-info',
] as const;
export type SellerAction = (typeof SELLER_ACTIONS)[number];

export const BUYER_ACTIONS = ['message', 'accept-offer', 'deny-offer', 'escalate', 'provide-evidence', 'return-item'] as const;
export type BuyerActionName = (typeof BUYER_ACTIONS)[number];

interface Refusal {
  issue: IssueCode;
  why: string;
}

type Rule = (view: DisputeView) => Refusal | null;

const isOpen = (view: DisputeView) => view.status !== 'RESOLVED' && view.status !== 'OTHER';

export function offerPending(details: DisputeDetails): boolean {
  return details.offer?.history.at(-1)?.event_type === 'PROPOSED';
}

/** Resolved against the seller by a decision, within the appeal window, with a stage left to appeal to. */
export function isAppealable(view: DisputeView): boolean {
  const { outcome, appeal_due: due } = view.details;
  return (
    view.status === 'RESOLVED' &&
    outcome?.decided_by === 'ARBITER' &&
    outcome.outcome_code === 'RESOLVED_BUYER_FAVOUR' &&
    view.stage !== 'ARBITRATION' &&
    view.stage !== 'INQUIRY' &&
    due !== undefined &&
    due > view.now.toISOString()
  );
}

/** The first refusal among the checks, in order. */
function firstOf(...checks: Array<(view: DisputeView) => Refusal | null>): Rule {
  return (view) => {
    for (const check of checks) {
      const refusal = check(view);
      if (refusal) return refusal;
    }
    return null;
  };
}

const open: Rule = (view) => (isOpen(view) ? null : { issue: 'DISPUTE_RESOLVED', why: 'the dispute is resolved' });
const inStage =
  (stage: DisputeStage): Rule =>
  (view) =>
    view.stage === stage ? null : { issue: 'INVALID_DISPUTE_STAGE', why: `only in stage ${stage}; the dispute is in ${view.stage}` };
const inClaimStage: Rule = (view) =>
  view.stage === 'INQUIRY' ? { issue: 'INVALID_DISPUTE_STAGE', why: 'only in stage CHARGEBACK, PRE_ARBITRATION or ARBITRATION; the dispute is in INQUIRY' } : null;
const inStatus =
  (status: DisputeStatus): Rule =>
  (view) =>
    view.status === status ? null : { issue: 'INVALID_DISPUTE_STATUS', why: `only while ${status}; the dispute is ${view.status}` };
const noReturnPending: Rule = (view) =>
  view.details.return_request
    ? { issue: 'RETURN_IN_PROGRESS', why: `a return of the item is in progress (${view.details.return_request.phase})` }
    : null;
const returnPhase =
  (phase: 'AWAITING_RETURN' | 'AWAITING_ACKNOWLEDGEMENT'): Rule =>
  (view) =>
    view.details.return_request?.phase === phase
      ? null
      : {
          issue: 'NO_RETURN_PENDING',
          why: phase === 'AWAITING_RETURN' ? 'no item return is awaited from the buyer' : 'the buyer has not returned an item',
        };
const withOpenOffer: Rule = (view) => (offerPending(view.details) ? null : { issue: 'NO_OPEN_OFFER', why: 'there is no open offer' });
const withoutOpenOffer: Rule = (view) =>
  offerPending(view.details) ? { issue: 'OFFER_PENDING', why: 'an offer is waiting for the buyer' } : null;
const appealable: Rule = (view) =>
  isAppealable(view)
    ? null
    : { issue: 'NOT_APPEALABLE', why: 'only a decision against the seller in stage CHARGEBACK or PRE_ARBITRATION can be appealed, within its appeal window' };

export const SELLER_RULES: Record<SellerAction, Rule> = {
  'send-message': firstOf(open, inStage('INQUIRY')),
  'make-offer': firstOf(open, inStage('INQUIRY'), noReturnPending, inStatus('WAITING_FOR_SELLER_RESPONSE')),
  'accept-claim': firstOf(open, noReturnPending),
  'provide-evidence': firstOf(open, inStatus('WAITING_FOR_SELLER_RESPONSE'), noReturnPending),
  escalate: firstOf(open, inStage('INQUIRY'), noReturnPending),
  appeal: appealable,
  'acknowledge-return-item': firstOf(open, returnPhase('AWAITING_ACKNOWLEDGEMENT')),
  adjudicate: inStatus('UNDER_REVIEW'),
  'require-evidence': inStatus('UNDER_REVIEW'),
  'provide-supporting-info': firstOf(open, inClaimStage),
};

export const BUYER_RULES: Record<BuyerActionName, Rule> = {
  message: firstOf(open, inStage('INQUIRY')),
  'accept-offer': firstOf(open, inStage('INQUIRY'), withOpenOffer),
  'deny-offer': firstOf(open, inStage('INQUIRY'), withOpenOffer),
  escalate: firstOf(open, inStage('INQUIRY'), noReturnPending),
  'provide-evidence': firstOf(open, inStatus('WAITING_FOR_BUYER_RESPONSE'), noReturnPending, withoutOpenOffer),
  'return-item': firstOf(open, returnPhase('AWAITING_RETURN')),
};

export function allowedSellerActions(view: DisputeView): SellerAction[] {
  return SELLER_ACTIONS.filter((action) => SELLER_RULES[action](view) === null);
}

export function allowedBuyerActions(view: DisputeView): BuyerActionName[] {
  return BUYER_ACTIONS.filter((action) => BUYER_RULES[action](view) === null);
}

function refuse(party: string, action: string, refusal: Refusal, allowed: readonly string[]): never {
  throw serviceError(
    'UNPROCESSABLE_ENTITY',
    refusal.issue,
    `The ${party} cannot ${action} now: ${refusal.why}. Allowed now: ${allowed.length ? allowed.join(', ') : 'nothing'}.`,
  );
}

export function assertSellerCan(view: DisputeView, action: SellerAction): void {
  const refusal = SELLER_RULES[action](view);
  if (refusal) refuse('seller', action, refusal, allowedSellerActions(view));
}

export function assertBuyerCan(view: DisputeView, action: BuyerActionName): void {
  const refusal = BUYER_RULES[action](view);
  if (refusal) refuse('buyer', action, refusal, allowedBuyerActions(view));
}
