// Deadlines on each account's clock: a party that does not answer in time loses; appeal windows close.
// Settled by a scheduler job (on its interval and when a clock moves), and by a change of a dispute
// whose deadline has passed, first, in its own transaction. Reads show what is stored: a deadline
// can move money (a reversal), which only a write may do.

import { isoMillis } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { listAccounts } from '../oauth/store.js';
import { eventFor, loadDispute, resolve, saveDispute } from './lifecycle.js';
import { disputeToRow } from './model.js';
import { reinstateSeller, reverseForBuyer } from './money-effects.js';
import * as store from './store.js';

const BATCH = 100;
const MAX_BATCHES = 50;

/**
 * Locks the dispute for this transaction if its deadline has passed; false when it no longer has
 * one due (another server applied it) or, for the job (`skipLocked`), another transaction holds it
 * (that one applies it, or the next pass does).
 */
async function claimDueDispute(ctx: ServiceContext, id: string, now: string, skipLocked: boolean): Promise<boolean> {
  const locked = ctx.db
    .selectFrom('disputes')
    .select('id')
    .where('account_id', '=', ctx.accountId)
    .where('id', '=', id)
    .where('deadline_at', 'is not', null)
    .where('deadline_at', '<=', now)
    .forUpdate();
  const row = await (skipLocked ? locked.skipLocked() : locked).executeTakeFirst();
  return row !== undefined;
}

/** Applies whatever deadline of this dispute has passed; false when it was not due (any longer) or another server holds it. */
async function expireDispute(ctx: ServiceContext, id: string, skipLocked: boolean): Promise<boolean> {
  const now = isoMillis(ctx.now);
  if (!(await claimDueDispute(ctx, id, now, skipLocked))) return false;
  const dispute = await loadDispute(ctx, id);
  const before = dispute.status;
  if (dispute.status === 'WAITING_FOR_SELLER_RESPONSE' && dispute.sellerDue && dispute.sellerDue <= now) {
    const refunded = await reverseForBuyer(ctx, dispute);
    resolve(ctx, dispute, 'seller-response-deadline', { code: 'RESOLVED_BUYER_FAVOUR', decidedBy: 'DEADLINE', refundedMinor: refunded });
  } else if (dispute.status === 'WAITING_FOR_BUYER_RESPONSE' && dispute.buyerDue && dispute.buyerDue <= now) {
    await reinstateSeller(ctx, dispute);
    resolve(ctx, dispute, 'buyer-response-deadline', { code: 'RESOLVED_SELLER_FAVOUR', decidedBy: 'DEADLINE' });
  } else {
    // The appeal window closed (or the stored deadline was stale): refresh state and deadline only.
    const row = disputeToRow(dispute, ctx.now);
    const stored = await store.findDispute(ctx.db, ctx.accountId, id);
    if (stored && stored.dispute_state === row.dispute_state) {
      await store.updateDispute(ctx.db, ctx.accountId, id, { deadline_at: row.deadline_at });
      return true;
    }
  }
  await saveDispute(ctx, dispute, eventFor(before, dispute));
  return true;
}

/**
 * Settles the account's passed deadlines, one dispute per transaction, which re-checks and locks it
 * (so servers sweeping side by side settle each once); a failing dispute is skipped (and logged).
 */
export async function sweepAccount(deps: ServerDeps, accountId: string, baseUrl: string): Promise<number> {
  const attempted = new Set<string>();
  let settled = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
    const now = deps.clock.now(accountId);
    const due = (await store.disputesDue(deps.db, accountId, isoMillis(now), BATCH + attempted.size)).filter((id) => !attempted.has(id));
    if (due.length === 0) break;
    for (const id of due.slice(0, BATCH)) {
      attempted.add(id);
      try {
        const applied = await deps.storage.transaction({ name: 'disputes.deadline' }, (trx) => expireDispute({ db: trx, deps, accountId, now, baseUrl }, id, true));
        if (applied) settled += 1;
      } catch (error) {
        deps.log.error({ err: error, dispute_id: id }, 'dispute deadline could not be applied');
      }
    }
  }
  return settled;
}

/**
 * In a change's transaction, before it reads the dispute: settles the dispute's deadline if it has
 * passed, so the change acts on the outcome whenever the job last ran (this dispute only: a refused
 * change rolls it back, and the job writes it). Waits for another transaction holding the dispute,
 * then sees what that one left. A no-op when nothing is due.
 */
export async function settleDueDeadline(ctx: ServiceContext, id: string): Promise<void> {
  await expireDispute(ctx, id, false);
}

export function registerDeadlineJob(deps: ServerDeps): void {
  deps.scheduler.register('disputes.deadlines', async () => {
    for (const account of await listAccounts(deps.db)) await sweepAccount(deps, account.id, deps.publicUrl());
  });
}
