// The request journal's rows: batched inserts, retention per merchant, filtered pages, deletes.

import { sql } from 'kysely';
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
  }
}

export type StoredEntry = JournalRow & { seq: bigint };

export async function insertEntries(db: Queryable, rows: readonly JournalRow[]): Promise<void> {
  // A few hundred rows a statement stay under both databases' bound-parameter limits.
  for (let start = 0; start < rows.length; start += 200) {
    await db.insertInto('request_journal').values(rows.slice(start, start + 200)).execute();
  }
}

/** Deletes all but the newest `keep` entries of one merchant. */
export async function pruneAccount(db: Queryable, accountId: string, keep: number): Promise<void> {
  const boundary = await db
    .selectFrom('request_journal')
    .select('seq')
    .where('account_id', '=', accountId)
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (boundary === undefined) return;
  await db.deleteFrom('request_journal').where('account_id', '=', accountId).where('seq', '<=', boundary.seq).execute();
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

/** Deletes one merchant's entries, or (undefined) everyone's. */
export async function deleteEntries(db: Queryable, accountId: string | undefined): Promise<void> {
  let query = db.deleteFrom('request_journal');
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  await query.execute();
}
