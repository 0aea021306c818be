// Stored rows as the API's authorization, capture and refund resources, with their links.

import { z } from 'zod';
import { money, type Money } from '../../lib/money.js';
import { link, type Link } from '../http/links.js';
import type { BreakdownPart } from './schema.js';
import { OPEN_AUTHORIZATION_STATUSES, type AuthorizationStatus, type CaptureStatus, type RefundStatus } from './states.js';
import type { AuthorizationRow, CaptureRow, RefundRow } from './store.js';

const moneyJson = z.object({ currency_code: z.string(), value: z.string() });
const payeeJson = z.object({ email_address: z.string(), merchant_id: z.string() });

/** The nested rest of a resource, kept as JSON beside the scalar columns. */
/** The card checks of an order paid by card (AVS and CVV results), kept for its captures. */
export const cardChecksJson = z.object({ avs_code: z.string(), cvv_code: z.string() });
export type CardChecks = z.output<typeof cardChecksJson>;
const processorResponseJson = z.object({ avs_code: z.string(), cvv_code: z.string(), response_code: z.string(), payment_advice_code: z.string().optional() });

export const authorizationDetailsSchema = z.object({
  breakdown: z.record(z.string(), moneyJson).optional(),
  payee: payeeJson,
  soft_descriptor: z.string().optional(),
  card_checks: cardChecksJson.optional(),
});
export const captureDetailsSchema = z.object({
  breakdown: z.record(z.string(), moneyJson).optional(),
  payee: payeeJson,
  note_to_payer: z.string().optional(),
  soft_descriptor: z.string().optional(),
  disbursement_mode: z.enum(['INSTANT', 'DELAYED']),
  processor_response: processorResponseJson.optional(),
});
export const refundDetailsSchema = z.object({
  payer: payeeJson,
  note_to_payer: z.string().optional(),
  total_refunded_minor: z.string(),
});

export type AuthorizationDetails = z.output<typeof authorizationDetailsSchema>;
export type CaptureDetails = z.output<typeof captureDetailsSchema>;
export type RefundDetails = z.output<typeof refundDetailsSchema>;

// The API's answers (declared once here; the CLI's client parses the fields it shows of each,
// src/lib/api/payments.ts, and test/server/api-types.test.ts keeps the two in step).

interface Payee {
  email_address: string;
  merchant_id: string;
}
interface SellerProtection {
  status: string;
  dispute_categories: string[];
}
type AmountWithBreakdown = Money & { breakdown?: Partial<Record<BreakdownPart, Money>> };

export interface Authorization {
  id: string;
  status: AuthorizationStatus;
  status_details?: { reason: string };
  amount: AmountWithBreakdown;
  invoice_id?: string;
  custom_id?: string;
  seller_protection: SellerProtection;
  expiration_time: string;
  supplementary_data: { related_ids: { order_id: string; authorization_id?: string } };
  payee: Payee;
  create_time: string;
  update_time: string;
  links: Link[];
}

export interface Capture {
  id: string;
  status: CaptureStatus;
  status_details?: { reason: string };
  amount: AmountWithBreakdown;
  final_capture: boolean;
  invoice_id?: string;
  custom_id?: string;
  seller_protection: SellerProtection;
  seller_receivable_breakdown?: { gross_amount: Money; paypal_fee: Money; net_amount: Money };
  disbursement_mode: 'INSTANT' | 'DELAYED';
  processor_response?: z.output<typeof processorResponseJson>;
  supplementary_data: { related_ids: { order_id: string; authorization_id?: string } };
  payee: Payee;
  create_time: string;
  update_time: string;
  links: Link[];
}

export interface Refund {
  id: string;
  status: RefundStatus;
  amount: Money;
  invoice_id?: string;
  custom_id?: string;
  note_to_payer?: string;
  seller_payable_breakdown: { gross_amount: Money; paypal_fee: Money; net_amount: Money; total_refunded_amount: Money };
  payer: Payee;
  create_time: string;
  update_time: string;
  links: Link[];
}

