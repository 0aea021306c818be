// Shapes at the dispute boundaries: request bodies, and the JSON column read back from storage.

import { z } from 'zod';
import { strictDecimal } from '../http/decimals.js';
import { jsonPatchSchema } from '../http/json-patch.js';
import { portableAddressSchema } from '../http/validation.js';
import { DISPUTE_REASONS, DISPUTE_STAGES, OUTCOME_CODES } from './states.js';

export const OFFER_TYPES = ['REFUND', 'REFUND_WITH_RETURN', 'REFUND_WITH_REPLACEMENT', 'REPLACEMENT_WITHOUT_REFUND'] as const;
export const ACCEPT_CLAIM_TYPES = ['REFUND', 'REFUND_WITH_RETURN', 'PARTIAL_REFUND', 'REFUND_WITH_RETURN_SHIPMENT_LABEL'] as const;
export const ACKNOWLEDGEMENT_TYPES = ['ITEM_RECEIVED', 'ITEM_NOT_RECEIVED', 'DAMAGED', 'EMPTY_PACKAGE_OR_DIFFERENT', 'MISSING_ITEMS'] as const;

const note = z.string().min(1).max(2000);

export const moneySchema = z.object({
  currency_code: z.string().length(3),
  // Syntax only at the edge: the currency's decimals and the sign are checked by disputes/amounts.ts.
  value: strictDecimal({ sign: 'any' }),
});
/** Evidence as sent: type and info are checked by the service, which names the dispute issue codes. */
export const evidenceInputSchema = z.object({
  evidence_type: z.string().max(255).regex(/^[0-9A-Z_]+$/).optional(),
  evidence_info: z
    .object({
      tracking_info: z
        .array(
          z.object({
            carrier_name: z.string().min(1).max(255).regex(/^[0-9A-Z_]+$/),
            carrier_name_other: z.string().min(1).max(2000).optional(),
            tracking_url: z.string().min(1).max(2000).optional(),
            tracking_number: z.string().min(1).max(255),
          }),
        )
        .max(10)
        .optional(),
      refund_ids: z.array(z.string().min(1).max(255)).max(100).optional(),
    })
    .optional(),
  documents: z.array(z.object({ name: z.string().min(1).max(2000) })).max(100).optional(),
  notes: note.optional(),
  item_id: z.string().min(1).max(255).regex(/^[A-Za-z0-9]+$/).optional(),
});
export const evidencesBodySchema = z.object({ evidences: z.array(evidenceInputSchema).max(100).optional() });

export const sendMessageSchema = z.object({ message: note });

export const makeOfferSchema = z.object({
  note,
  offer_type: z.enum(OFFER_TYPES),
  offer_amount: moneySchema.optional(),
  return_shipping_address: z.unknown().optional(),
  invoice_id: z.string().min(1).max(127).regex(/^[A-Za-z0-9:\-|]+$/).optional(),
});

export const acceptClaimSchema = z.object({
  note,
  accept_claim_reason: z
    .enum(['DID_NOT_SHIP_ITEM', 'TOO_TIME_CONSUMING', 'LOST_IN_MAIL', 'NOT_ABLE_TO_WIN', 'COMPANY_POLICY', 'REASON_NOT_SET'])
    .optional(),
  accept_claim_type: z.enum(ACCEPT_CLAIM_TYPES).optional(),
  refund_amount: moneySchema.optional(),
  return_shipping_address: z.unknown().optional(),
  invoice_id: z.string().min(1).max(127).optional(),
});

export const acknowledgeReturnSchema = z.object({
  note: note.optional(),
  acknowledgement_type: z.enum(ACKNOWLEDGEMENT_TYPES),
  evidences: z.array(evidenceInputSchema).max(100).optional(),
});

export const escalateSchema = z.object({ note, buyer_escalation_reason: z.string().min(1).max(255).optional() });
export const adjudicateSchema = z.object({ adjudication_outcome: z.enum(['BUYER_FAVOR', 'SELLER_FAVOR']) });
export const requireEvidenceSchema = z.object({ action: z.enum(['BUYER_EVIDENCE', 'SELLER_EVIDENCE']) });
export const supportingInfoSchema = z.object({ notes: note.optional() });

/** PATCH: JSON Patch; the paths a seller may change are the service's rule (disputes/contact.ts). */
export const disputePatchSchema = jsonPatchSchema({ maxPathLength: 255, maxOperations: 10 });
export const contactEmail = z.string().min(3).max(254).regex(/^[^@\s]+@[^@\s]+$/);
export const communicationDetailsSchema = z
  .object({ email: contactEmail.optional(), note: note.optional() })
  .refine((value) => value.email !== undefined || value.note !== undefined, {
    message: 'Give an email, a note, or both.',
    params: { issue: 'MISSING_REQUIRED_PARAMETER' },
  });

/** For return shipping addresses. */
export const addressSchema = portableAddressSchema();
// --- the buyer's side (control plane) ---

export const openDisputeSchema = z.object({
  disputed_transaction_id: z.string().min(1).max(255).regex(/^[A-Za-z0-9-]+$/),
  reason: z.enum(DISPUTE_REASONS),
  amount: moneySchema.optional(),
  message: note.optional(),
});

