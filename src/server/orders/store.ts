// Checkout orders in storage. Queries are scoped by account_id, except the payer's approval page,
// which finds an order by its (unguessable) id as the real approve link does.

import { findRow, findRows, insertRow, type ReadOptions, updateRows } from '../db/prepared.js';
import type { Queryable, WithSeq } from '../db/schema.js';

export interface OrderRow {
  id: string;
  account_id: string;
  intent: string;
  status: string;
  currency: string;
  amount_minor: bigint;
  details: string;
  create_time: string;
  update_time: string;
}

/** A shipment's tracking information on a capture of the order; the nested rest is JSON. */
export interface TrackerRow {
  id: string;
  account_id: string;
  order_id: string;
  capture_id: string;
  status: string;
  details: string;
  create_time: string;
  update_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    orders: WithSeq<OrderRow>;
    order_trackers: TrackerRow;
  }
}

export async function insertOrder(db: Queryable, row: OrderRow): Promise<void> {
  await insertRow(db, 'orders', row);
}

/** The order; every change of an order loads it `forUpdate`, locked until the transaction ends. */
export function findOrder(db: Queryable, accountId: string, id: string, options: ReadOptions = {}): Promise<OrderRow | undefined> {
  return findRow(db, 'orders', { account_id: accountId, id }, options);
}

/** Only for the payer's approval page, which has no merchant credentials. */
export function findOrderForPayer(db: Queryable, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateOrder(
  db: Queryable,
  accountId: string,
  id: string,
  changes: Partial<Pick<OrderRow, 'status' | 'details' | 'update_time' | 'intent' | 'currency' | 'amount_minor'>>,
): Promise<void> {
  await updateRows(db, 'orders', { account_id: accountId, id }, changes);
}

export async function deleteOrders(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('order_trackers').where('account_id', '=', accountId).execute();
  await db.deleteFrom('orders').where('account_id', '=', accountId).execute();
}

// ---- trackers

export async function insertTracker(db: Queryable, row: TrackerRow): Promise<void> {
  await insertRow(db, 'order_trackers', row);
}

export function findTracker(db: Queryable, accountId: string, orderId: string, id: string): Promise<TrackerRow | undefined> {
  return findRow(db, 'order_trackers', { account_id: accountId, order_id: orderId, id });
}

export function trackersOfOrder(db: Queryable, accountId: string, orderId: string): Promise<TrackerRow[]> {
  return findRows(db, 'order_trackers', { account_id: accountId, order_id: orderId }, { orderBy: ['create_time', 'id'] });
}

export async function updateTracker(
  db: Queryable,
  accountId: string,
  id: string,
  changes: Partial<Pick<TrackerRow, 'status' | 'details' | 'update_time' | 'create_time'>>,
): Promise<void> {
  await updateRows(db, 'order_trackers', { account_id: accountId, id }, changes);
}
