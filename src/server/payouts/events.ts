// Payout webhook events, written to the outbox in the transaction that changes the state.

import type { ServiceContext } from '../core/deps.js';
import { writeEventIn } from '../core/events.js';
import { fromMinorUnits } from '../../lib/money.js';
import { batchEventResource, itemResource } from './resources.js';
import type { ItemStatus } from './states.js';
import type { BatchRow, CurrencyTotals, ItemRow } from './store.js';

export type BatchEventType = 'PAYMENT.PAYOUTSBATCH.PROCESSING' | 'PAYMENT.PAYOUTSBATCH.SUCCESS' | 'PAYMENT.PAYOUTSBATCH.DENIED';

const ITEM_EVENT_BY_STATUS: Partial<Record<ItemStatus, string>> = {
  SUCCESS: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED',
  FAILED: 'PAYMENT.PAYOUTS-ITEM.FAILED',
  UNCLAIMED: 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED',
  ONHOLD: 'PAYMENT.PAYOUTS-ITEM.HELD',
  BLOCKED: 'PAYMENT.PAYOUTS-ITEM.BLOCKED',
  RETURNED: 'PAYMENT.PAYOUTS-ITEM.RETURNED',
};

const BATCH_SUMMARY: Record<BatchEventType, string> = {
  'PAYMENT.PAYOUTSBATCH.PROCESSING': 'Payouts batch is being processed.',
  'PAYMENT.PAYOUTSBATCH.SUCCESS': 'Payouts batch completed successfully.',
  'PAYMENT.PAYOUTSBATCH.DENIED': 'Payouts batch was denied.',
};

export async function writeBatchEvent(
  ctx: ServiceContext,
  batch: BatchRow,
  totals: readonly CurrencyTotals[],
  eventType: BatchEventType,
): Promise<void> {
  await writeEventIn(ctx, {
      accountId: batch.account_id,
      eventType,
      resourceType: 'payouts',
      resourceId: batch.id,
      resource: batchEventResource(batch, totals, ctx.baseUrl),
      summary: BATCH_SUMMARY[eventType],
    },
  );
}

/** The event for an item that has just reached its status (`CANCELED` for a cancelled item). */
export async function writeItemEvent(
  ctx: ServiceContext,
  item: ItemRow,
  senderBatchId: string | null,
  cancelled = false,
): Promise<void> {
  const status = item.status as ItemStatus;
  const eventType = cancelled ? 'PAYMENT.PAYOUTS-ITEM.CANCELED' : ITEM_EVENT_BY_STATUS[status];
  if (!eventType) return;
  const amount = `${fromMinorUnits(item.amount_minor, item.currency)} ${item.currency}`;
  await writeEventIn(ctx, {
      accountId: item.account_id,
      eventType,
      resourceType: 'payouts_item',
      resourceId: item.id,
      resource: itemResource(item, ctx.baseUrl, { standalone: true, senderBatchId }),
      summary: `A payout item of ${amount} is now ${cancelled ? 'CANCELED' : status}.`,
    },
  );
}
