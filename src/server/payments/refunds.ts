// Refunds of captures: full or partial, to the cent, with the fee returned in proportion.

import { fromMinorUnits } from '../../lib/money.js';
import { addSeconds, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import { notFound, serviceError } from '../http/errors.js';
import { balanceOfForUpdate, recordMovement } from '../ledger/store.js';
import { amountInCurrencyOf } from './amounts.js';
import { loadCapture } from './captures.js';
import { writePaymentEvent } from './events.js';
import { refundFee } from './fees.js';
import { captureDetailsSchema, presentRefund, type Refund, type RefundDetails } from './present.js';
import type { RefundBody } from './schema.js';
import { assertCaptureCanTransition, assertNotReversed, captureStatusOf, type RefundStatus } from './states.js';
import * as store from './store.js';

/** Refunds one capture accepts. */
export const MAX_REFUNDS_PER_CAPTURE = 10n;
/** A capture can be refunded for 180 days on the account's clock. */
export const REFUND_PERIOD_SECONDS = 180 * 86_400;

export interface RefundOptions {
  /** A refund settling a dispute: skips the dispute and balance checks. */
  forDispute?: boolean;
}

function requestedRefund(row: store.CaptureRow, body: RefundBody, remaining: bigint): bigint {
  if (!body.amount) return remaining;
  const amountMinor = amountInCurrencyOf(body.amount, row.currency, {
    issue: 'REFUND_CAPTURE_CURRENCY_MISMATCH',
    description: `The refund must be in the capture's currency (${row.currency}).`,
  });
  if (amountMinor > remaining) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'REFUND_AMOUNT_EXCEEDED',
      `At most ${fromMinorUnits(remaining, row.currency)} ${row.currency} of this capture is left to refund.`,
      { field: '/amount/value', value: body.amount.value },
    );
  }
  return amountMinor;
}

/** A capture under dispute (the disputes domain says which) takes only a full refund. */
async function assertRefundable(ctx: ServiceContext, row: store.CaptureRow, body: RefundBody, partial: boolean, options: RefundOptions) {
  if (partial && !options.forDispute && (await ctx.deps.domains.disputes.isCaptureDisputed(ctx, row.id))) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TRANSACTION_DISPUTED', 'The capture is under dispute: only a full refund is possible.');
  }
  if (isoSeconds(addSeconds(new Date(row.create_time), REFUND_PERIOD_SECONDS)) <= isoSeconds(ctx.now)) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'REFUND_TIME_LIMIT_EXCEEDED', 'Captures can be refunded for 180 days.');
  }
  if (row.refund_count >= MAX_REFUNDS_PER_CAPTURE) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'MAX_NUMBER_OF_REFUNDS_EXCEEDED', `A capture accepts at most ${MAX_REFUNDS_PER_CAPTURE} refunds.`);
  }
  if (body.invoice_id !== undefined && (await store.refundInvoiceUsed(ctx.db, ctx.accountId, body.invoice_id))) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_INVOICE_ID', 'A refund with this invoice_id already exists.', {
      field: '/invoice_id',
      value: body.invoice_id,
    });
  }
}

/** Refunds all (no amount) or part of a capture; raises PAYMENT.CAPTURE.REFUNDED. */
export async function refundCapture(ctx: ServiceContext, captureId: string, body: RefundBody, options: RefundOptions = {}): Promise<Refund> {
  // Lock order: the account (a new invoice_id is checked unused), the capture, then the balance.
  if (body.invoice_id !== undefined) await lockAccount(ctx.db, ctx.accountId);
  const row = await loadCapture(ctx, captureId, { forUpdate: true });
  const status = captureStatusOf(row.status);
  assertNotReversed(status, row.status_reason);
  assertCaptureCanTransition('refund', status, 'REFUNDED');
  const remaining = row.amount_minor - row.refunded_minor;
  const amountMinor = requestedRefund(row, body, remaining);
  await assertRefundable(ctx, row, body, amountMinor < remaining, options);
  const fee = refundFee({
    captureAmount: row.amount_minor,
    captureFee: row.fee_minor,
    alreadyRefunded: row.refunded_minor,
    alreadyReturnedFee: row.refunded_fee_minor,
    refundAmount: amountMinor,
  });
  const net = amountMinor - fee;
  if (!options.forDispute && (await balanceOfForUpdate(ctx.db, ctx.accountId, row.currency)) < net) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'REFUND_FAILED_INSUFFICIENT_FUNDS',
      `The ${row.currency} balance does not cover the refund's net amount (${fromMinorUnits(net, row.currency)}).`,
    );
  }
  const target = amountMinor === remaining ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  assertCaptureCanTransition('refund', status, target);
  const now = isoSeconds(ctx.now);
  const refunded = row.refunded_minor + amountMinor;
  const captureDetails = captureDetailsSchema.parse(JSON.parse(row.details));
  const details: RefundDetails = {
    payer: captureDetails.payee,
    total_refunded_minor: refunded.toString(),
    ...(body.note_to_payer !== undefined ? { note_to_payer: body.note_to_payer } : {}),
  };
  const refund: store.RefundRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    capture_id: row.id,
    status: 'COMPLETED' satisfies RefundStatus,
    currency: row.currency,
    amount_minor: amountMinor,
    fee_minor: fee,
    net_minor: net,
    invoice_id: body.invoice_id ?? null,
    custom_id: body.custom_id ?? null,
    details: JSON.stringify(details),
    create_time: now,
    update_time: now,
  };
  await store.insertRefund(ctx.db, refund);
  await store.updateCapture(ctx.db, ctx.accountId, row.id, {
    status: target,
    refunded_minor: refunded,
    refunded_fee_minor: row.refunded_fee_minor + fee,
    refund_count: row.refund_count + 1n,
    update_time: now,
  });
  await recordMovement(ctx.db, {
    accountId: ctx.accountId,
    currency: row.currency,
    amountMinor: -net,
    kind: 'REFUND',
    referenceId: refund.id,
    createTime: now,
    grossMinor: -amountMinor,
    feeMinor: fee,
    relatedId: row.id,
    invoiceId: refund.invoice_id,
    customId: refund.custom_id,
  });
  const resource = presentRefund(refund, ctx.baseUrl);
  await writePaymentEvent(ctx, 'PAYMENT.CAPTURE.REFUNDED', resource);
  return resource;
}

export async function getRefund(ctx: ServiceContext, refundId: string): Promise<Refund> {
  const row = await store.findRefundRow(ctx.db, ctx.accountId, refundId);
  if (!row) throw notFound('refund', refundId);
  return presentRefund(row, ctx.baseUrl);
}
