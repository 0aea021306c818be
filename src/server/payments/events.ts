// Outbox events of the payments domain, written in the transaction of the change they report.

import type { ServiceContext } from '../core/deps.js';
import { writeEventIn } from '../core/events.js';
import type { PaymentResource } from './present.js';
import { voidedExpired } from '../notifications/api.js';

export type PaymentEventType =
  | 'PAYMENT.AUTHORIZATION.CREATED'
  | 'PAYMENT.AUTHORIZATION.VOIDED'
  | 'PAYMENT.CAPTURE.COMPLETED'
  | 'PAYMENT.CAPTURE.PENDING'
  | 'PAYMENT.CAPTURE.DECLINED'
  | 'PAYMENT.CAPTURE.REFUNDED'
  | 'PAYMENT.CAPTURE.REVERSED';

const RESOURCE_TYPES: Record<PaymentEventType, string> = {
  'PAYMENT.AUTHORIZATION.CREATED': 'authorization',
  'PAYMENT.AUTHORIZATION.VOIDED': 'authorization',
  'PAYMENT.CAPTURE.COMPLETED': 'capture',
  'PAYMENT.CAPTURE.PENDING': 'capture',
  'PAYMENT.CAPTURE.DECLINED': 'capture',
  'PAYMENT.CAPTURE.REFUNDED': 'refund',
  'PAYMENT.CAPTURE.REVERSED': 'capture',
};

/** "12.34 USD" from a resource's amount, for summaries. */
function amountText(resource: PaymentResource): string {
  return `${resource.amount.value} ${resource.amount.currency_code}`;
}

const SUMMARIES: Record<PaymentEventType, (resource: PaymentResource) => string> = {
  'PAYMENT.AUTHORIZATION.CREATED': (r) => `Payment authorized for ${amountText(r)}`,
  'PAYMENT.AUTHORIZATION.VOIDED': (r) =>
    voidedExpired(r)
      ? `Authorization of ${amountText(r)} voided because it expired`
      : `Authorization of ${amountText(r)} voided`,
  'PAYMENT.CAPTURE.COMPLETED': (r) => `Payment completed for ${amountText(r)}`,
  'PAYMENT.CAPTURE.PENDING': (r) => `Payment of ${amountText(r)} is pending`,
  'PAYMENT.CAPTURE.DECLINED': (r) => `Payment of ${amountText(r)} was declined`,
  'PAYMENT.CAPTURE.REFUNDED': (r) => `A ${amountText(r)} refund was issued`,
  'PAYMENT.CAPTURE.REVERSED': (r) => `Payment of ${amountText(r)} was reversed`,
};

export async function writePaymentEvent(ctx: ServiceContext, eventType: PaymentEventType, resource: PaymentResource): Promise<void> {
  await writeEventIn(ctx, {
      accountId: ctx.accountId,
      eventType,
      resourceType: RESOURCE_TYPES[eventType],
      resourceId: resource.id,
      resource,
      summary: SUMMARIES[eventType](resource),
    },
  );
}
