// Background processing on each account's clock: PENDING batches start (or are DENIED), their
// items settle in chunks, finished batches complete, and UNCLAIMED items go back after 30 days.
//
// Each chunk is one transaction that settles items, moves money and writes events together, and
// only items still PENDING are touched: a server stopped anywhere resumes where the last committed
// chunk left off, and no item is paid twice. Each of these transactions first locks its batch with
// SKIP LOCKED: servers processing side by side take turns on a batch, never the same chunk twice.

import { lockAccount } from '../db/account-lock.js';
import { addSeconds, isoMillis, isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import type { Queryable, Trx } from '../db/schema.js';
import { balanceOf, type Movement } from '../ledger/store.js';
import { writeBatchEvent, writeItemEvent } from './events.js';
import { recordMovements } from './ledger-bulk.js';
import { parseDetail } from './resources.js';
import { UNCLAIMED_RETURN_SECONDS, claimUnclaimedItem, returnUnclaimedItem } from './settlement.js';
import { CHARGED_ITEM_STATUSES, assertBatchCanTransition, assertItemCanTransition, type BatchStatus, type ItemStatus } from './states.js';
import * as store from './store.js';
import { SELF_PAYMENT, UNREGISTERED_RECEIVER, testValueOutcome } from './test-values.js';

/** Items settled per transaction. */
export const CHUNK_SIZE = 1000;

export interface ProcessingOptions {
  /** Stop after this many chunks (tests use it to stop a batch half-way, as a crash would). */
  maxChunks?: number;
}

/**
 * Lets requests in between chunks. A chunk's queries complete as microtasks, so without this a
 * whole batch would run before the server reads another request off a socket.
 */
const yieldToRequests = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

function jobContext(deps: ServerDeps, db: Queryable, accountId: string): ServiceContext {
  return { db, deps, accountId, now: deps.clock.now(accountId), baseUrl: deps.publicUrl() };
}

/** The batch, locked for this transaction; undefined when it is gone or another transaction holds it. */
function claimBatch(trx: Trx, accountId: string, batchId: string): Promise<store.BatchRow | undefined> {
  return trx
    .selectFrom('payout_batches')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', batchId)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** A batch status change that must find the batch where this transaction saw it (else it rolls back). */
async function moveBatchOrFail(trx: Trx, accountId: string, batchId: string, from: BatchStatus, to: BatchStatus, timeCompleted: string | null): Promise<void> {
  const moved = await store.moveBatch(trx, { accountId, id: batchId }, from, to, timeCompleted);
  if (moved !== 1) throw new Error(`payout batch ${batchId}: no longer ${from}`);
}

/**
 * PENDING -> PROCESSING, or DENIED (every item FAILED, nothing paid) when the balance cannot cover
 * it. True when the batch is PROCESSING; false when it is done, denied, or held by another server.
 */
async function startBatch(deps: ServerDeps, accountId: string, batchId: string): Promise<boolean> {
  return deps.storage.transaction({ name: 'payouts.start-batch' }, async (trx) => {
    const ctx = jobContext(deps, trx, accountId);
    // The merchant's lock first: two servers starting two of its batches at once would each see the
    // balance and the reserved cost without the other's batch, and together pay out more than it has.
    await lockAccount(trx, accountId);
    const batch = await claimBatch(trx, accountId, batchId);
    if (!batch || batch.status !== 'PENDING') return batch?.status === 'PROCESSING';
    const cost = await store.batchCost(trx, batchId);
    const reserved = await store.reservedCost(trx, accountId);
    let covered = true;
    for (const [currency, needed] of cost) {
      const available = (await balanceOf(trx, accountId, currency)) - (reserved.get(currency) ?? 0n);
      if (available < needed) covered = false;
    }
    const to = covered ? 'PROCESSING' : 'DENIED';
    assertBatchCanTransition(covered ? 'start processing' : 'deny', 'PENDING', to);
    const now = isoSeconds(ctx.now);
    await moveBatchOrFail(trx, accountId, batchId, 'PENDING', to, covered ? null : now);
    if (!covered) await failEveryItem(ctx, batch, now);
    const moved = { ...batch, status: to, time_completed: covered ? null : now };
    const totals = await store.batchTotals(trx, batchId, CHARGED_ITEM_STATUSES);
    await writeBatchEvent(ctx, moved, totals, covered ? 'PAYMENT.PAYOUTSBATCH.PROCESSING' : 'PAYMENT.PAYOUTSBATCH.DENIED');
    return covered;
  });
}

async function failEveryItem(ctx: ServiceContext, batch: store.BatchRow, now: string): Promise<void> {
  const items = await store.pendingItems(ctx.db, batch.id, Number(batch.item_count));
  const settlement = { status: 'FAILED' as const, errorName: 'INSUFFICIENT_FUNDS', timeProcessed: now, returnDue: null };
  await store.settleItems(ctx.db, batch.id, items.map((item) => item.id), settlement);
  for (const item of items) {
    await writeItemEvent(ctx, { ...item, status: 'FAILED', error_name: 'INSUFFICIENT_FUNDS', time_processed: now }, batch.sender_batch_id);
  }
}

interface Outcome {
  status: ItemStatus;
  errorName: string | null;
}

/** Who owns each receiver on this server: lower-cased e-mail addresses and account ids. */
async function receiverOwners(db: Queryable, items: readonly store.ItemRow[]): Promise<Map<string, string>> {
  const emails = items.filter((item) => item.recipient_type === 'EMAIL').map((item) => item.receiver_key);
  const ids = items.filter((item) => item.recipient_type === 'PAYPAL_ID').map((item) => item.receiver_key);
  const owners = new Map<string, string>();
  for (const account of await store.receiverAccounts(db, [...new Set(emails)], [...new Set(ids)])) {
    owners.set(`EMAIL:${account.email.toLowerCase()}`, account.id);
    owners.set(`PAYPAL_ID:${account.id}`, account.id);
  }
  return owners;
}

/** A test value in the note wins; else the receiver's owner decides (PHONE and USER_HANDLE never match). */
function outcomeOf(item: store.ItemRow, sender: string, owners: Map<string, string>): Outcome {
  const forced = testValueOutcome(parseDetail(item.detail).note);
  if (forced) return { status: forced.status, errorName: forced.name };
  const owner = owners.get(`${item.recipient_type}:${item.receiver_key}`);
  if (owner === sender) return { status: 'FAILED', errorName: SELF_PAYMENT.name };
  if (owner) return { status: 'SUCCESS', errorName: null };
  return { status: 'UNCLAIMED', errorName: UNREGISTERED_RECEIVER.name };
}

function chargeOf(item: store.ItemRow, createTime: string): Movement[] {
  const base = { accountId: item.account_id, currency: item.currency, referenceId: item.id, createTime };
  const movements: Movement[] = [{ ...base, amountMinor: -item.amount_minor, kind: 'PAYOUT' }];
  if (item.fee_minor > 0n) movements.push({ ...base, amountMinor: -item.fee_minor, kind: 'PAYOUT_FEE' });
  return movements;
}

/**
 * Settles up to CHUNK_SIZE items in one transaction; completes the batch when none is left. Returns
 * true when done here (or another server holds the batch: it goes on from there).
 */
async function processChunk(deps: ServerDeps, accountId: string, batchId: string): Promise<boolean> {
  return deps.storage.transaction({ name: 'payouts.chunk' }, async (trx) => {
    const ctx = jobContext(deps, trx, accountId);
    const batch = await claimBatch(trx, accountId, batchId);
    if (!batch || batch.status !== 'PROCESSING') return true;
    const items = await store.pendingItems(trx, batchId, CHUNK_SIZE);
    const now = isoSeconds(ctx.now);
    const returnDue = isoMillis(addSeconds(ctx.now, UNCLAIMED_RETURN_SECONDS));
    const owners = await receiverOwners(trx, items);
    const groups = new Map<string, { outcome: Outcome; items: store.ItemRow[] }>();
    for (const item of items) {
      const outcome = outcomeOf(item, accountId, owners);
      assertItemCanTransition('settle', 'PENDING', outcome.status);
      const key = `${outcome.status}:${outcome.errorName ?? ''}`;
      const group = groups.get(key) ?? { outcome, items: [] };
      group.items.push(item);
      groups.set(key, group);
    }
    const movements: Movement[] = [];
    const settled: store.ItemRow[] = [];
    for (const { outcome, items: members } of groups.values()) {
      const due = outcome.status === 'UNCLAIMED' ? returnDue : null;
      const ids = members.map((item) => item.id);
      const moved = await store.settleItems(trx, batchId, ids, { status: outcome.status, errorName: outcome.errorName, timeProcessed: now, returnDue: due });
      if (moved !== ids.length) throw new Error(`payout batch ${batchId}: ${ids.length - moved} items were no longer PENDING`);
      for (const item of members) {
        if (CHARGED_ITEM_STATUSES.includes(outcome.status)) movements.push(...chargeOf(item, isoMillis(ctx.now)));
        settled.push({ ...item, status: outcome.status, error_name: outcome.errorName, time_processed: now, return_due: due });
      }
    }
    await recordMovements(trx, movements);
    settled.sort((a, b) => Number(a.position - b.position));
    for (const item of settled) await writeItemEvent(ctx, item, batch.sender_batch_id);
    if (items.length === CHUNK_SIZE) return false;
    assertBatchCanTransition('complete', 'PROCESSING', 'SUCCESS');
    await moveBatchOrFail(trx, accountId, batchId, 'PROCESSING', 'SUCCESS', now);
    const totals = await store.batchTotals(trx, batchId, CHARGED_ITEM_STATUSES);
    await writeBatchEvent(ctx, { ...batch, status: 'SUCCESS', time_completed: now }, totals, 'PAYMENT.PAYOUTSBATCH.SUCCESS');
    return true;
  });
}

/** Starts and settles every open batch, oldest first, each account on its own clock. */
export async function processPayoutBatches(deps: ServerDeps, options: ProcessingOptions = {}): Promise<number> {
  let budget = options.maxChunks ?? Number.POSITIVE_INFINITY;
  let chunks = 0;
  for (const accountId of await store.accountsWithOpenBatches(deps.db)) {
    for (const batch of await store.openBatches(deps.db, accountId)) {
      if (budget <= 0) return chunks;
      if (!(await startBatch(deps, accountId, batch.id))) continue;
      // One pass more than the chunks the items need, for the completing transaction.
      const bound = Math.ceil(Number(batch.item_count) / CHUNK_SIZE) + 1;
      for (let round = 0; round < bound && budget > 0; round += 1) {
        budget -= 1;
        chunks += 1;
        await yieldToRequests();
        if (await processChunk(deps, accountId, batch.id)) break;
      }
    }
  }
  return chunks;
}

/** How long a server may return unclaimed items before another may take the job over. */
const RETURN_LEASE_MS = 5 * 60_000;

/**
 * UNCLAIMED items whose 30 days have passed on their sender's clock go back, a chunk per
 * transaction; one server at a time does it (a job lease: the due items are read, then returned).
 */
export async function returnExpiredUnclaimedItems(deps: ServerDeps): Promise<void> {
  await deps.storage.withJobLease('payouts.return-unclaimed', RETURN_LEASE_MS, () => returnUnclaimedOfEveryAccount(deps));
}

async function returnUnclaimedOfEveryAccount(deps: ServerDeps): Promise<void> {
  for (const accountId of await store.accountsWithUnclaimedItems(deps.db)) {
    for (let round = 0; round < 1000; round += 1) {
      const count = await deps.storage.transaction({ name: 'payouts.return-unclaimed' }, async (trx) => {
        const ctx = jobContext(deps, trx, accountId);
        const due = await store.unclaimedItemsDue(trx, accountId, isoMillis(ctx.now), CHUNK_SIZE);
        const senderIds = new Map<string, string | null>();
        for (const item of due) {
          if (!senderIds.has(item.batch_id)) senderIds.set(item.batch_id, (await store.findBatch(trx, accountId, item.batch_id))?.sender_batch_id ?? null);
          await returnUnclaimedItem(ctx, item, senderIds.get(item.batch_id) ?? null, 'expiry');
        }
        return due.length;
      });
      if (count < CHUNK_SIZE) break;
      await yieldToRequests();
    }
  }
}

/** A new account claims the UNCLAIMED items addressed to its e-mail address or id (in its creating transaction). */
export async function claimItemsForNewAccount(deps: ServerDeps, db: Queryable, accountId: string): Promise<void> {
  const account = await db.selectFrom('accounts').select(['id', 'email']).where('id', '=', accountId).executeTakeFirst();
  if (!account) return;
  for (let round = 0; round < 1000; round += 1) {
    const items = await store.unclaimedItemsFor(db, account.email, account.id, CHUNK_SIZE);
    for (const item of items) {
      const sender = jobContext(deps, db, item.account_id);
      const batch = await store.findBatch(db, item.account_id, item.batch_id);
      await claimUnclaimedItem(sender, item, batch?.sender_batch_id ?? null);
    }
    if (items.length < CHUNK_SIZE) break;
  }
}
