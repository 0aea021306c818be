// Payout batches and items in storage. Every query names the owning account (or a batch found through it).

import { sql } from 'kysely';
import { findRow, insertRow, updateRows } from '../db/prepared.js';
import type { Queryable } from '../db/schema.js';
import type { BatchStatus, ItemStatus } from './states.js';

export interface BatchRow {
  id: string;
  account_id: string;
  sender_batch_id: string | null;
  status: string;
  item_count: bigint;
  currency: string | null;
  amount_minor: bigint | null;
  sender_batch_header: string;
  time_created: string;
  created_at: string;
  time_completed: string | null;
}

export interface ItemRow {
  id: string;
  batch_id: string;
  account_id: string;
  position: bigint;
  status: string;
  recipient_type: string;
  receiver: string;
  /** How the receiver is matched to an account: lower-cased for e-mail addresses. */
  receiver_key: string;
  currency: string;
  amount_minor: bigint;
  fee_minor: bigint;
  transaction_id: string;
  error_name: string | null;
  time_processed: string | null;
  return_due: string | null;
  detail: string;
}

declare module '../db/schema.js' {
  interface Database {
    payout_batches: BatchRow;
    payout_items: ItemRow;
  }
}

/** SQLite allows 32766 bound values per statement; stay well below it. */
const MAX_BOUND_VALUES = 30_000;
const ITEM_COLUMNS = 16;
export const ITEM_ROWS_PER_INSERT = Math.floor(MAX_BOUND_VALUES / ITEM_COLUMNS);

export async function insertBatch(db: Queryable, batch: BatchRow): Promise<void> {
  await insertRow(db, 'payout_batches', batch);
}

/** Multi-row INSERTs, as many rows per statement as the bound-value limit allows. */
export async function insertItems(db: Queryable, items: readonly ItemRow[]): Promise<void> {
  for (let start = 0; start < items.length; start += ITEM_ROWS_PER_INSERT) {
    await db.insertInto('payout_items').values(items.slice(start, start + ITEM_ROWS_PER_INSERT)).execute();
  }
}

export function findBatch(db: Queryable, accountId: string, id: string): Promise<BatchRow | undefined> {
  return findRow(db, 'payout_batches', { account_id: accountId, id });
}

