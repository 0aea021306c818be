// Transaction search as the CLI offers it: dates a person types, a range of any length cut into the
// API's 31-day windows, every page followed, filters the API lacks applied here, and CSV rows.

import type { ApiClient } from './api/client.js';
import { UsageError } from './api/errors.js';
import { searchTransactions, type TransactionDetail, type TransactionInfo, type TransactionPage, type TransactionQuery } from './api/reporting.js';
import { MoneyParseError, toMinorUnits } from './money.js';

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
/** The longest range one request may cover. */
export const WINDOW_DAYS = 31;
/** With --all, pages beyond this many per window are not fetched (100,000 items at the default size). */
export const MAX_PAGES_PER_WINDOW = 1000;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A range of time as [fromMs, toMs): the first instant in it and the first one after it. */
export interface TimeRange {
  fromMs: number;
  toMs: number;
}

/**
 * A date a person typed: YYYY-MM-DD (a UTC day) or a full RFC 3339 date-time. As `from` it is the
 * first instant included; as `to` a day includes the whole day and a date-time includes that second.
 * Returns the boundary as the first instant included (`from`) or the first one excluded (`to`).
 */
export function parseDateBound(text: string, end: 'from' | 'to', flag: string): number {
  const day = DATE_ONLY.exec(text);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    if (new Date(ms).toISOString().slice(0, 10) !== text) throw new UsageError(`${flag}: ${text} is not a calendar date`);
    return end === 'from' ? ms : ms + DAY_MS;
  }
  if (!RFC3339.test(text) || !Number.isFinite(Date.parse(text))) {
    throw new UsageError(`${flag}: "${text}" is not a date (YYYY-MM-DD) or an RFC 3339 date-time (2026-11-01T09:30:00Z)`);
  }
  const second = Math.floor(Date.parse(text) / SECOND_MS) * SECOND_MS;
  return end === 'from' ? second : second + SECOND_MS;
}

/** The range of --from and --to, refused when it is empty. */
export function parseRange(from: string, to: string): TimeRange {
  const range = { fromMs: parseDateBound(from, 'from', '--from'), toMs: parseDateBound(to, 'to', '--to') };
  if (range.toMs <= range.fromMs) throw new UsageError(`--to (${to}) is before --from (${from})`);
  return range;
}

/** RFC 3339 in UTC to the second, as the API wants it. */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** --as-of as the API's as_of_time (included): a day's last millisecond, or the instant given. */
export function asOfTime(text: string): string {
  if (DATE_ONLY.test(text)) return new Date(parseDateBound(text, 'to', '--as-of') - 1).toISOString();
  parseDateBound(text, 'from', '--as-of');
  return new Date(Date.parse(text)).toISOString();
}

/** The range cut into consecutive windows of at most 31 days, oldest first. */
export function splitRange(range: TimeRange): TimeRange[] {
  const windows: TimeRange[] = [];
  for (let start = range.fromMs; start < range.toMs; start += WINDOW_DAYS * DAY_MS) {
    windows.push({ fromMs: start, toMs: Math.min(start + WINDOW_DAYS * DAY_MS, range.toMs) });
  }
  return windows;
}

/**
 * A window as the API's start_date and end_date: the API includes the start and excludes the end,
 * so consecutive windows meet without overlap or gap.
 */
export function windowDates(window: TimeRange): { start_date: string; end_date: string } {
  return { start_date: isoSecond(window.fromMs), end_date: isoSecond(window.toMs) };
}

/**
 * `10.00..20.00` (or one amount for exactly that) as the API's `A TO B` in minor units of the
 * currency (two decimals when none is given). Negative amounts (refunds, fees) are allowed.
 */
