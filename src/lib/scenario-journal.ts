// The request journal as the CLI shows it: one line a request, and the follow loop behind --follow.

import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiClient } from './api/client.js';
import { listJournal, type JournalEntry, type JournalQuery } from './api/sandbox.js';
import { parseDuration } from './duration.js';
import type { Column } from './render/table.js';

/** The columns of `payctl sandbox requests`, in the table and in TSV. */
export const JOURNAL_COLUMNS: readonly Column<JournalEntry>[] = [
  { header: 'Time', value: (entry) => entry.time },
  { header: 'Method', value: (entry) => entry.method },
  { header: 'Path', value: (entry) => pathWithQuery(entry) },
  { header: 'Status', value: (entry) => (entry.status === null || entry.status === undefined ? '' : String(entry.status)) },
  { header: 'Duration', value: (entry) => (entry.duration_ms === null || entry.duration_ms === undefined ? '' : `${entry.duration_ms} ms`) },
  { header: 'Request id', value: (entry) => entry.request_id ?? '' },
  { header: 'Fault', value: (entry) => entry.fault_id ?? '' },
  { header: 'ID', value: (entry) => entry.id },
];

export function pathWithQuery(entry: JournalEntry): string {
  const query = entry.query;
  if (typeof query === 'string') return query ? `${entry.path}?${query.replace(/^\?/, '')}` : entry.path;
  if (query && typeof query === 'object') {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
      for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
    }
    const text = params.toString();
    return text ? `${entry.path}?${text}` : entry.path;
  }
  return entry.path;
}

/** `--since`: an RFC 3339 time as given, or a duration back from now (10m, 2h, 1d). */
export function sinceTime(text: string, now: Date = new Date()): string {
  if (/^\d+[dhms]/i.test(text.trim()) && !/^\d{4}-/.test(text.trim())) {
    return new Date(now.getTime() - parseDuration(text) * 1000).toISOString();
  }
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new Error(`--since "${text}" is neither a time (2026-01-31T12:00:00Z) nor a duration (10m, 2h, 1d)`);
  return new Date(time).toISOString();
}

/** What --status takes: a code (404) or a class (4xx). */
export function checkStatusFilter(text: string): string {
  if (!/^[1-5](\d\d|xx)$/i.test(text)) throw new Error(`--status "${text}": give a code (404) or a class (4xx, 5xx)`);
  return text.toLowerCase();
}

export const FOLLOW_INTERVAL_MS = 400;

/**
 * Calls `print` with each new entry, oldest first, until `stopped` settles: first the latest page
 * (up to `backlog` entries), then whatever arrives, polling with `after=` the newest id seen.
 */
export async function followJournal(
  client: ApiClient,
  filters: JournalQuery,
  options: { backlog: number; stopped: Promise<unknown>; print: (entry: JournalEntry) => void; warn: (message: string) => void; ready?: () => void },
): Promise<void> {
  let done = false;
  void options.stopped.then(() => {
    done = true;
  });
  let cursor: string | undefined;
  const latest = await listJournal(client, { ...filters, pageSize: Math.max(1, options.backlog) });
  const backlog = options.backlog > 0 ? [...latest.items].reverse() : [];
  for (const entry of backlog) options.print(entry);
  cursor = latest.items[0]?.id;
  // From here on, every new request is printed.
  options.ready?.();
  while (!done) {
    await Promise.race([options.stopped, sleep(FOLLOW_INTERVAL_MS)]);
    if (done) break;
    try {
      if (cursor === undefined) {
        // Nothing seen yet: the newest page, oldest first.
        const page = await listJournal(client, { ...filters, pageSize: 100 });
        for (const entry of [...page.items].reverse()) if (!done) options.print(entry);
        cursor = page.items[0]?.id;
        continue;
      }
      let page = await listJournal(client, { ...filters, after: cursor, pageSize: 100 });
      // `after` pages oldest first: keep asking until a page comes back short.
      while (page.items.length > 0 && !done) {
        for (const entry of page.items) options.print(entry);
        cursor = page.items[page.items.length - 1]?.id ?? cursor;
        if (page.items.length < 100) break;
        page = await listJournal(client, { ...filters, after: cursor, pageSize: 100 });
      }
    } catch (error) {
      options.warn(`requests: ${(error as Error).message}`);
    }
  }
}
