// Fault rules' rows: per merchant, counted by one conditional statement so every replica agrees.

import type { Queryable, WithSeq } from '../db/schema.js';

export interface FaultRuleRow {
  id: string;
  account_id: string;
  method: string;
  path: string;
  after_calls: bigint;
  /** null: every matching call after the first `after_calls`. */
  times: bigint | null;
  /** JSON of the rule's `respond`. */
  respond: string;
  matched: bigint;
  fired: bigint;
  create_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    fault_rules: WithSeq<FaultRuleRow>;
  }
}

export type StoredRule = FaultRuleRow & { seq: bigint };

export async function insertRule(db: Queryable, row: Omit<FaultRuleRow, 'matched' | 'fired'>): Promise<void> {
  await db.insertInto('fault_rules').values({ ...row, matched: 0n, fired: 0n }).execute();
}

export async function listRules(db: Queryable, accountId: string | undefined): Promise<StoredRule[]> {
  let query = db.selectFrom('fault_rules').selectAll();
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.orderBy('seq', 'asc').execute()) as StoredRule[];
}

export async function findRule(db: Queryable, id: string, accountId: string | undefined): Promise<StoredRule | undefined> {
  let query = db.selectFrom('fault_rules').selectAll().where('id', '=', id);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.executeTakeFirst()) as StoredRule | undefined;
}

/**
 * Deletes one rule, of the merchant's unless `accountId` is undefined (the admin key); the account
 * the deleted rule belonged to, undefined when there was none.
 */
export async function deleteRule(db: Queryable, id: string, accountId: string | undefined): Promise<string | undefined> {
  let query = db.deleteFrom('fault_rules').where('id', '=', id);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.returning('account_id').executeTakeFirst())?.account_id;
}

/** Deletes the merchant's rules (every merchant's when `accountId` is undefined); the account of each rule deleted. */
export async function deleteRules(db: Queryable, accountId: string | undefined): Promise<string[]> {
  let query = db.deleteFrom('fault_rules');
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.returning('account_id').execute()).map((row) => row.account_id);
}

/**
 * Counts one call against each of these rules, atomically (a row lock on PostgreSQL, the write lock
 * on SQLite): the returned `matched` is this call's number for that rule, whoever else counts at once.
 */
export async function countMatches(db: Queryable, accountId: string, ids: readonly string[]): Promise<Array<Pick<StoredRule, 'seq' | 'id' | 'matched' | 'after_calls' | 'times' | 'respond'>>> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('fault_rules')
    .set((eb) => ({ matched: eb('matched', '+', 1n) }))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .returning(['seq', 'id', 'matched', 'after_calls', 'times', 'respond'])
    .execute();
  return rows.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
}

export async function countFired(db: Queryable, id: string): Promise<void> {
  await db
    .updateTable('fault_rules')
    .set((eb) => ({ fired: eb('fired', '+', 1n) }))
    .where('id', '=', id)
    .execute();
}
