// Reads of the ledger's balance movements for the reports: every query scoped by account, ranges of
// time through the (account, time, seq) index, the balance at a time through (account, currency,
// time, seq).

import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database, Queryable } from '../db/schema.js';
import type { MovementRow } from '../ledger/store.js';
import { EVENT_CODE_KINDS } from './event-codes.js';
import type { SearchQuery } from './schema.js';

export interface ReportRow extends MovementRow {
  seq: bigint;
  /** 'V' for a capture whose refunds and reversals gave back its whole gross, else 'S'. */
  status: string;
}

/**
 * A capture is reversed (V) once the gross of its refunds and dispute reversals (less any
 * reinstatement) takes back all of its own; every other movement is a completed one (S). Pending or
 * denied transactions move no balance, so they have no movement here.
 */
const STATUS = sql<string>`CASE WHEN m.kind = 'CAPTURE' AND m.gross_minor + COALESCE((
    SELECT SUM(r.gross_minor) FROM balance_movements r
    WHERE r.account_id = m.account_id AND r.related_id = m.reference_id AND r.kind IN ('REFUND', 'REVERSAL')), 0) <= 0
  THEN 'V' ELSE 'S' END`;

type Movements = SelectQueryBuilder<Database & { m: Database['balance_movements'] }, 'm', object>;

function filtered(db: Queryable, accountId: string, query: SearchQuery): Movements {
  let builder = db
    .selectFrom('balance_movements as m')
    .where('m.account_id', '=', accountId)
    .where('m.create_time', '>=', query.start)
    .where('m.create_time', '<', query.end) as Movements;
  if (query.transactionId !== undefined) builder = builder.where('m.reference_id', '=', query.transactionId);
  if (query.currency !== undefined) builder = builder.where('m.currency', '=', query.currency);
  if (query.amount !== undefined) builder = builder.where('m.gross_minor', '>=', query.amount.from).where('m.gross_minor', '<=', query.amount.to);
  if (query.eventCode !== undefined) {
    const match = EVENT_CODE_KINDS[query.eventCode];
    builder = builder.where('m.kind', '=', match.kind);
    if (match.sign !== undefined) builder = builder.where('m.amount_minor', match.sign > 0 ? '>' : '<', 0n);
  }
  // Cards are the only instruments told apart, and the sandbox's are credit cards.
  if (query.instrument !== undefined) builder = builder.where('m.instrument', '=', query.instrument === 'CREDITCARD' ? 'CARD' : 'DEBIT_CARD');
  if (query.status !== undefined) builder = builder.where(STATUS, '=', query.status);
  return builder;
}

export async function countMovements(db: Queryable, accountId: string, query: SearchQuery): Promise<number> {
  const row = await filtered(db, accountId, query).select((eb) => eb.fn.countAll<bigint>().as('count')).executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function pageOfMovements(db: Queryable, accountId: string, query: SearchQuery): Promise<ReportRow[]> {
  const rows = await filtered(db, accountId, query)
    .selectAll('m')
    .select(STATUS.as('status'))
    .orderBy('m.create_time')
    .orderBy('m.seq')
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
    .execute();
  return rows as ReportRow[];
}

/** The currencies the account has a balance in. */
export async function balanceCurrencies(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('balances').select('currency').where('account_id', '=', accountId).orderBy('currency').execute();
  return rows.map((row) => row.currency);
}

/** The balance right after the last movement at or before `time` (undefined: none by then). */
export async function balanceAt(db: Queryable, accountId: string, currency: string, time: string): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('balance_movements')
    .select('balance_after')
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('create_time', '<=', time)
    .orderBy('create_time', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : BigInt(row.balance_after);
}