/** Any of the three: what a payments event carries. */
export type PaymentResource = Authorization | Capture | Refund;

const SELLER_PROTECTION = {
  status: 'ELIGIBLE',
  dispute_categories: ['ITEM_NOT_RECEIVED', 'UNAUTHORIZED_TRANSACTION'],
};

const AUTH_PATH = '/v2/payments/authorizations';
const CAPTURE_PATH = '/v2/payments/captures';
const REFUND_PATH = '/v2/payments/refunds';

function amountWithBreakdown(minor: bigint, currency: string, breakdown: Record<string, Money> | undefined): AmountWithBreakdown {
  const amount: AmountWithBreakdown = money(minor, currency);
  // Stored from a body the breakdown schema checked (payments/schema.ts): only its parts.
  if (breakdown && Object.keys(breakdown).length > 0) amount.breakdown = breakdown as AmountWithBreakdown['breakdown'];
  return amount;
}

function withOptional<T extends object>(target: T, fields: { [K in keyof T]?: T[K] | null }): void {
  for (const [key, value] of Object.entries(fields)) if (value !== null && value !== undefined) (target as Record<string, unknown>)[key] = value;
}

export function authorizationLinks(row: AuthorizationRow, baseUrl: string): Link[] {
  const self = `${AUTH_PATH}/${row.id}`;
  const links: Link[] = [link(baseUrl, self, 'self')];
  const open = row.status === 'CREATED' || row.status === 'PARTIALLY_CAPTURED';
  if (open && row.reauthorization_id === null) links.push(link(baseUrl, `${self}/capture`, 'capture', 'POST'));
  if ((open || row.status === 'PENDING') && row.original_id === null) links.push(link(baseUrl, `${self}/void`, 'void', 'POST'));
  if (row.status === 'CREATED' && row.original_id === null && row.reauthorization_id === null) {
    links.push(link(baseUrl, `${self}/reauthorize`, 'reauthorize', 'POST'));
  }
  links.push(link(baseUrl, `/v2/checkout/orders/${row.order_id}`, 'up'));
  return links;
}

/** authorization_status_details.reason in the published file. */
const PUBLIC_AUTHORIZATION_REASONS: ReadonlySet<string> = new Set(['PENDING_REVIEW']);

const OPEN_STATUSES: ReadonlySet<string> = new Set(OPEN_AUTHORIZATION_STATUSES);

/**
 * The authorization as it stands at `now` (ISO seconds on the account's clock): one still open at
 * its expiration_time has expired, VOIDED since then, whether or not the expiry job has written it
 * yet (the job writes the same values: payments/expiry.ts). Reads present this; a change checks it
 * on the row it locks, so nothing depends on when the job last ran and no read has to write.
 */
export function authorizationAt(row: AuthorizationRow, now: string): AuthorizationRow {
  if (!OPEN_STATUSES.has(row.status) || row.expiration_time > now) return row;
  const updateTime = row.update_time > row.expiration_time ? row.update_time : row.expiration_time;
  return { ...row, status: 'VOIDED', status_reason: 'EXPIRED', update_time: updateTime };
}

/** The authorization resource as of `now` (authorizationAt). */
export function presentAuthorization(stored: AuthorizationRow, baseUrl: string, now: string): Authorization {
  const row = authorizationAt(stored, now);
  const details = authorizationDetailsSchema.parse(JSON.parse(row.details));
  const resource = { id: row.id, status: row.status } as Authorization;
  // Only the API's reasons are shown; EXPIRED stays in storage (a VOIDED authorization past its
  // expiration_time, and the void-expired event, say it).
  if (row.status_reason && PUBLIC_AUTHORIZATION_REASONS.has(row.status_reason)) resource.status_details = { reason: row.status_reason };
  resource.amount = amountWithBreakdown(row.amount_minor, row.currency, details.breakdown);
  withOptional(resource, { invoice_id: row.invoice_id, custom_id: row.custom_id });
  resource.seller_protection = SELLER_PROTECTION;
  resource.expiration_time = row.expiration_time;
  resource.supplementary_data = {
    related_ids: row.original_id ? { order_id: row.order_id, authorization_id: row.original_id } : { order_id: row.order_id },
  };
  resource.payee = details.payee;
  resource.create_time = row.create_time;
  resource.update_time = row.update_time;
  resource.links = authorizationLinks(row, baseUrl);
  return resource;
}

