// The nested parts of a dispute as the API shows them (field names as the published disputes schema;
// a field we always send is required here). Most are the stored shapes (schema.ts, the JSON column)
// with their documents turned into links; render.ts builds them.

import type { Money } from '../../lib/money.js';
import type { DisputeDetails, OFFER_TYPES } from './schema.js';
import type { OUTCOME_CODES } from './states.js';

/** A document as shown: its name and where to download it. */
export interface DisputeDocument {
  name: string;
  url: string;
}

/** The statuses a disputed transaction is shown with (the capture's, in the dispute's enumeration). */
export type DisputedTransactionStatus = 'COMPLETED' | 'DENIED' | 'FAILED' | 'PENDING' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'REVERSED';

/** `disputed_transactions[]`: the disputed capture. */
export interface DisputedTransaction {
  buyer_transaction_id: string;
  seller_transaction_id: string;
  create_time: string;
  transaction_status: DisputedTransactionStatus;
  gross_amount: Money;
  invoice_number?: string;
  custom?: string;
  buyer: { name: string };
  seller: { merchant_id: string };
}

type WithDocuments<T> = Omit<T, 'documents'> & { documents?: DisputeDocument[] };

export type DisputeMessage = WithDocuments<DisputeDetails['messages'][number]>;
export type DisputeEvidence = WithDocuments<DisputeDetails['evidences'][number]>;
export type DisputeSupportingInfo = WithDocuments<NonNullable<DisputeDetails['supporting_info']>[number]>;
export type DisputeAdjudication = DisputeDetails['adjudications'][number];
export type DisputeMoneyMovement = DisputeDetails['money_movements'][number];
export type DisputeCommunicationDetails = NonNullable<DisputeDetails['communication_details']>;
export type OfferHistoryEntry = NonNullable<DisputeDetails['offer']>['history'][number];
export type OfferType = (typeof OFFER_TYPES)[number];

export interface DisputeOutcome {
  outcome_code: (typeof OUTCOME_CODES)[number];
  amount_refunded?: Money;
}

/** `offer`: what the buyer asked for and the offers made so far. */
export interface DisputeOffer {
  buyer_requested_amount: Money;
  seller_offered_amount?: Money;
  offer_type: OfferType;
  history: OfferHistoryEntry[];
}

/** `allowed_response_options`: the choices of the actions the seller may take now. */
export interface AllowedResponseOptions {
  accept_claim?: { accept_claim_types: string[] };
  make_offer?: { offer_types: string[] };
  acknowledge_return_item?: { acknowledgement_types: string[] };
}
