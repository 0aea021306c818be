// The payments domain's entry points, including what the disputes domain calls.

import { money } from '../../lib/money.js';
import type { ServiceContext } from '../core/deps.js';
import { isoSeconds } from '../core/clock.js';
import { notFound } from '../http/errors.js';
import type { ReadOptions } from '../db/prepared.js';
import { reverseCompletedCapture } from './captures.js';
import { presentAuthorization, presentCapture, presentRefund, type Authorization, type Capture, type Refund } from './present.js';
import { refundCapture } from './refunds.js';
import { isReversedCapture } from './states.js';
import * as store from './store.js';

export {
  captureAuthorization,
  createAuthorization,
  expireDueAuthorizations,
  getAuthorization,
  reauthorizeAuthorization,
  reviewAuthorization,
  voidAuthorization,
} from './authorizations.js';
export { completePendingCapture, declinePendingCapture, getCapture, recordCapture, capturesHeldForVerification } from './captures.js';
export { getRefund, refundCapture } from './refunds.js';
export { isReversedCapture } from './states.js';
export type { Authorization, Capture, PaymentResource, Refund } from './present.js';

/** A capture as stored, amounts in minor units. */
export interface StoredCapture {
  id: string;
  accountId: string;
  orderId: string;
  /** The order's purchase unit it pays for. */
  referenceId: string;
  authorizationId: string | null;
  status: string;
  statusReason: string | null;
  /** Reversed (a dispute decided for the buyer): REFUNDED with a reversal reason. */
  reversed: boolean;
  currency: string;
  amountMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  refundedMinor: bigint;
  refundedFeeMinor: bigint;
  invoiceId: string | null;
  customId: string | null;
  createTime: string;
  updateTime: string;
}

/**
 * The caller's capture, or undefined when it does not exist for this account. `forUpdate` locks it
 * until the transaction ends (opening a dispute checks the capture, then inserts beside it).
 */
export async function findCapture(ctx: ServiceContext, captureId: string, options: ReadOptions = {}): Promise<StoredCapture | undefined> {
  const row = await store.findCaptureRow(ctx.db, ctx.accountId, captureId, options);
  return row ? storedCapture(row) : undefined;
}

function storedCapture(row: store.CaptureRow): StoredCapture {
  return {
    id: row.id,
    accountId: row.account_id,
    orderId: row.order_id,
    referenceId: row.reference_id,
    authorizationId: row.authorization_id,
    status: row.status,
    statusReason: row.status_reason,
    reversed: isReversedCapture(row.status, row.status_reason),
    currency: row.currency,
    amountMinor: row.amount_minor,
    feeMinor: row.fee_minor,
    netMinor: row.net_minor,
    refundedMinor: row.refunded_minor,
    refundedFeeMinor: row.refunded_fee_minor,
    invoiceId: row.invoice_id,
    customId: row.custom_id,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

/** The captures of an order, oldest first. */
export async function capturesOfOrder(ctx: ServiceContext, orderId: string): Promise<StoredCapture[]> {
  return (await store.capturesOfOrder(ctx.db, ctx.accountId, orderId)).map(storedCapture);
}

/** An order's authorizations, captures and refunds as the API shows them, with the purchase unit each belongs to. */
export interface OrderPayments {
  authorizations: Array<{ referenceId: string; resource: Authorization }>;
  captures: Array<{ referenceId: string; resource: Capture }>;
  refunds: Array<{ captureId: string; resource: Refund }>;
}

export async function paymentsOfOrder(ctx: ServiceContext, orderId: string): Promise<OrderPayments> {
  const authorizations = await store.authorizationsOfOrder(ctx.db, ctx.accountId, orderId);
  const captures = await store.capturesOfOrder(ctx.db, ctx.accountId, orderId);
  const refunds = await store.refundsOfCaptures(ctx.db, ctx.accountId, captures.map((capture) => capture.id));
  return {
    authorizations: authorizations.map((row) => ({ referenceId: row.reference_id, resource: presentAuthorization(row, ctx.baseUrl, isoSeconds(ctx.now)) })),
    captures: captures.map((row) => ({ referenceId: row.reference_id, resource: presentCapture(row, ctx.baseUrl) })),
    refunds: refunds.map((row) => ({ captureId: row.capture_id, resource: presentRefund(row, ctx.baseUrl) })),
  };
}

/** Whether an authorization (or else a capture) of this account already carries this invoice_id. */
export async function invoiceIdUsed(ctx: ServiceContext, kind: 'authorization' | 'capture', invoiceId: string): Promise<boolean> {
  return kind === 'authorization'
    ? store.authorizationInvoiceUsed(ctx.db, ctx.accountId, invoiceId)
    : store.captureInvoiceUsed(ctx.db, ctx.accountId, invoiceId);
}

/**
 * Refunds a capture to settle a dispute, exactly as POST .../refund does (same checks, event and
 * ledger movement) except that the dispute itself does not block it and the balance may go
 * negative. `amountMinor` undefined refunds what is left. Runs in the caller's transaction.
 */
export async function refundCaptureForDispute(
  ctx: ServiceContext,
  captureId: string,
  amountMinor: bigint | undefined,
  note: string | undefined,
): Promise<Refund> {
  const capture = await store.findCaptureRow(ctx.db, ctx.accountId, captureId);
  if (!capture) throw notFound('capture', captureId);
  const body = {
    ...(amountMinor !== undefined ? { amount: money(amountMinor, capture.currency) } : {}),
    ...(note !== undefined && note.length > 0 ? { note_to_payer: note.slice(0, 255) } : {}),
  };
  return refundCapture(ctx, captureId, body, { forDispute: true });
}

/**
 * Reverses a COMPLETED or PARTIALLY_REFUNDED capture (a dispute decided for the buyer): status
 * REFUNDED with status_details.reason `reason` (BUYER_COMPLAINT or CHARGEBACK), a REVERSAL ledger movement taking the net still
 * held, and PAYMENT.CAPTURE.REVERSED. Other statuses: 422 REVERSAL_NOT_ALLOWED.
 */
export function reverseCapture(ctx: ServiceContext, captureId: string, reason = 'BUYER_COMPLAINT'): Promise<Capture> {
  return reverseCompletedCapture(ctx, captureId, reason);
}
