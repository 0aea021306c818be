// Reads of the ledger's balance movements for the reports: every query scoped by account, ranges of
// time and the balance at a time through the (account, time, seq) index.

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

/** A stretch of the window, in time order: where it starts and how many movements it holds. */
export interface Stretch {
  from: string;
  count: number;
}

export interface WindowCount {
  total: number;
  /** For a search by dates alone: the window as its partial first day, its whole days, its partial last day. */
  stretches?: Stretch[];
}

const midnight = (day: string) => `${day}T00:00:00.000Z`;
const nextDay = (day: string) => new Date(Date.parse(midnight(day)) + 86_400_000).toISOString().slice(0, 10);

async function countRange(db: Queryable, accountId: string, query: SearchQuery, from: string, to: string): Promise<number> {
  const row = await filtered(db, accountId, { ...query, start: from, end: to })
    .select((eb) => eb.fn.countAll<bigint>().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * How many movements the search finds. By dates alone, a whole day is counted from its row in
 * balance_movement_days (the ledger keeps them with the movements), so a 31-day window reads ~31
 * rows and at most two partial days of movements, not tens of thousands.
 */
export async function countMovements(db: Queryable, accountId: string, query: SearchQuery): Promise<WindowCount> {
  const firstWholeDay = query.start.endsWith('T00:00:00.000Z') ? query.start.slice(0, 10) : nextDay(query.start.slice(0, 10));
  const lastDay = query.end.slice(0, 10);
  if (query.filtered || firstWholeDay >= lastDay) return { total: await countRange(db, accountId, query, query.start, query.end) };
  // One statement (one round trip on PostgreSQL): the partial first day (part 0), the whole days
  // (part 1), the partial last day (part 2); put in that order here.
  const partial = (part: number, from: string, to: string) =>
    db
      .selectFrom('balance_movements as m')
      .select([sql<number>`${sql.lit(part)}`.as('part'), sql<string>`${sql.lit('')}`.as('day'), (eb) => eb.fn.countAll<bigint>().as('movements')])
      .where('m.account_id', '=', accountId)
      .where('m.create_time', '>=', from)
      .where('m.create_time', '<', to);
  const wholeDays = db
    .selectFrom('balance_movement_days')
    .select([sql<number>`${sql.lit(1)}`.as('part'), 'day', 'movements'])
    .where('account_id', '=', accountId)
    .where('day', '>=', firstWholeDay)
    .where('day', '<', lastDay);
  const rows = (await partial(0, query.start, midnight(firstWholeDay)).unionAll(wholeDays).unionAll(partial(2, midnight(lastDay), query.end)).execute()).sort(
    (a, b) => Number(a.part) - Number(b.part) || (a.day < b.day ? -1 : a.day > b.day ? 1 : 0),
  );
  const head = Number(rows[0]?.movements ?? 0);
  const tail = Number(rows.at(-1)?.movements ?? 0);
  const days = rows.slice(1, -1);
  const stretches = [
    { from: query.start, count: head },
    ...days.map((row) => ({ from: midnight(row.day), count: Number(row.movements) })),
    { from: midnight(lastDay), count: tail },
  ];
  return { total: stretches.reduce((sum, stretch) => sum + stretch.count, 0), stretches };
}

/** Where a page starts: the stretch its first row is in, and how many of that stretch's rows to skip. */
function pageStart(query: SearchQuery, stretches: readonly Stretch[] | undefined): { from: string; offset: number } {
  let offset = (query.page - 1) * query.pageSize;
  for (const stretch of stretches ?? []) {
    if (offset < stretch.count) return { from: stretch.from, offset };
    offset -= stretch.count;
  }
  return { from: query.start, offset: (query.page - 1) * query.pageSize };
}

/**
 * One page, oldest first. The page's rows are picked by their keys alone (the index holds the time
 * and seq: the skipped rows cost an index step each, no table read, no status), then read in full.
 * With stretches, the skipping starts at the day the page starts in.
 */
export async function pageOfMovements(db: Queryable, accountId: string, query: SearchQuery, stretches?: readonly Stretch[]): Promise<ReportRow[]> {
  const { from, offset } = pageStart(query, stretches);
  const page = filtered(db, accountId, { ...query, start: from })
    .select('m.seq')
    .orderBy('m.create_time')
    .orderBy('m.seq')
    .limit(query.pageSize)
    .offset(offset);
  const rows = await db
    .selectFrom(page.as('p'))
    .innerJoin('balance_movements as m', 'm.seq', 'p.seq')
    .selectAll('m')
    .select(STATUS.as('status'))
    .where('m.account_id', '=', accountId)
    .execute();
  // Sorted here: an ORDER BY would lead SQLite to walk the account's whole time index instead of
  // looking up the page's hundred keys.
  return (rows as ReportRow[]).sort((a, b) => (a.create_time < b.create_time ? -1 : a.create_time > b.create_time ? 1 : Number(BigInt(a.seq) - BigInt(b.seq))));
}

/** The currencies the account has a balance in. */
export async function balanceCurrencies(db: Queryable, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('balances').select('currency').where('account_id', '=', accountId).orderBy('currency').execute();
  return rows.map((row) => row.currency);
}

/**
 * The balance right after the last movement at or before `time` (undefined: none by then): read
 * backwards along the account's time index to the first movement in this currency.
 */
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