export function amountRange(text: string, currency: string | undefined): string {
  const parts = text.split('..');
  if (parts.length > 2 || parts.some((part) => part.trim() === '')) {
    throw new UsageError(`--amount: "${text}" is not an amount or a range like 10.00..20.00`);
  }
  const minor = parts.map((part) => {
    try {
      return toMinorUnits(part.trim(), currency ?? 'USD');
    } catch (error) {
      if (error instanceof MoneyParseError) throw new UsageError(`--amount: ${error.message}`);
      throw error;
    }
  });
  const low = minor[0] as bigint;
  const high = minor[minor.length - 1] as bigint;
  if (high < low) throw new UsageError(`--amount: the range ${text} ends below its start`);
  return `${low} TO ${high}`;
}

/** Filters the API does not have, applied to what it answers. */
export interface LocalFilters {
  invoiceId?: string;
  customId?: string;
}

export function hasLocalFilters(filters: LocalFilters): boolean {
  return filters.invoiceId !== undefined || filters.customId !== undefined;
}

export function matchesLocalFilters(detail: TransactionDetail, filters: LocalFilters): boolean {
  const info = detail.transaction_info ?? {};
  if (filters.invoiceId !== undefined && info.invoice_id !== filters.invoiceId) return false;
  if (filters.customId !== undefined && info.custom_field !== filters.customId) return false;
  return true;
}

/** The API's filters besides the dates, and which page(s) to read. */
export interface SearchPlan {
  windows: TimeRange[];
  query: Omit<TransactionQuery, 'start_date' | 'end_date' | 'page'>;
  /** Every page of every window; otherwise `page` (default 1) of each. */
  all: boolean;
  page?: number;
  /** Called before the first request of each window (for a progress line). */
  onWindow?: (index: number, count: number) => void;
}

/** One page as answered, with where it came from. */
export interface SearchedPage {
  window: number;
  page: TransactionPage;
  raw: unknown;
}

/** Reads the plan's pages in order, window by window; stops a window at its last page. */
export async function* searchPages(client: ApiClient, plan: SearchPlan): AsyncGenerator<SearchedPage> {
  for (const [index, window] of plan.windows.entries()) {
    plan.onWindow?.(index, plan.windows.length);
    let pageNumber = plan.all ? 1 : (plan.page ?? 1);
    for (let read = 0; read < MAX_PAGES_PER_WINDOW; read += 1) {
      const query: TransactionQuery = { ...plan.query, ...windowDates(window) };
      if (pageNumber !== 1 || plan.page !== undefined) query.page = pageNumber;
      const { page, raw } = await searchTransactions(client, query);
      yield { window: index, page, raw };
      if (!plan.all || pageNumber >= (page.total_pages ?? 1) || page.transaction_details.length === 0) break;
      pageNumber += 1;
    }
  }
}

/** The columns of the reconciliation export, in order. */
export const CSV_COLUMNS: ReadonlyArray<readonly [string, (info: TransactionInfo) => string | undefined]> = [
  ['transaction_id', (info) => info.transaction_id],
  ['reference_id', (info) => info.paypal_reference_id],
  ['event_code', (info) => info.transaction_event_code],
  ['initiation_date', (info) => info.transaction_initiation_date],
  ['updated_date', (info) => info.transaction_updated_date],
  ['status', (info) => info.transaction_status],
  ['currency', (info) => info.transaction_amount?.currency_code],
  ['amount', (info) => info.transaction_amount?.value],
  ['fee', (info) => info.fee_amount?.value],
  ['ending_balance', (info) => info.ending_balance?.value],
  ['available_balance', (info) => info.available_balance?.value],
  ['invoice_id', (info) => info.invoice_id],
  ['custom_field', (info) => info.custom_field],
];

/** One CSV record (RFC 4180): a field with a comma, quote, CR or LF is quoted, quotes doubled; CRLF ends it. */
export function csvRecord(cells: readonly string[]): string {
  return `${cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')}\r\n`;
}

export function csvHeader(): string {
  return csvRecord(CSV_COLUMNS.map(([name]) => name));
}

export function csvRow(detail: TransactionDetail): string {
  const info = detail.transaction_info ?? {};
  return csvRecord(CSV_COLUMNS.map(([, value]) => value(info) ?? ''));
}
