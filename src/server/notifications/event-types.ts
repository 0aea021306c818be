// Every event type the server emits, with a description, and where each one is delivered.

export interface EventTypeInfo {
  name: string;
  description: string;
  /** The resource_version the server writes for this type. */
  resourceVersion: string;
}

const types = (resourceVersion: string, entries: Array<[string, string]>): EventTypeInfo[] =>
  entries.map(([name, description]) => ({ name, description, resourceVersion }));

/** The catalogue served by GET /v1/notifications/webhooks-event-types. */
export const EVENT_TYPES: readonly EventTypeInfo[] = [
  ...types('2.0', [
    ['PAYMENT.AUTHORIZATION.CREATED', 'A payment authorization was created.'],
    ['PAYMENT.AUTHORIZATION.VOIDED', 'A payment authorization was voided, by a call or because it expired.'],
    ['PAYMENT.CAPTURE.COMPLETED', 'A capture of an authorized payment completed.'],
    ['PAYMENT.CAPTURE.PENDING', 'A capture is pending, for example until the merchant completes identity verification.'],
    ['PAYMENT.CAPTURE.DECLINED', 'A capture of an authorized payment was declined.'],
    ['PAYMENT.CAPTURE.DENIED', 'A pending capture was denied.'],
    ['PAYMENT.CAPTURE.REFUNDED', 'The merchant refunded a capture, in full or in part.'],
    ['PAYMENT.CAPTURE.REVERSED', 'A capture was reversed by the provider, for example after a chargeback.'],
    ['CHECKOUT.ORDER.APPROVED', 'The buyer approved a checkout order.'],
    ['CHECKOUT.ORDER.COMPLETED', 'A checkout order completed.'],
  ]),
  ...types('1.0', [
    ['CUSTOMER.DISPUTE.CREATED', 'A customer opened a dispute.'],
    ['CUSTOMER.DISPUTE.UPDATED', 'A dispute changed: a message, an offer, evidence or a new stage.'],
    ['CUSTOMER.DISPUTE.RESOLVED', 'A dispute was resolved.'],
    ['PAYMENT.PAYOUTSBATCH.PROCESSING', 'A payout batch is being processed.'],
    ['PAYMENT.PAYOUTSBATCH.SUCCESS', 'A payout batch finished processing.'],
    ['PAYMENT.PAYOUTSBATCH.DENIED', 'A payout batch was denied.'],
    ['PAYMENT.PAYOUTS-ITEM.SUCCEEDED', 'A payout item was paid to its receiver.'],
    ['PAYMENT.PAYOUTS-ITEM.FAILED', 'A payout item failed.'],
    ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 'A payout item is waiting for its receiver to claim it.'],
    ['PAYMENT.PAYOUTS-ITEM.RETURNED', 'An unclaimed payout item was returned to the sender.'],
    ['PAYMENT.PAYOUTS-ITEM.CANCELED', 'An unclaimed payout item was cancelled by the sender.'],
    ['PAYMENT.PAYOUTS-ITEM.HELD', 'A payout item is on hold for review.'],
    ['PAYMENT.PAYOUTS-ITEM.BLOCKED', 'A payout item was blocked.'],
    ['PAYMENT.PAYOUTS-ITEM.REFUNDED', 'A payout item was refunded to the sender.'],
    ['PAYMENT.PAYOUTS-ITEM.DENIED', 'A payout item was denied.'],
  ]),
  ...types('2.0', [
    ['INVOICING.INVOICE.CREATED', 'An invoice was created.'],
    ['INVOICING.INVOICE.UPDATED', 'An invoice was updated.'],
    ['INVOICING.INVOICE.SCHEDULED', 'An invoice was scheduled to be sent later.'],
    ['INVOICING.INVOICE.PAID', 'An invoice was paid, in full or in part.'],
    ['INVOICING.INVOICE.CANCELLED', 'An invoice was cancelled.'],
    ['INVOICING.INVOICE.REFUNDED', 'A payment on an invoice was refunded.'],
  ]),
];

export const ALL_EVENTS = '*';
export const ALL_EVENTS_DESCRIPTION = 'All event types, including ones added later.';

const BY_NAME = new Map(EVENT_TYPES.map((type) => [type.name, type]));

export function eventTypeInfo(name: string): EventTypeInfo | undefined {
  return BY_NAME.get(name);
}

export function isKnownEventType(name: string): boolean {
  return BY_NAME.has(name);
}

/** Whether a subscription to `subscribed` (names or `*`) receives an event of `eventType`. */
export function subscriptionMatches(subscribed: readonly string[], eventType: string): boolean {
  return subscribed.includes(ALL_EVENTS) || subscribed.includes(eventType);
}
