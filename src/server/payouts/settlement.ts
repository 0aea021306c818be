// What happens to an UNCLAIMED item later: its money comes back (cancel, or 30 days), or its receiver claims it.

import { isoMillis, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { serviceError } from '../http/errors.js';
import { recordMovement } from '../ledger/store.js';
import { writeItemEvent } from './events.js';
import { assertItemCanTransition, type ItemStatus } from './states.js';
import * as store from './store.js';

/** Days an item may stay UNCLAIMED before its money goes back to the sender. */
export const UNCLAIMED_RETURN_SECONDS = 30 * 86_400;

async function moveUnclaimed(ctx: ServiceContext, item: store.ItemRow, to: ItemStatus, errorName: string | null): Promise<store.ItemRow> {
  assertItemCanTransition(to === 'RETURNED' ? 'return' : 'claim', item.status as ItemStatus, to);
  const timeProcessed = isoSeconds(ctx.now);
  const moved = await store.moveItem(ctx.db, { accountId: item.account_id, id: item.id }, 'UNCLAIMED', to, { timeProcessed, errorName });
  if (moved !== 1) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'ITEM_INCORRECT_STATUS', 'The payout item changed status while this request ran; read it again.', {
      value: item.id,
    });
  }
  return { ...item, status: to, time_processed: timeProcessed, error_name: errorName, return_due: null };
}

/** UNCLAIMED -> RETURNED: the amount and the fee go back to the sender's balance. */
export async function returnUnclaimedItem(
  ctx: ServiceContext,
  item: store.ItemRow,
  senderBatchId: string | null,
  reason: 'cancel' | 'expiry',
): Promise<store.ItemRow> {
  const returned = await moveUnclaimed(ctx, item, 'RETURNED', item.error_name);
  await recordMovement(ctx.db, {
    accountId: item.account_id,
    currency: item.currency,
    amountMinor: item.amount_minor + item.fee_minor,
    kind: 'PAYOUT_RETURN',
    referenceId: item.id,
    createTime: isoMillis(ctx.now),
    relatedId: item.id,
  });
  await writeItemEvent(ctx, returned, senderBatchId, reason === 'cancel');
  return returned;
}

/** UNCLAIMED -> SUCCESS: the receiver now has an account; the money already left the sender. */
export async function claimUnclaimedItem(ctx: ServiceContext, item: store.ItemRow, senderBatchId: string | null): Promise<store.ItemRow> {
  const claimed = await moveUnclaimed(ctx, item, 'SUCCESS', null);
  await writeItemEvent(ctx, claimed, senderBatchId);
  return claimed;
}
