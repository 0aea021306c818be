// Deadlines on each account's clock: a party that does not answer in time loses; appeal windows close.

import type { FastifyRequest } from 'fastify';
import { isoMillis } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { serviceContext } from '../http/idempotency.js';
import { listAccounts } from '../oauth/store.js';
import { eventFor, loadDispute, resolve, saveDispute } from './lifecycle.js';
import { disputeToRow } from './model.js';
import { reinstateSeller, reverseForBuyer } from './money-effects.js';
import * as store from './store.js';

const BATCH = 100;
const MAX_BATCHES = 50;

/**
 * Locks the dispute for this transaction if its deadline has passed; false when it no longer has
 * one due (another server applied it) or another transaction holds it (that one applies it).
 */
async function claimDueDispute(ctx: ServiceContext, id: string, now: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('disputes')
    .select('id')
    .where('account_id', '=', ctx.accountId)
    .where('id', '=', id)
    .where('deadline_at', 'is not', null)
    .where('deadline_at', '<=', now)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row !== undefined;
}

/** Applies whatever deadline of this dispute has passed; false when it was not due (any longer) or another server holds it. */
async function expireDispute(ctx: ServiceContext, id: string): Promise<boolean> {
  const now = isoMillis(ctx.now);
  if (!(await claimDueDispute(ctx, id, now))) return false;
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
        const applied = await deps.storage.transaction({ name: 'disputes.deadline' }, (trx) => expireDispute({ db: trx, deps, accountId, now, baseUrl }, id));
        if (applied) settled += 1;
      } catch (error) {
        deps.log.error({ err: error, dispute_id: id }, 'dispute deadline could not be applied');
      }
    }
  }
  return settled;
}

/** Before a dispute request: outcomes must not depend on when the job last ran. */
export async function sweepForRequest(deps: ServerDeps, request: FastifyRequest): Promise<void> {
  const ctx = serviceContext(deps, request);
  await sweepAccount(deps, ctx.accountId, ctx.baseUrl);
}

export function registerDeadlineJob(deps: ServerDeps): void {
  deps.scheduler.register('disputes.deadlines', async () => {
    for (const account of await listAccounts(deps.db)) await sweepAccount(deps, account.id, deps.publicUrl());
  });
}
