// A per-account, in-memory sparse index of the invoice list (the sort key of every STEP-th invoice,
// newest first) and the account's invoice count, valid while the database has not changed.
// Page N of a large list then seeks from the nearest anchor instead of walking OFFSET index
// entries, and the count costs no walk. An invoice inserted or deleted through the store
// (noteInvoiceRowsChanged), or any commit from another connection (data_version), makes the next
// list request rebuild it; reads inside a transaction never use it. Other writes leave it alone:
// keyed on total_changes(), it was rebuilt (a count of every invoice) after each unrelated write,
// such as the webhook dispatcher moving its cursor, and page p50 went from 4 to 7-9 ms.

import { sql } from 'kysely';
import type { Queryable } from '../db/schema.js';

/** An anchor is the sort key of the invoice at position k * STEP - 1 (0-based), newest first. */
const STEP = 500;

type Key = { createTime: string; id: string };

export interface ListIndex {
  count: number;
  /** Anchors found so far, by k; each is found once per version, by a walk no longer than a page's. */
  anchors: Map<number, Key>;
}

interface Entry extends ListIndex {
  version: string;
}

const indexes = new WeakMap<object, Map<string, Entry>>();
const MAX_ACCOUNTS = 1_000;

/** Invoice rows inserted or deleted in this process (updates keep count and sort keys). */
let rowChanges = 0;

/** Called by the store on every insert or delete of invoice rows, in or out of a transaction. */
export function noteInvoiceRowsChanged(): void {
  rowChanges += 1;
}

async function versionOf(db: Queryable): Promise<string> {
  const row = await sql<{ v: bigint }>`select data_version as v from pragma_data_version`.execute(db).then((result) => result.rows[0]);
  return `${rowChanges}:${String(row?.v)}`;
}

/** The account's list index, or undefined inside a transaction (where nothing may be cached). */
export async function listIndexOf(db: Queryable, accountId: string): Promise<ListIndex | undefined> {
  if ((db as { isTransaction?: boolean }).isTransaction) return undefined;
  let byAccount = indexes.get(db);
  if (!byAccount) indexes.set(db, (byAccount = new Map()));
  const version = await versionOf(db);
  const known = byAccount.get(accountId);
  if (known && known.version === version) return known;
  const counted = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (byAccount.size >= MAX_ACCOUNTS) byAccount.clear();
  const entry: Entry = { count: Number(counted.n), anchors: new Map(), version };
  byAccount.set(accountId, entry);
  return entry;
}

function keysBefore(db: Queryable, accountId: string, after: Key | undefined) {
  let query = db.selectFrom('invoices').select(['create_time', 'id']).where('account_id', '=', accountId);
  if (after) query = query.where((eb) => eb(eb.refTuple('create_time', 'id'), '<', eb.tuple(after.createTime, after.id)));
  return query.orderBy('create_time', 'desc').orderBy('id', 'desc');
}

/**
 * Where a page at `offset` starts reading: after the nearest anchor at or before it, skipping
 * what is left. A missing anchor is found from the nearest known one below it (a walk of the
 * index no longer than the plain OFFSET's) and kept while the database does not change.
 */
export async function seekFrom(db: Queryable, accountId: string, index: ListIndex | undefined, offset: number): Promise<{ after?: Key; offset: number }> {
  if (!index || offset < STEP) return { offset };
  const k = Math.floor(offset / STEP);
  let anchor = index.anchors.get(k);
  if (!anchor) {
    let j = k - 1;
    while (j > 0 && !index.anchors.has(j)) j -= 1;
    const from = j > 0 ? index.anchors.get(j) : undefined;
    const row = await keysBefore(db, accountId, from).limit(1).offset((k - j) * STEP - 1).executeTakeFirst();
    if (!row) return { offset };
    anchor = { createTime: row.create_time, id: row.id };
    // Only if nothing changed while it was read (the index object is replaced on any change).
    if ((await versionOf(db)) === (index as Entry).version) index.anchors.set(k, anchor);
  }
  return { after: anchor, offset: offset - k * STEP };
}