/** Captures that count as money taken: everything but declined and failed ones. */
export function captureHasBreakdown(status: string): boolean {
  return status !== 'PENDING' && status !== 'DECLINED' && status !== 'FAILED';
}

export function presentCapture(row: CaptureRow, baseUrl: string): Capture {
  const details = captureDetailsSchema.parse(JSON.parse(row.details));
  const self = `${CAPTURE_PATH}/${row.id}`;
  const resource = { id: row.id, status: row.status } as Capture;
  if (row.status_reason) resource.status_details = { reason: row.status_reason };
  resource.amount = amountWithBreakdown(row.amount_minor, row.currency, details.breakdown);
  resource.final_capture = row.final_capture === 1n;
  // note_to_payer and soft_descriptor are kept in storage; the capture resource does not show them.
  withOptional(resource, { invoice_id: row.invoice_id, custom_id: row.custom_id });
  resource.seller_protection = SELLER_PROTECTION;
  if (captureHasBreakdown(row.status)) {
    resource.seller_receivable_breakdown = {
      gross_amount: money(row.amount_minor, row.currency),
      paypal_fee: money(row.fee_minor, row.currency),
      net_amount: money(row.net_minor, row.currency),
    };
  }
  resource.disbursement_mode = details.disbursement_mode;
  if (details.processor_response) resource.processor_response = details.processor_response;
  const related: Capture['supplementary_data']['related_ids'] = { order_id: row.order_id };
  if (row.authorization_id) related.authorization_id = row.authorization_id;
  resource.supplementary_data = { related_ids: related };
  resource.payee = details.payee;
  resource.create_time = row.create_time;
  resource.update_time = row.update_time;
  const links: Link[] = [link(baseUrl, self, 'self')];
  if (row.status === 'COMPLETED' || row.status === 'PARTIALLY_REFUNDED') links.push(link(baseUrl, `${self}/refund`, 'refund', 'POST'));
  links.push(
    row.authorization_id
      ? link(baseUrl, `${AUTH_PATH}/${row.authorization_id}`, 'up')
      : link(baseUrl, `/v2/checkout/orders/${row.order_id}`, 'up'),
  );
  resource.links = links;
  return resource;
}

export function presentRefund(row: RefundRow, baseUrl: string): Refund {
  const details = refundDetailsSchema.parse(JSON.parse(row.details));
  const resource = { id: row.id, status: row.status } as Refund;
  resource.amount = money(row.amount_minor, row.currency);
  withOptional(resource, { invoice_id: row.invoice_id, custom_id: row.custom_id, note_to_payer: details.note_to_payer });
  resource.seller_payable_breakdown = {
    gross_amount: money(row.amount_minor, row.currency),
    paypal_fee: money(row.fee_minor, row.currency),
    net_amount: money(row.net_minor, row.currency),
    total_refunded_amount: money(BigInt(details.total_refunded_minor), row.currency),
  };
  resource.payer = details.payer;
  resource.create_time = row.create_time;
  resource.update_time = row.update_time;
  resource.links = [
    link(baseUrl, `${REFUND_PATH}/${row.id}`, 'self'),
    link(baseUrl, `${CAPTURE_PATH}/${row.capture_id}`, 'up'),
  ];
  return resource;
}
