// Captures: recording one (fees, ledger, event), settling a pending one, reversing one.

import type { Money } from '../../lib/money.js';
import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import type { ReadOptions } from '../db/prepared.js';
import { notFound } from '../http/errors.js';
import { recordMovement } from '../ledger/store.js';
import { writePaymentEvent } from './events.js';
import { captureFee } from './fees.js';
import { presentCapture, type CaptureDetails, type CardChecks, type Capture } from './present.js';
import { assertCaptureCanTransition, captureStatusOf, type CaptureStatus } from './states.js';
import * as store from './store.js';

export interface NewCapture {
  orderId: string;
  referenceId: string;
  authorizationId: string | null;
  currency: string;
  amountMinor: bigint;
  breakdown?: Record<string, Money>;
  status: 'COMPLETED' | 'PENDING' | 'DECLINED';
  finalCapture: boolean;
  invoiceId?: string | undefined;
  customId?: string | undefined;
  noteToPayer?: string | undefined;
  softDescriptor?: string | undefined;
  disbursementMode?: 'INSTANT' | 'DELAYED' | undefined;
  payee: { email_address: string; merchant_id: string };
  /** The order was paid by card: the capture carries a processor_response with these checks. */
  cardChecks?: CardChecks | undefined;
}

/**
 * A direct card transaction's processor_response: the card's AVS and CVV results with the
 * processor's approval (0000) or, for a simulated decline, 0500 (do not honour).
 */
function processorResponse(checks: CardChecks, declined: boolean): CaptureDetails['processor_response'] {
  return { avs_code: checks.avs_code, cvv_code: checks.cvv_code, response_code: declined ? '0500' : '0000' };
}

/** Whether new captures of this account are held for identity verification. */
export async function capturesHeldForVerification(ctx: ServiceContext): Promise<boolean> {
  const kycStatus = ctx.account?.kycStatus ?? (await ctx.deps.domains.oauth.findAccount(ctx.db, ctx.accountId))?.kyc_status;
  return kycStatus === 'PENDING';
}

/** Adds a completed capture's net to the balance (the fee is known only once it completes). */
async function settleCompleted(ctx: ServiceContext, row: store.CaptureRow): Promise<void> {
  await recordMovement(ctx.db, {
    accountId: ctx.accountId,
    currency: row.currency,
    amountMinor: row.net_minor,
    kind: 'CAPTURE',
    referenceId: row.id,
    createTime: isoSeconds(ctx.now),
    grossMinor: row.amount_minor,
    feeMinor: -row.fee_minor,
    invoiceId: row.invoice_id,
    customId: row.custom_id,
    instrument: row.details.includes('"processor_response"') ? 'CARD' : undefined,
  });
}

const EVENT_FOR_STATUS = {
  COMPLETED: 'PAYMENT.CAPTURE.COMPLETED',
  PENDING: 'PAYMENT.CAPTURE.PENDING',
  DECLINED: 'PAYMENT.CAPTURE.DECLINED',
} as const;

/** Inserts a capture in the given status, moves the ledger, writes its event. */
export async function recordCapture(ctx: ServiceContext, input: NewCapture): Promise<{ row: store.CaptureRow; resource: Capture }> {
  const now = isoSeconds(ctx.now);
  const fee = input.status === 'COMPLETED' ? captureFee(input.amountMinor, input.currency) : 0n;
  const details: CaptureDetails = {
    payee: input.payee,
    disbursement_mode: input.disbursementMode ?? 'INSTANT',
    ...(input.breakdown ? { breakdown: input.breakdown } : {}),
    ...(input.noteToPayer !== undefined ? { note_to_payer: input.noteToPayer } : {}),
    ...(input.softDescriptor !== undefined ? { soft_descriptor: input.softDescriptor } : {}),
    ...(input.cardChecks ? { processor_response: processorResponse(input.cardChecks, input.status === 'DECLINED') } : {}),
  };
  const row: store.CaptureRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    order_id: input.orderId,
    reference_id: input.referenceId,
    authorization_id: input.authorizationId,
    status: input.status,
    status_reason: input.status === 'PENDING' ? 'VERIFICATION_REQUIRED' : null,
    currency: input.currency,
    amount_minor: input.amountMinor,
    fee_minor: fee,
    net_minor: input.status === 'COMPLETED' ? input.amountMinor - fee : 0n,
    refunded_minor: 0n,
    refunded_fee_minor: 0n,
    refund_count: 0n,
    final_capture: input.finalCapture ? 1n : 0n,
    invoice_id: input.invoiceId ?? null,
    custom_id: input.customId ?? null,
    details: JSON.stringify(details),
    create_time: now,
    update_time: now,
  };
  await store.insertCapture(ctx.db, row);
  if (row.status === 'COMPLETED') await settleCompleted(ctx, row);
  const resource = presentCapture(row, ctx.baseUrl);
  await writePaymentEvent(ctx, EVENT_FOR_STATUS[input.status], resource);
  return { row, resource };
}