export const buyerActionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('message'), message: note }),
  z.object({ action: z.literal('accept-offer'), note: note.optional() }),
  z.object({ action: z.literal('deny-offer'), note }),
  z.object({ action: z.literal('escalate'), note, buyer_escalation_reason: z.string().min(1).max(255).optional() }),
  z.object({ action: z.literal('provide-evidence'), evidences: z.array(evidenceInputSchema).max(100).optional() }),
  z.object({ action: z.literal('return-item'), note: note.optional(), evidences: z.array(evidenceInputSchema).max(100).optional() }),
]);
// --- the JSON column ---

const storedMoney = z.object({ currency_code: z.string(), value: z.string() });
const documentRef = z.object({ document_id: z.string(), name: z.string(), content_type: z.string(), size: z.number() });
const party = z.enum(['BUYER', 'SELLER']);
const stage = z.enum(DISPUTE_STAGES);

const storedMessage = z.object({
  posted_by: z.enum(['BUYER', 'SELLER', 'ARBITER']),
  time_posted: z.string(),
  content: z.string(),
  documents: z.array(documentRef),
});
const storedEvidence = z.object({
  evidence_type: z.string().optional(),
  evidence_info: evidenceInputSchema.shape.evidence_info,
  notes: z.string().optional(),
  item_id: z.string().optional(),
  source: z.enum(['REQUESTED_FROM_BUYER', 'REQUESTED_FROM_SELLER', 'SUBMITTED_BY_BUYER', 'SUBMITTED_BY_SELLER']),
  date: z.string(),
  dispute_life_cycle_stage: stage,
  action_info: z.object({ action: z.string(), response_option: z.string().optional() }).optional(),
  documents: z.array(documentRef),
});
const offerEvent = z.object({
  offer_time: z.string(),
  actor: party,
  event_type: z.enum(['PROPOSED', 'ACCEPTED', 'DENIED']),
  offer_type: z.enum(OFFER_TYPES),
  offer_amount: storedMoney.optional(),
  notes: z.string().optional(),
  dispute_life_cycle_stage: stage,
});
export const detailsSchema = z.object({
  buyer_transaction_id: z.string(),
  buyer_name: z.string(),
  transaction: z.object({
    create_time: z.string(),
    gross_amount: storedMoney,
    invoice_number: z.string().optional(),
    custom: z.string().optional(),
  }),
  messages: z.array(storedMessage),
  evidences: z.array(storedEvidence),
  offer: z
    .object({
      offer_type: z.enum(OFFER_TYPES),
      seller_offered_amount: storedMoney.optional(),
      return_shipping_address: addressSchema.optional(),
      history: z.array(offerEvent),
    })
    .optional(),
  /** A refund that waits for the buyer to send the item back and the seller to acknowledge it. */
  return_request: z
    .object({
      phase: z.enum(['AWAITING_RETURN', 'AWAITING_ACKNOWLEDGEMENT']),
      refund_minor: z.string(),
      address: addressSchema.optional(),
      origin: z.enum(['ACCEPT_CLAIM', 'OFFER']),
    })
    .optional(),
  outcome: z
    .object({
      outcome_code: z.enum(OUTCOME_CODES),
      amount_refunded: storedMoney.optional(),
      decided_by: z.enum(['SELLER', 'BUYER', 'ARBITER', 'DEADLINE']),
    })
    .optional(),
  appeal_due: z.string().optional(),
  adjudications: z.array(
    z.object({ type: z.string(), adjudication_time: z.string(), reason: z.string().optional(), dispute_life_cycle_stage: stage }),
  ),
  money_movements: z.array(
    z.object({
      affected_party: z.enum(['SELLER', 'BUYER']),
      amount: storedMoney,
      initiated_time: z.string(),
      type: z.enum(['DEBIT', 'CREDIT']),
      reason: z.string(),
    }),
  ),
  /** Minor units taken back from the seller by a decision, returned if a later decision goes the seller's way. */
  reversed_minor: z.string(),
  communication_details: z.object({ email: z.string().optional(), note: z.string().optional(), time_posted: z.string() }).optional(),
  supporting_info: z
    .array(
      z.object({
        notes: z.string().optional(),
        documents: z.array(documentRef),
        source: z.enum(['SUBMITTED_BY_BUYER', 'SUBMITTED_BY_SELLER']),
        provided_time: z.string(),
        dispute_life_cycle_stage: stage,
      }),
    )
    .optional(),
});

export type MoneyInput = z.infer<typeof moneySchema>;
export type EvidenceInput = z.infer<typeof evidenceInputSchema>;
export type Address = z.infer<typeof addressSchema>;
export type BuyerAction = z.infer<typeof buyerActionSchema>;
export type DocumentRef = z.infer<typeof documentRef>;
export type StoredEvidence = z.infer<typeof storedEvidence>;
export type OfferEvent = z.infer<typeof offerEvent>;
export type DisputeDetails = z.infer<typeof detailsSchema>;
export type DisputePatch = z.infer<typeof disputePatchSchema>;
