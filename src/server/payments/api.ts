// The payments domain as the other domains see it: one interface, built once in domains.ts and
// reached through `ctx.deps.domains.payments`. Nothing else in payments/ is imported from outside
// it (test/server/domain-boundaries.test.ts).

import type { ServiceContext } from '../core/deps.js';
import type { NewAuthorization } from './authorizations.js';
import type { NewCapture } from './captures.js';
import type { Authorization, Capture, PaymentResource, Refund } from './present.js';
import * as service from './service.js';
import type { OrderPayments, StoredCapture } from './service.js';

export interface PaymentsApi {
  /** The caller's capture, or undefined; `forUpdate` locks it until the transaction ends. */
  findCapture(ctx: ServiceContext, captureId: string, options?: { forUpdate?: boolean }): Promise<StoredCapture | undefined>;
  /** The captures of an order, oldest first. */
  capturesOfOrder(ctx: ServiceContext, orderId: string): Promise<StoredCapture[]>;
  /** An order's authorizations, captures and refunds as the API shows them inside the order. */
  paymentsOfOrder(ctx: ServiceContext, orderId: string): Promise<OrderPayments>;
  /** Whether an authorization (or a capture) of the account already carries this invoice_id. */
  invoiceIdUsed(ctx: ServiceContext, kind: 'authorization' | 'capture', invoiceId: string): Promise<boolean>;
  /** Creates an authorization of an order (PAYMENT.AUTHORIZATION.CREATED). */
  createAuthorization(ctx: ServiceContext, input: NewAuthorization): Promise<Authorization>;
  /** Records a capture of an order: fee, ledger, event. */
  recordCapture(ctx: ServiceContext, input: NewCapture): Promise<Capture>;
  /** Whether new captures of the account are held (PENDING) for identity verification. */
  capturesHeldForVerification(ctx: ServiceContext): Promise<boolean>;
  /** Refunds a capture to settle a dispute (no dispute or balance check); undefined amount = what is left. */
  refundCaptureForDispute(ctx: ServiceContext, captureId: string, amountMinor: bigint | undefined, note: string | undefined): Promise<Refund>;
  /** Reverses a COMPLETED or PARTIALLY_REFUNDED capture (a dispute decided for the buyer). */
  reverseCapture(ctx: ServiceContext, captureId: string, reason?: string): Promise<Capture>;
}

export function createPaymentsApi(): PaymentsApi {
  return {
    findCapture: service.findCapture,
    capturesOfOrder: service.capturesOfOrder,
    paymentsOfOrder: service.paymentsOfOrder,
    invoiceIdUsed: service.invoiceIdUsed,
    createAuthorization: service.createAuthorization,
    recordCapture: async (ctx, input) => (await service.recordCapture(ctx, input)).resource,
    capturesHeldForVerification: service.capturesHeldForVerification,
    refundCaptureForDispute: service.refundCaptureForDispute,
    reverseCapture: service.reverseCapture,
  };
}

export type { Authorization, Capture, NewAuthorization, NewCapture, OrderPayments, PaymentResource, Refund, StoredCapture };

// Shared as values, not calls: the Money shapes and checks that orders validate with, the card
// checks orders keep.
export { amountOf, checkBreakdown } from './amounts.js';
export { cardChecksJson, type CardChecks } from './present.js';
export { amountWithBreakdownSchema, moneySchema, type MoneyInput } from './schema.js';
