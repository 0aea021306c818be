// Outbox events of the orders domain, written in the transaction of the change they report.

import type { ServiceContext } from '../core/deps.js';
import { writeEventIn } from '../core/events.js';
import type { Order } from './present.js';

export type OrderEventType = 'CHECKOUT.ORDER.APPROVED' | 'CHECKOUT.ORDER.COMPLETED';

const SUMMARIES: Record<OrderEventType, string> = {
  'CHECKOUT.ORDER.APPROVED': 'An order has been approved by the buyer',
  'CHECKOUT.ORDER.COMPLETED': 'Checkout order completed',
};

export async function writeOrderEvent(ctx: ServiceContext, eventType: OrderEventType, resource: Order): Promise<void> {
  await writeEventIn(ctx, {
      accountId: ctx.accountId,
      eventType,
      resourceType: 'checkout-order',
      resourceId: resource.id,
      resource,
      summary: SUMMARIES[eventType],
    },
  );
}
