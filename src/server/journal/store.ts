// The request journal's rows: batched inserts, retention per merchant (by a count kept beside them),
// filtered pages, deletes.

import { sql } from 'kysely';
import { prepared, type PreparedStatement } from '../db/prepared.js';
import type { Queryable, WithSeq } from '../db/schema.js';

export interface JournalRow {
  /** '' for a request of no merchant (the admin key, no or an unknown token). */
  account_id: string;
  time: string;
  account_time: string;
  method: string;
  path: string;
  query: string;
  /** null: no answer was sent (a dropped connection). */
  status: bigint | null;
  duration_us: bigint;
  request_id: string | null;
  fault_id: string | null;
  /** JSON of JournalDetail. */
  detail: string;
}

declare module '../db/schema.js' {
  interface Database {
    request_journal: WithSeq<JournalRow>;
    request_journal_counts: { account_id: string; entries: bigint };
  }
}

export type StoredEntry = JournalRow & { seq: bigint };

/**
 * Adds a flush's entries, then brings each of their merchants back to its newest `keep` entries.
 * Every write of the journal runs under its exclusive lock (journal/recorder.ts, journal/service.ts),
 * so the count kept beside the entries (`request_journal_counts`) follows them: retention deletes
 * the oldest entries over `keep` by that count, reading only those, never the `keep` before them.
 * A merchant not in `checked` (its first flush in this process) is counted from its entries
 * instead, which mends a count left wrong by entries written around this code (an older payctl
 * still writing after the upgrade). Returns the merchants counted so; the caller adds them to
 * `checked` once the flush has committed.
 */
export async function appendEntries(db: Queryable, rows: readonly JournalRow[], keep: number, checked: ReadonlySet<string>): Promise<string[]> {
  // A few hundred rows a statement stay under both databases' bound-parameter limits.
  for (let start = 0; start < rows.length; start += 200) {
    await db.insertInto('request_journal').values(rows.slice(start, start + 200)).execute();
  }
  const added = new Map<string, bigint>();
  for (const row of rows) added.set(row.account_id, (added.get(row.account_id) ?? 0n) + 1n);
  const counted: string[] = [];
  // No lock order to keep: the journal's exclusive lock already serializes every writer of the counts.
  for (const [accountId, count] of added) {
    let entries: bigint;
    if (checked.has(accountId)) {
      entries = await countOf(countAdd, db, { accountId, count });
    } else {
      entries = await countOf(recount, db, { accountId });
      counted.push(accountId);
    }
    if (entries > BigInt(keep)) await removeOldest(db, accountId, entries - BigInt(keep), keep);
  }
  return counted;
}

const countAdd = prepared<{ accountId: string; count: bigint }, { entries: bigint }>((db, arg) =>
  db
    .insertInto('request_journal_counts')
    .values({ account_id: arg('accountId'), entries: arg('count') })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet((eb) => ({ entries: eb('request_journal_counts.entries', '+', arg('count')) })))
    .returning('entries'),
);

/** The merchant's count set from its entries. */
const recount = prepared<{ accountId: string }, { entries: bigint }>((db, arg) =>
  db
    .insertInto('request_journal_counts')
    .values({
      account_id: arg('accountId'),
      entries: sql<bigint>`(SELECT COUNT(*) FROM request_journal WHERE account_id = ${arg('accountId')})`,
    })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet((eb) => ({ entries: eb.ref('excluded.entries') })))
    .returning('entries'),
);

/** Runs a count upsert; the count after it. */
async function countOf<A extends Record<string, unknown>>(statement: PreparedStatement<A, { entries: bigint }>, db: Queryable, args: A): Promise<bigint> {
  const row = await statement.first(db, args);
  if (row === undefined) throw new Error('request journal: the count upsert returned no row');
  return BigInt(row.entries);
}

/** The merchant's oldest entry to keep when `skip` older ones go: found by reading the `skip` before it. */
const oldestKept = prepared<{ accountId: string; skip: bigint }, { seq: bigint }>((db, arg) =>
  db.selectFrom('request_journal').select('seq').where('account_id', '=', arg('accountId')).orderBy('seq', 'asc').limit(sql.lit(1)).offset(arg('skip')),
);

/** Deletes the merchant's `excess` oldest entries (its count says it has `keep` more), and takes them off its count. */
async function removeOldest(db: Queryable, accountId: string, excess: bigint, keep: number): Promise<void> {
  const boundary = await oldestKept.first(db, { accountId, skip: excess });
  if (boundary === undefined) {
    // Fewer entries than counted: the count was wrong. Count them, then prune by that (exact now).
    const entries = await countOf(recount, db, { accountId });
    if (entries > BigInt(keep)) await removeOldest(db, accountId, entries - BigInt(keep), keep);
    return;
  }
  const result = await db.deleteFrom('request_journal').where('account_id', '=', accountId).where('seq', '<', boundary.seq).executeTakeFirst();
  const deleted = BigInt(result.numDeletedRows);
  await db
    .updateTable('request_journal_counts')
    .set((eb) => ({ entries: eb('entries', '-', deleted) }))
    .where('account_id', '=', accountId)
    .execute();
}

export interface JournalFilter {
  /** undefined: every merchant (the admin key). */
  accountId: string | undefined;
  method?: string;
  /** A path prefix (a '*' pattern is narrowed to its literal prefix here, then matched in full by the service). */
  pathPrefix?: string;
  statusExact?: number;
  statusClass?: number;
  since?: string;
  requestId?: string;
  /** Only entries older than this seq (newest first), or newer than this one (oldest first). */
  beforeSeq?: bigint;
  afterSeq?: bigint;
  limit: number;
}

/** LIKE's own wildcards and its escape character, escaped: the caller's text matches as written. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listEntries(db: Queryable, filter: JournalFilter): Promise<StoredEntry[]> {
  let query = db
    .selectFrom('request_journal')
    .select(['seq', 'account_id', 'time', 'account_time', 'method', 'path', 'query', 'status', 'duration_us', 'request_id', 'fault_id', 'detail']);
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.pathPrefix !== undefined) query = query.where(sql<boolean>`path LIKE ${`${likeLiteral(filter.pathPrefix)}%`} ESCAPE '\\'`);
  if (filter.statusExact !== undefined) query = query.where('status', '=', BigInt(filter.statusExact));
  if (filter.statusClass !== undefined) {
    query = query.where('status', '>=', BigInt(filter.statusClass * 100)).where('status', '<', BigInt(filter.statusClass * 100 + 100));
  }
  if (filter.since !== undefined) query = query.where('time', '>=', filter.since);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
  if (filter.afterSeq !== undefined) query = query.where('seq', '>', filter.afterSeq);
  const oldestFirst = filter.afterSeq !== undefined && filter.beforeSeq === undefined;
  return (await query.orderBy('seq', oldestFirst ? 'asc' : 'desc').limit(filter.limit).execute()) as StoredEntry[];
}

export async function findEntry(db: Queryable, seq: bigint, accountId: string | undefined): Promise<StoredEntry | undefined> {
  let query = db.selectFrom('request_journal').selectAll().where('seq', '=', seq);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.executeTakeFirst()) as StoredEntry | undefined;
}

/** Deletes one merchant's entries, or (undefined) everyone's, with their counts. */
export async function deleteEntries(db: Queryable, accountId: string | undefined): Promise<void> {
  let entries = db.deleteFrom('request_journal');
  let counts = db.deleteFrom('request_journal_counts');
  if (accountId !== undefined) {
    entries = entries.where('account_id', '=', accountId);
    counts = counts.where('account_id', '=', accountId);
  }
  await entries.execute();
  await counts.execute();
}