/** The latest batch of this account with this sender_batch_id created at or after `since`. */
export function findRecentBatchBySenderId(
  db: Queryable,
  accountId: string,
  senderBatchId: string,
  since: string,
): Promise<BatchRow | undefined> {
  return db
    .selectFrom('payout_batches')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('sender_batch_id', '=', senderBatchId)
    .where('created_at', '>=', since)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** Items at positions [from, to) of a batch: an index range, never a scan. */
export function itemsInRange(db: Queryable, batchId: string, from: number, to: number): Promise<ItemRow[]> {
  return db
    .selectFrom('payout_items')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('position', '>=', BigInt(from))
    .where('position', '<', BigInt(to))
    .orderBy('position')
    .execute();
}

export function findItem(db: Queryable, accountId: string, id: string): Promise<ItemRow | undefined> {
  return findRow(db, 'payout_items', { account_id: accountId, id });
}

export function pendingItems(db: Queryable, batchId: string, limit: number): Promise<ItemRow[]> {
  return db
    .selectFrom('payout_items')
    .selectAll()
    .where('batch_id', '=', batchId)
    .where('status', '=', 'PENDING')
    .orderBy('position')
    .limit(limit)
    .execute();
}

/** Moves a batch from one status to another; 0 when it was no longer in `from`. */
export async function moveBatch(
  db: Queryable,
  batch: { accountId: string; id: string },
  from: BatchStatus,
  to: BatchStatus,
  timeCompleted: string | null = null,
): Promise<number> {
  const key = { account_id: batch.accountId, id: batch.id, status: from };
  return Number(await updateRows(db, 'payout_batches', key, { status: to, ...(timeCompleted ? { time_completed: timeCompleted } : {}) }));
}

export interface Settlement {
  status: ItemStatus;
  errorName: string | null;
  timeProcessed: string;
  returnDue: string | null;
}

/** Settles PENDING items of one batch with one outcome; returns how many moved. */
export async function settleItems(db: Queryable, batchId: string, ids: readonly string[], settlement: Settlement): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('payout_items')
    .set({
      status: settlement.status,
      error_name: settlement.errorName,
      time_processed: settlement.timeProcessed,
      return_due: settlement.returnDue,
    })
    .where('batch_id', '=', batchId)
    .where('id', 'in', ids)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Moves one item from `from` to `to`; 0 when it was no longer in `from`. */
export async function moveItem(
  db: Queryable,
  item: { accountId: string; id: string },
  from: ItemStatus,
  to: ItemStatus,
  fields: { timeProcessed: string; errorName: string | null },
): Promise<number> {
  const key = { account_id: item.accountId, id: item.id, status: from };
  return Number(await updateRows(db, 'payout_items', key, { status: to, time_processed: fields.timeProcessed, error_name: fields.errorName, return_due: null }));
}

export interface CurrencyTotals {
  currency: string;
  amount: bigint;
  fees: bigint;
}

/** Per currency: what the items of a batch ask for, and the fees of those in `feeStatuses`. */
export async function batchTotals(db: Queryable, batchId: string, feeStatuses: readonly ItemStatus[]): Promise<CurrencyTotals[]> {
  const charged = feeStatuses.length > 0 ? feeStatuses : ['-'];
  const rows = await db
    .selectFrom('payout_items')
    .select([
      'currency',
      (eb) => eb.fn.sum<bigint>('amount_minor').as('amount'),
      sql<bigint>`sum(case when status in (${sql.join(charged)}) then fee_minor else 0 end)`.as('fees'),
    ])
    .where('batch_id', '=', batchId)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((row) => ({ currency: row.currency, amount: BigInt(row.amount), fees: BigInt(row.fees) }));
}

/** Per currency: amount plus fee of every item still waiting in a batch that is being paid out. */
export async function reservedCost(db: Queryable, accountId: string): Promise<Map<string, bigint>> {
  const rows = await db
    .selectFrom('payout_items')
    .innerJoin('payout_batches', 'payout_batches.id', 'payout_items.batch_id')
    .select(['payout_items.currency as currency', sql<bigint>`sum(payout_items.amount_minor + payout_items.fee_minor)`.as('cost')])
    .where('payout_batches.account_id', '=', accountId)
    .where('payout_batches.status', '=', 'PROCESSING')
    .where('payout_items.status', '=', 'PENDING')
    .groupBy('payout_items.currency')
    .execute();
  return new Map(rows.map((row) => [row.currency, BigInt(row.cost)]));
}

/** Per currency: amount plus fee of every item of a batch (what paying it all would cost at most). */
export async function batchCost(db: Queryable, batchId: string): Promise<Map<string, bigint>> {
  const rows = await db
    .selectFrom('payout_items')
    .select(['currency', sql<bigint>`sum(amount_minor + fee_minor)`.as('cost')])
    .where('batch_id', '=', batchId)
    .groupBy('currency')
    .execute();
  return new Map(rows.map((row) => [row.currency, BigInt(row.cost)]));
}

/** Accounts with a batch waiting or being processed. */
export async function accountsWithOpenBatches(db: Queryable): Promise<string[]> {
  const rows = await db
    .selectFrom('payout_batches')
    .select('account_id')
    .distinct()
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .execute();
  return rows.map((row) => row.account_id);
}

export function openBatches(db: Queryable, accountId: string): Promise<BatchRow[]> {
  return db
    .selectFrom('payout_batches')
    .selectAll()
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Accounts with an UNCLAIMED item (whose 30 days may have run out on their own clock). */
export async function accountsWithUnclaimedItems(db: Queryable): Promise<string[]> {
  const rows = await db
    .selectFrom('payout_items')
    .select('account_id')
    .distinct()
    .where('status', '=', 'UNCLAIMED')
    .execute();
  return rows.map((row) => row.account_id);
}

export function unclaimedItemsDue(db: Queryable, accountId: string, now: string, limit: number): Promise<ItemRow[]> {
  return db
    .selectFrom('payout_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'UNCLAIMED')
    .where('return_due', '<=', now)
    .orderBy('return_due')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** UNCLAIMED items, of any sender, whose receiver is this e-mail address or account id. */
export function unclaimedItemsFor(db: Queryable, email: string, accountId: string, limit: number): Promise<ItemRow[]> {
  return db
    .selectFrom('payout_items')
    .selectAll()
    .where('status', '=', 'UNCLAIMED')
    .where((eb) =>
      eb.or([
        eb.and([eb('receiver_key', '=', email.toLowerCase()), eb('recipient_type', '=', 'EMAIL')]),
        eb.and([eb('receiver_key', '=', accountId), eb('recipient_type', '=', 'PAYPAL_ID')]),
      ]),
    )
    .limit(limit)
    .execute();
}

export interface ReceiverAccount {
  id: string;
  email: string;
}

/** The accounts that own any of these e-mail addresses (compared case-insensitively) or ids. */
export async function receiverAccounts(db: Queryable, emails: readonly string[], ids: readonly string[]): Promise<ReceiverAccount[]> {
  if (emails.length === 0 && ids.length === 0) return [];
  const lowered = emails.map((email) => email.toLowerCase());
  return db
    .selectFrom('accounts')
    .select(['id', 'email'])
    .where((eb) =>
      eb.or([
        ...(lowered.length > 0 ? [eb(sql<string>`lower(email)`, 'in', lowered)] : []),
        ...(ids.length > 0 ? [eb('id', 'in', [...ids])] : []),
      ]),
    )
    .execute();
}

export async function deletePayouts(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('payout_items').where('account_id', '=', accountId).execute();
  await db.deleteFrom('payout_batches').where('account_id', '=', accountId).execute();
}
