// Money that follows a dispute's outcome, moved through the payments domain (refunds, reversals).

import { isoMillis, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { balanceOf, recordMovement } from '../ledger/store.js';
import { money } from '../../lib/money.js';
import type { StoredCapture } from '../payments/api.js';
import type { Dispute } from './model.js';

const REVERSIBLE = new Set(['COMPLETED', 'PARTIALLY_REFUNDED']);

export function captureOf(ctx: ServiceContext, dispute: Dispute): Promise<StoredCapture | undefined> {
  return ctx.deps.domains.payments.findCapture(ctx, dispute.captureId);
}

function movement(dispute: Dispute, ctx: ServiceContext, type: 'DEBIT' | 'CREDIT', amountMinor: bigint, reason: string) {
  dispute.details.money_movements.push({
    affected_party: 'SELLER',
    amount: money(amountMinor, dispute.currency),
    initiated_time: isoMillis(ctx.now),
    type,
    reason,
  });
}

/** Refunds `amountMinor` of the capture to the buyer (PAYMENT.CAPTURE.REFUNDED is written by payments). */
export async function refundBuyer(ctx: ServiceContext, dispute: Dispute, amountMinor: bigint, note: string | undefined): Promise<void> {
  if (amountMinor <= 0n) return;
  await ctx.deps.domains.payments.refundCaptureForDispute(ctx, dispute.captureId, amountMinor, note);
  movement(dispute, ctx, 'DEBIT', amountMinor, 'DISPUTE_SETTLEMENT');
}

/**
 * A decision for the buyer: the capture is reversed (PAYMENT.CAPTURE.REVERSED by payments). Returns the
 * gross amount given back to the buyer; 0 when the capture has nothing left (already fully refunded).
 * The net taken from the seller is remembered so that a later decision for the seller can return it.
 */
export async function reverseForBuyer(ctx: ServiceContext, dispute: Dispute): Promise<bigint> {
  const capture = await captureOf(ctx, dispute);
  if (!capture || !REVERSIBLE.has(capture.status)) return 0n;
  const before = await balanceOf(ctx.db, ctx.accountId, capture.currency);
  await ctx.deps.domains.payments.reverseCapture(ctx, dispute.captureId, 'BUYER_COMPLAINT');
  const taken = before - (await balanceOf(ctx.db, ctx.accountId, capture.currency));
  dispute.details.reversed_minor = (BigInt(dispute.details.reversed_minor) + taken).toString();
  if (taken > 0n) movement(dispute, ctx, 'DEBIT', taken, 'DISPUTE_SETTLEMENT');
  return capture.amountMinor - capture.refundedMinor;
}

/**
 * A later decision for the seller (after an appeal) gives back what a reversal took. Payments has no
 * way to un-reverse a capture (its reversal is final there), so this adapter credits the merchant's
 * balance directly through the shared ledger; the capture itself stays reversed (REFUNDED).
 */
export async function reinstateSeller(ctx: ServiceContext, dispute: Dispute): Promise<void> {
  const reversed = BigInt(dispute.details.reversed_minor);
  if (reversed <= 0n) return;
  await recordMovement(ctx.db, {
    accountId: ctx.accountId,
    currency: dispute.currency,
    amountMinor: reversed,
    kind: 'REVERSAL',
    referenceId: dispute.id,
    createTime: isoSeconds(ctx.now),
    relatedId: dispute.captureId,
  });
  dispute.details.reversed_minor = '0';
  movement(dispute, ctx, 'CREDIT', reversed, 'DISPUTE_SETTLEMENT');
}
