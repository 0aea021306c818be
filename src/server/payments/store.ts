// Authorizations, captures and refunds in storage. Every query is scoped by account_id.

import { findRow, findRows, insertRow, rowExists, type ReadOptions, updateRows } from '../db/prepared.js';
import type { Queryable, WithSeq } from '../db/schema.js';

export interface AuthorizationRow {
  id: string;
  account_id: string;
  order_id: string;
  reference_id: string;
  status: string;
  status_reason: string | null;
  currency: string;
  amount_minor: bigint;
  captured_minor: bigint;
  capture_count: bigint;
  invoice_id: string | null;
  custom_id: string | null;
  /** Set on a reauthorization: the authorization it renews. */
  original_id: string | null;
  /** Set on an original authorization once it has been reauthorized. */
  reauthorization_id: string | null;
  expiration_time: string;
  honor_expiration_time: string;
  details: string;
  create_time: string;
  update_time: string;
}

export interface CaptureRow {
  id: string;
  account_id: string;
  order_id: string;
  reference_id: string;
  authorization_id: string | null;
  status: string;
  status_reason: string | null;
  currency: string;
  amount_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  refunded_minor: bigint;
  refunded_fee_minor: bigint;
  refund_count: bigint;
  final_capture: bigint;
  invoice_id: string | null;
  custom_id: string | null;
  details: string;
  create_time: string;
  update_time: string;
}

export interface RefundRow {
  id: string;
  account_id: string;
  capture_id: string;
  status: string;
  currency: string;
  amount_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  invoice_id: string | null;
  custom_id: string | null;
  details: string;
  create_time: string;
  update_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    authorizations: WithSeq<AuthorizationRow>;
    captures: WithSeq<CaptureRow>;
    refunds: WithSeq<RefundRow>;
  }
}

type Changes<Row> = Partial<Omit<Row, 'seq' | 'id' | 'account_id'>>;

// Authorizations

export async function insertAuthorization(db: Queryable, row: AuthorizationRow): Promise<void> {
  await insertRow(db, 'authorizations', row);
}

export function findAuthorization(db: Queryable, accountId: string, id: string, options: ReadOptions = {}): Promise<AuthorizationRow | undefined> {
  return findRow(db, 'authorizations', { account_id: accountId, id }, options);
}

/** Sent unanswered (db/storage.ts `writeUnanswered`): the caller holds the row locked, nothing is read back. */
export async function updateAuthorization(db: Queryable, accountId: string, id: string, changes: Changes<AuthorizationRow>): Promise<void> {
  await updateRows(db, 'authorizations', { account_id: accountId, id }, changes, { unanswered: true });
}

export function authorizationsOfOrder(db: Queryable, accountId: string, orderId: string): Promise<AuthorizationRow[]> {
  return findRows(db, 'authorizations', { account_id: accountId, order_id: orderId }, { orderBy: ['seq'] });
}

/** Authorizations still open whose expiration time has passed on the account's clock. */
export function dueAuthorizations(db: Queryable, accountId: string, nowIso: string, openStatuses: readonly string[]): Promise<AuthorizationRow[]> {
  return db
    .selectFrom('authorizations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('expiration_time', '<=', nowIso)
    .where('status', 'in', [...openStatuses])
    .orderBy('expiration_time')
    .limit(500)
    // Claimed for the transaction that voids them: another server's sweep skips them, and one
    // that voided them first leaves them no longer open when the lock is granted.
    .forUpdate()
    .skipLocked()
    .execute();
}

/** The earliest expiration time among the account's open authorizations, or null. */
export async function earliestOpenExpiry(db: Queryable, accountId: string, openStatuses: readonly string[]): Promise<string | null> {
  const row = await db
    .selectFrom('authorizations')
    .select('expiration_time')
    .where('account_id', '=', accountId)
    .where('status', 'in', [...openStatuses])
    .orderBy('expiration_time')
    .limit(1)
    .executeTakeFirst();
  return row?.expiration_time ?? null;
}

export function authorizationInvoiceUsed(db: Queryable, accountId: string, invoiceId: string): Promise<boolean> {
  return rowExists(db, 'authorizations', { account_id: accountId, invoice_id: invoiceId });
}

// Captures

/** Sent unanswered (db/storage.ts `writeUnanswered`): a new id, nothing to read back. */
export async function insertCapture(db: Queryable, row: CaptureRow): Promise<void> {
  await insertRow(db, 'captures', row, { unanswered: true });
}

export function findCaptureRow(db: Queryable, accountId: string, id: string, options: ReadOptions = {}): Promise<CaptureRow | undefined> {
  return findRow(db, 'captures', { account_id: accountId, id }, options);
}

export async function updateCapture(db: Queryable, accountId: string, id: string, changes: Changes<CaptureRow>): Promise<void> {
  await updateRows(db, 'captures', { account_id: accountId, id }, changes);
}

export function capturesOfOrder(db: Queryable, accountId: string, orderId: string): Promise<CaptureRow[]> {
  return findRows(db, 'captures', { account_id: accountId, order_id: orderId }, { orderBy: ['seq'] });
}

export async function captureInvoiceUsed(db: Queryable, accountId: string, invoiceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('captures')
    .select('id')
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '!=', 'DECLINED')
    .executeTakeFirst();
  return row !== undefined;
}

// Refunds

export async function insertRefund(db: Queryable, row: RefundRow): Promise<void> {
  await insertRow(db, 'refunds', row);
}

export function findRefundRow(db: Queryable, accountId: string, id: string): Promise<RefundRow | undefined> {
  return findRow(db, 'refunds', { account_id: accountId, id });
}

export function refundsOfCaptures(db: Queryable, accountId: string, captureIds: readonly string[]): Promise<RefundRow[]> {
  if (captureIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('capture_id', 'in', [...captureIds])
    .orderBy('seq')
    .execute();
}

export function refundInvoiceUsed(db: Queryable, accountId: string, invoiceId: string): Promise<boolean> {
  return rowExists(db, 'refunds', { account_id: accountId, invoice_id: invoiceId });
}

/** Deletes the account's payments (for POST /_payctl/reset). */
export async function deletePayments(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('refunds').where('account_id', '=', accountId).execute();
  await db.deleteFrom('captures').where('account_id', '=', accountId).execute();
  await db.deleteFrom('authorizations').where('account_id', '=', accountId).execute();
}