/** The capture; for a change, `forUpdate`: locked until the transaction ends. */
export async function loadCapture(ctx: ServiceContext, captureId: string, options: ReadOptions = {}): Promise<store.CaptureRow> {
  const row = await store.findCaptureRow(ctx.db, ctx.accountId, captureId, options);
  if (!row) throw notFound('capture', captureId);
  return row;
}

export async function getCapture(ctx: ServiceContext, captureId: string): Promise<Capture> {
  return presentCapture(await loadCapture(ctx, captureId), ctx.baseUrl);
}

/** Completes a capture held for verification: fee, ledger, PAYMENT.CAPTURE.COMPLETED. */
export async function completePendingCapture(ctx: ServiceContext, captureId: string): Promise<Capture> {
  const row = await loadCapture(ctx, captureId, { forUpdate: true });
  assertCaptureCanTransition('complete', captureStatusOf(row.status), 'COMPLETED');
  const fee = captureFee(row.amount_minor, row.currency);
  const changes = {
    status: 'COMPLETED',
    status_reason: null,
    fee_minor: fee,
    net_minor: row.amount_minor - fee,
    update_time: isoSeconds(ctx.now),
  } satisfies Partial<store.CaptureRow>;
  await store.updateCapture(ctx.db, ctx.accountId, row.id, changes);
  const updated = { ...row, ...changes };
  await settleCompleted(ctx, updated);
  const resource = presentCapture(updated, ctx.baseUrl);
  await writePaymentEvent(ctx, 'PAYMENT.CAPTURE.COMPLETED', resource);
  return resource;
}

/**
 * Declines a capture held for verification. Its amount no longer counts against the
 * authorization (the authorization's status is left as the capture made it).
 */
export async function declinePendingCapture(ctx: ServiceContext, captureId: string): Promise<Capture> {
  // The lock order puts the authorization before its capture: the capture's authorization (which
  // never changes) is read first, then both are locked in that order.
  const authorizationId = (await loadCapture(ctx, captureId)).authorization_id;
  const authorization = authorizationId ? await store.findAuthorization(ctx.db, ctx.accountId, authorizationId, { forUpdate: true }) : undefined;
  const row = await loadCapture(ctx, captureId, { forUpdate: true });
  assertCaptureCanTransition('decline', captureStatusOf(row.status), 'DECLINED');
  const changes = { status: 'DECLINED', status_reason: null, update_time: isoSeconds(ctx.now) } satisfies Partial<store.CaptureRow>;
  await store.updateCapture(ctx.db, ctx.accountId, row.id, changes);
  if (row.authorization_id) {
    if (authorization) {
      await store.updateAuthorization(ctx.db, ctx.accountId, authorization.id, {
        captured_minor: authorization.captured_minor - row.amount_minor,
        capture_count: authorization.capture_count - 1n,
        update_time: isoSeconds(ctx.now),
      });
    }
  }
  const resource = presentCapture({ ...row, ...changes }, ctx.baseUrl);
  await writePaymentEvent(ctx, 'PAYMENT.CAPTURE.DECLINED', resource);
  return resource;
}

/** What is left of a capture's net in the merchant's balance after its refunds. */
export function remainingNet(row: store.CaptureRow): bigint {
  return row.amount_minor - row.refunded_minor - (row.fee_minor - row.refunded_fee_minor);
}

/**
 * Reverses a completed capture (a dispute lost): status REFUNDED with the reversal's reason in
 * status_details (the API has no REVERSED capture status), ledger takes the remaining net.
 */
export async function reverseCompletedCapture(ctx: ServiceContext, captureId: string, reason: string): Promise<Capture> {
  const row = await loadCapture(ctx, captureId, { forUpdate: true });
  const status: CaptureStatus = captureStatusOf(row.status);
  assertCaptureCanTransition('reverse', status, 'REFUNDED');
  const changes = { status: 'REFUNDED', status_reason: reason, update_time: isoSeconds(ctx.now) } satisfies Partial<store.CaptureRow>;
  await store.updateCapture(ctx.db, ctx.accountId, row.id, changes);
  const taken = remainingNet(row);
  if (taken !== 0n) {
    await recordMovement(ctx.db, {
      accountId: ctx.accountId,
      currency: row.currency,
      amountMinor: -taken,
      kind: 'REVERSAL',
      referenceId: row.id,
      createTime: isoSeconds(ctx.now),
      grossMinor: -(row.amount_minor - row.refunded_minor),
      feeMinor: row.fee_minor - row.refunded_fee_minor,
      relatedId: row.id,
      invoiceId: row.invoice_id,
      customId: row.custom_id,
    });
  }
  const resource = presentCapture({ ...row, ...changes }, ctx.baseUrl);
  await writePaymentEvent(ctx, 'PAYMENT.CAPTURE.REVERSED', resource);
  return resource;
}
