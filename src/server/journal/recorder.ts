// The request journal's writer: entries noted after each answer, written in batches (one
// transaction every ~50 ms or 200 entries, off the request's own transaction), retention pruned there.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ServerDeps } from '../core/deps.js';
import type { Queryable } from '../db/schema.js';
import type { OauthApi } from '../oauth/api.js';
import { keepParsed, keepText, maskHeaders, maskQuery } from './mask.js';
import { appendEntries, type JournalRow } from './store.js';

/** What a request leaves for the journal; masked and capped in the flush, after the answer. */
export interface PendingEntry {
  accountId: string;
  /** For a request of no merchant: the client id it authenticated with (the token endpoint), resolved in the flush. */
  clientId?: string;
  startedMs: number;
  /** The merchant's clock offset when the request came (its account time). */
  accountOffsetMs: number;
  durationUs: number;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  requestHeaders: IncomingHttpHeaders;
  requestBody: unknown;
  /** For a body that is no JSON or form (multipart evidence files): its type and size only. */
  requestBodyInfo?: { content_type: string; bytes: number | null };
  status: number | null;
  responseHeaders: OutgoingHttpHeaders;
  responseText: string | undefined;
  /** An answer that was no text (a file, a stream): its size if known. */
  responseBodyInfo?: { content_type: string; bytes: number | null };
  requestId: string | null;
  faultId: string | null;
}

export interface JournalOptions {
  /** Entries kept per merchant. */
  size: number;
  flushMs?: number;
  batchEntries?: number;
}

/** Entries waiting when the database cannot keep up: beyond this the oldest are dropped (and counted). */
const MAX_PENDING = 5_000;

export class RequestJournal {
  private pending: PendingEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  readonly stats = { written: 0, dropped: 0, flushes: 0 };
  /** Merchants whose journal count this process has counted from their entries (store.ts `appendEntries`). */
  private readonly checked = new Set<string>();
  private readonly flushMs: number;
  private readonly batchEntries: number;

  constructor(
    private readonly deps: ServerDeps,
    readonly options: JournalOptions,
  ) {
    this.flushMs = options.flushMs ?? 50;
    this.batchEntries = options.batchEntries ?? 200;
  }

  record(entry: PendingEntry): void {
    if (this.closed) return;
    this.pending.push(entry);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.stats.dropped += 1;
    }
    if (this.pending.length >= this.batchEntries) this.schedule(0);
    else this.schedule(this.flushMs);
  }

  private schedule(delayMs: number): void {
    if (this.running !== undefined) return;
    if (this.timer !== undefined) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  /** Writes what is pending (waits for a flush in progress first); resolves when it is in the database. */
  async flush(): Promise<void> {
    while (this.running !== undefined) await this.running;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.running = this.write(batch).finally(() => {
      this.running = undefined;
      if (this.pending.length > 0 && !this.closed) this.schedule(this.pending.length >= this.batchEntries ? 0 : this.flushMs);
    });
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(batch: PendingEntry[]): Promise<void> {
    try {
      const rows = batch.map(rowOf);
      // Serialized across processes (PostgreSQL: an advisory lock), so seq order is commit order and
      // a reader polling with `after` never passes an entry another replica commits later.
      const counted = await this.deps.storage.transaction({ name: 'journal.flush', exclusive: 'request-journal' }, async (trx) => {
        await attributeByClientId(this.deps.domains.oauth, trx, batch, rows);
        return appendEntries(trx, rows, this.options.size, this.checked);
      });
      for (const accountId of counted) this.checked.add(accountId);
      this.stats.written += rows.length;
      this.stats.flushes += 1;
    } catch (error) {
      this.stats.dropped += batch.length;
      this.deps.log.error({ err: error, entries: batch.length }, 'request journal: a batch could not be written');
    }
  }
}

/** Token requests carry no bearer: their merchant is the app's whose client id they sent. */
async function attributeByClientId(oauth: OauthApi, db: Queryable, batch: readonly PendingEntry[], rows: JournalRow[]): Promise<void> {
  const owners = new Map<string, string>();
  for (const [index, entry] of batch.entries()) {
    if (entry.accountId !== '' || entry.clientId === undefined) continue;
    let owner = owners.get(entry.clientId);
    if (owner === undefined) {
      owner = (await oauth.findAppByClientId(db, entry.clientId))?.account_id ?? '';
      owners.set(entry.clientId, owner);
    }
    const row = rows[index];
    if (row !== undefined && owner !== '') {
      row.account_id = owner;
    }
  }
}

function rowOf(entry: PendingEntry): JournalRow {
  const queryAt = entry.url.indexOf('?');
  const path = queryAt === -1 ? entry.url : entry.url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : maskQuery(entry.url.slice(queryAt + 1));
  const request = entry.requestBodyInfo === undefined ? keepParsed(entry.requestBody) : { json: 'null', truncated: false };
  const contentType = headerText(entry.responseHeaders['content-type']);
  const response = entry.responseText === undefined ? { json: 'null', truncated: false } : keepText(entry.responseText, contentType);
  // Written as text: the bodies are JSON already and are placed in without being parsed again.
  let detail = `{"request_headers":${JSON.stringify(maskHeaders(entry.requestHeaders))},"request_body":${request.json}`;
  if (request.truncated) detail += ',"request_body_truncated":true';
  if (entry.requestBodyInfo !== undefined) detail += `,"request_body_info":${JSON.stringify(entry.requestBodyInfo)}`;
  detail += `,"response_headers":${JSON.stringify(maskHeaders(entry.responseHeaders))},"response_body":${response.json}`;
  if (response.truncated) detail += ',"response_body_truncated":true';
  if (entry.responseBodyInfo !== undefined) detail += `,"response_body_info":${JSON.stringify(entry.responseBodyInfo)}`;
  detail += '}';
  return {
    account_id: entry.accountId,
    time: new Date(entry.startedMs).toISOString(),
    account_time: new Date(entry.startedMs + entry.accountOffsetMs).toISOString(),
    method: entry.method,
    path,
    query,
    status: entry.status === null ? null : BigInt(entry.status),
    duration_us: BigInt(Math.max(0, Math.round(entry.durationUs))),
    request_id: entry.requestId,
    fault_id: entry.faultId,
    detail,
  };
}

function headerText(value: OutgoingHttpHeaders[string]): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}
