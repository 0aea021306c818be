// The request journal's rows: batched inserts, retention per merchant (by a count kept beside them),
// filtered pages, deletes.

import { sql } from 'kysely';
import { prepared } from '../db/prepared.js';
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
 * so the count kept beside the entries (`request_journal_counts`) is theirs exactly: retention
 * deletes the oldest entries over `keep` by that count, reading only those, never the `keep` before them.
 */
export async function appendEntries(db: Queryable, rows: readonly JournalRow[], keep: number): Promise<void> {
  // A few hundred rows a statement stay under both databases' bound-parameter limits.
  for (let start = 0; start < rows.length; start += 200) {
    await db.insertInto('request_journal').values(rows.slice(start, start + 200)).execute();
  }
  const added = new Map<string, bigint>();
  for (const row of rows) added.set(row.account_id, (added.get(row.account_id) ?? 0n) + 1n);
  for (const [accountId, count] of [...added].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const entries = await countEntries(db, accountId, count);
    if (entries > BigInt(keep)) await removeOldest(db, accountId, entries - BigInt(keep));
  }
}

const countUpsert = prepared<{ accountId: string; count: bigint }, { entries: bigint }>((db, arg) =>
  db
    .insertInto('request_journal_counts')
    .values({ account_id: arg('accountId'), entries: arg('count') })
    .onConflict((conflict) => conflict.column('account_id').doUpdateSet((eb) => ({ entries: eb('request_journal_counts.entries', '+', arg('count')) })))
    .returning('entries'),
);

/** Adds `count` to the merchant's count of entries; the count after it. */
async function countEntries(db: Queryable, accountId: string, count: bigint): Promise<bigint> {
  const row = await countUpsert.first(db, { accountId, count });
  return BigInt(row?.entries ?? count);
}

/** Deletes the merchant's `excess` oldest entries, and takes what was deleted off its count. */
async function removeOldest(db: Queryable, accountId: string, excess: bigint): Promise<void> {
  const result = await db
    .deleteFrom('request_journal')
    .where('seq', 'in', (eb) => eb.selectFrom('request_journal').select('seq').where('account_id', '=', accountId).orderBy('seq', 'asc').limit(Number(excess)))
    .executeTakeFirst();
  const deleted = BigInt(result.numDeletedRows);
  // Fewer rows than counted: the count had drifted (entries written around this code); count again.
  const entries =
    deleted < excess
      ? db.selectFrom('request_journal').select((eb) => eb.fn.countAll<bigint>().as('n')).where('account_id', '=', accountId)
      : undefined;
  await db
    .updateTable('request_journal_counts')
    .set((eb) => ({ entries: entries === undefined ? eb('entries', '-', deleted) : entries }))
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
