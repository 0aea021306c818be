// Reading the request journal: filtered pages newest first, or (after=) what came since, oldest first.

import type { ServerDeps } from '../core/deps.js';
import { notFound, serviceError } from '../http/errors.js';
import { pathMatches } from '../http/path-pattern.js';
import type { RequestJournal } from './recorder.js';
import * as store from './store.js';
import type { JournalDetail, JournalPage, UnreadableDetail } from './types.js';

export interface JournalEntry {
  id: string;
  time: string;
  account_time: string;
  account_id: string | null;
  method: string;
  path: string;
  query: string;
  status: number | null;
  duration_ms: number;
  request_id: string | null;
  fault_id: string | null;
}

export interface JournalQuery {
  method?: string;
  path?: string;
  status?: string;
  since?: string;
  requestId?: string;
  pageSize: number;
  before?: string;
  after?: string;
  /** Admin only: one merchant's entries. */
  accountId?: string;
}

const ENTRY_ID = /^req_([1-9][0-9]{0,17})$/;

export const entryId = (seq: bigint): string => `req_${seq}`;

export function seqOf(id: string, field: string): bigint {
  const match = ENTRY_ID.exec(id);
  if (!match?.[1]) throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', 'A request id of the journal looks like req_123.', { field, value: id, location: field === 'id' ? 'path' : 'query' });
  return BigInt(match[1]);
}

function entryOf(row: store.StoredEntry): JournalEntry {
  return {
    id: entryId(row.seq),
    time: row.time,
    account_time: row.account_time,
    account_id: row.account_id === '' ? null : row.account_id,
    method: row.method,
    path: row.path,
    query: row.query,
    status: row.status === null ? null : Number(row.status),
    duration_ms: Math.round(Number(row.duration_us) / 10) / 100,
    request_id: row.request_id,
    fault_id: row.fault_id,
  };
}

/** The SQL side of a path filter (a prefix, or a pattern's literal start) and the exact test in code. */
function pathFilter(path: string | undefined): { prefix?: string; test?: (path: string) => boolean } {
  if (path === undefined) return {};
  const star = path.indexOf('*');
  if (star === -1) return { prefix: path, test: (candidate) => candidate.startsWith(path) };
  return { prefix: path.slice(0, star), test: (candidate) => pathMatches(path, candidate) };
}

function statusFilter(status: string | undefined): { statusExact?: number; statusClass?: number } {
  if (status === undefined) return {};
  const match = /^([1-5])(?:xx|XX|([0-9]{2}))$/.exec(status);
  if (!match?.[1]) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'status is an HTTP status (404) or a class (4xx).', { field: 'status', value: status, location: 'query' });
  }
  return match[2] === undefined ? { statusClass: Number(match[1]) } : { statusExact: Number(status) };
}

/**
 * A page of the journal. Rows are read in chunks until the page is full, since a `*` path pattern
 * is checked here (one segment each) after the database narrowed by its literal start.
 */
export async function listEntries(deps: ServerDeps, journal: RequestJournal | undefined, scope: string | undefined, query: JournalQuery): Promise<JournalPage> {
  await journal?.flush();
  const path = pathFilter(query.path);
  const oldestFirst = query.after !== undefined && query.before === undefined;
  let beforeSeq = query.before === undefined ? undefined : seqOf(query.before, 'before');
  let afterSeq = query.after === undefined ? undefined : seqOf(query.after, 'after');
  const base = {
    accountId: scope ?? query.accountId,
    ...(query.method !== undefined ? { method: query.method.toUpperCase() } : {}),
    ...(path.prefix !== undefined ? { pathPrefix: path.prefix } : {}),
    ...statusFilter(query.status),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.requestId !== undefined ? { requestId: query.requestId } : {}),
  };
  const items: JournalEntry[] = [];
  let more = false;
  for (;;) {
    const chunk = query.pageSize + 1;
    const rows = await store.listEntries(deps.db, {
      ...base,
      ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      ...(afterSeq !== undefined ? { afterSeq } : {}),
      limit: chunk,
    });
    for (const row of rows) {
      if (path.test !== undefined && !path.test(row.path)) continue;
      if (items.length === query.pageSize) {
        more = true;
        break;
      }
      items.push(entryOf(row));
    }
    const last = rows.at(-1);
    if (more || rows.length < chunk || last === undefined) break;
    if (oldestFirst) afterSeq = last.seq;
    else beforeSeq = last.seq;
  }
  const lastItem = items.at(-1);
  return { items, next_before: !oldestFirst && more && lastItem !== undefined ? lastItem.id : null };
}

/** The stored detail; a body that was not the JSON its type said leaves the detail unreadable, which is said. */
function detailOf(text: string): JournalDetail | UnreadableDetail {
  try {
    return JSON.parse(text) as JournalDetail;
  } catch {
    return { detail_unreadable: true };
  }
}

export async function getEntry(deps: ServerDeps, journal: RequestJournal | undefined, scope: string | undefined, id: string): Promise<JournalEntry & (JournalDetail | UnreadableDetail)> {
  const seq = seqOf(id, 'id');
  await journal?.flush();
  const row = await store.findEntry(deps.db, seq, scope);
  if (row === undefined) throw notFound('request', id);
  return { ...entryOf(row), ...detailOf(row.detail) };
}

export async function clearEntries(deps: ServerDeps, journal: RequestJournal | undefined, scope: string | undefined): Promise<void> {
  await journal?.flush();
  await deps.storage.transaction({ name: 'journal.clear', exclusive: 'request-journal' }, (trx) => store.deleteEntries(trx, scope));
}
