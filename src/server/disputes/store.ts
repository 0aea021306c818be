// Disputes and their documents in storage. Every query is scoped by account_id.

import { newestFirstPage, whereGiven } from '../db/list-query.js';
import { findRow, insertRow, type ReadOptions, updateRows } from '../db/prepared.js';
import type { Queryable } from '../db/schema.js';

export interface DisputeRow {
  id: string;
  account_id: string;
  capture_id: string;
  reason: string;
  status: string;
  stage: string;
  dispute_state: string;
  currency: string;
  amount_minor: bigint;
  outcome: string | null;
  seller_due: string | null;
  buyer_due: string | null;
  /** The earliest deadline the scheduler must act on (seller, buyer or appeal), or null. */
  deadline_at: string | null;
  create_time: string;
  update_time: string;
  /** JSON: the nested rest of the dispute (messages, evidences, offer, outcome...). */
  details: string;
}

export interface DocumentRow {
  id: string;
  account_id: string;
  dispute_id: string;
  name: string;
  content_type: string;
  size_bytes: bigint;
  sha256: string;
  content: Uint8Array;
  create_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    disputes: DisputeRow;
    dispute_documents: DocumentRow;
  }
}

export type DisputeChanges = Partial<Omit<DisputeRow, 'id' | 'account_id' | 'capture_id' | 'create_time'>>;

export async function insertDispute(db: Queryable, row: DisputeRow): Promise<void> {
  await insertRow(db, 'disputes', row);
}

/** The dispute; every change of a dispute loads it `forUpdate`, locked until the transaction ends. */
export function findDispute(db: Queryable, accountId: string, id: string, options: ReadOptions = {}): Promise<DisputeRow | undefined> {
  return findRow(db, 'disputes', { account_id: accountId, id }, options);
}

export async function updateDispute(db: Queryable, accountId: string, id: string, changes: DisputeChanges): Promise<void> {
  await updateRows(db, 'disputes', { account_id: accountId, id }, changes);
}

/** An unresolved dispute on the capture, if one exists. */
export function findOpenDisputeForCapture(db: Queryable, accountId: string, captureId: string): Promise<DisputeRow | undefined> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('capture_id', '=', captureId)
    .where('status', '!=', 'RESOLVED')
    .executeTakeFirst();
}

export interface ListFilter {
  captureId?: string;
  /** create_time at or after (isoMillis). */
  startTime?: string;
  states?: readonly string[];
  /** Keyset: rows strictly older than this (create_time, id). */
  after?: { createTime: string; id: string };
  limit: number;
}

/** Newest first, by (create_time, id), one page at a time without offsets. */
export function listDisputes(db: Queryable, accountId: string, filter: ListFilter): Promise<DisputeRow[]> {
  let query = whereGiven(db.selectFrom('disputes').selectAll().where('account_id', '=', accountId), { capture_id: filter.captureId });
  if (filter.startTime !== undefined) query = query.where('create_time', '>=', filter.startTime);
  if (filter.states && filter.states.length > 0) query = query.where('dispute_state', 'in', [...filter.states]);
  const end = filter.after && { createTime: filter.after.createTime, tie: filter.after.id };
  return newestFirstPage(query, 'id', end, filter.limit).execute();
}

/** Ids of the account's disputes with a deadline at or before `now`. */
export async function disputesDue(db: Queryable, accountId: string, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('disputes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('deadline_at', 'is not', null)
    .where('deadline_at', '<=', now)
    .orderBy('deadline_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Whether the capture has an unresolved dispute (payments refuses partial refunds then). */
export async function captureIsDisputed(db: Queryable, accountId: string, captureId: string): Promise<boolean> {
  return (await findOpenDisputeForCapture(db, accountId, captureId)) !== undefined;
}

export async function insertDocument(db: Queryable, row: DocumentRow): Promise<void> {
  await insertRow(db, 'dispute_documents', row);
}

export function findDocument(db: Queryable, accountId: string, disputeId: string, id: string): Promise<DocumentRow | undefined> {
  return findRow(db, 'dispute_documents', { account_id: accountId, dispute_id: disputeId, id });
}

export async function deleteAccountDisputes(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('dispute_documents').where('account_id', '=', accountId).execute();
  await db.deleteFrom('disputes').where('account_id', '=', accountId).execute();
}
