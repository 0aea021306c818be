// The reporting queries' parameters: checked one by one, each refusal in the service's error shape
// (400 INVALID_REQUEST naming the query parameter and the issue).

import { parseRfc3339 } from '../core/rfc3339.js';
import { serviceError, type ReportingIssue } from '../http/errors.js';
import { singleQueryValue } from '../http/validation.js';
import { EVENT_CODES, type EventCode } from './event-codes.js';

/** The widest date range one search may cover. */
export const MAX_RANGE_DAYS = 31;
export const PAGE_SIZE = { default: 100, max: 500 } as const;
const MAX_PAGE = 2_147_483_647;

export const TRANSACTION_STATUSES = ['D', 'P', 'S', 'V'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** The parts of a transaction detail `fields` may ask for; the others are never known here. */
export const DETAIL_FIELDS = ['transaction_info', 'payer_info', 'shipping_info', 'cart_info', 'store_info', 'auction_info', 'incentive_info'] as const;
export type DetailField = (typeof DETAIL_FIELDS)[number];

export const INSTRUMENT_TYPES = ['CREDITCARD', 'DEBITCARD'] as const;

export interface SearchQuery {
  /** Inclusive, as a stored time (`...SS.mmmZ`). */
  start: string;
  /** Exclusive, as a stored time. */
  end: string;
  transactionId?: string;
  eventCode?: EventCode;
  status?: TransactionStatus;
  amount?: { from: bigint; to: bigint };
  currency?: string;
  instrument?: (typeof INSTRUMENT_TYPES)[number];
  fields: ReadonlySet<DetailField>;
  balanceAffectingOnly: boolean;
  page: number;
  pageSize: number;
  /** Whether any optional filter was given (the ending balance is then left out). */
  filtered: boolean;
  /** The query as given, for the page links. */
  raw: Record<string, string>;
}

export interface BalancesQuery {
  /** Stored time form; undefined = now. */
  asOf?: string;
  currency?: string;
}

const invalid = (issue: ReportingIssue, field: string, value: unknown, description: string) =>
  serviceError('INVALID_REQUEST', issue, description, { field, value, location: 'query' });

const single = (query: Record<string, unknown>, name: string) => singleQueryValue(query, name, 'INVALID_REQUEST');

/** A time as the ledger stores it: UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ` (sortable as text). */
export function storedTime(date: Date): string {
  return date.toISOString();
}

function parseDate(query: Record<string, unknown>, name: string): Date {
  const text = single(query, name);
  if (text === undefined) throw invalid('MISSING_REQUIRED_PARAMETER', name, '', `${name} is required.`);
  const date = parseRfc3339(text);
  if (!date || date.getUTCFullYear() > 9999) {
    throw invalid('INVALID_PARAMETER_SYNTAX', name, text, `${name} must be an RFC 3339 date-time with seconds, e.g. 2026-11-01T00:00:00Z.`);
  }
  return date;
}

function parseInteger(query: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const text = single(query, name);
  if (text === undefined) return fallback;
  const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) throw invalid('INVALID_PARAMETER_SYNTAX', name, text, `${name} must be a whole number from ${min} to ${max}.`);
  return value;
}

/** `A TO B` in minor units, optionally in brackets: `[500 TO 1005]`. */
function parseAmountRange(text: string): { from: bigint; to: bigint } {
  const match = /^\s*\[?\s*(-?[0-9]{1,18})\s+TO\s+(-?[0-9]{1,18})\s*\]?\s*$/.exec(text);
  if (!match) {
    throw invalid('INVALID_PARAMETER_SYNTAX', 'transaction_amount', text, 'transaction_amount is a range of minor units, "A TO B", e.g. "500 TO 1005".');
  }
  const from = BigInt(match[1]!);
  const to = BigInt(match[2]!);
  if (from > to) throw invalid('INVALID_AMOUNT_RANGE', 'transaction_amount', text, 'transaction_amount: the lower limit is above the upper one.');
  return { from, to };
}

function parseCurrency(query: Record<string, unknown>, name: string): string | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  if (!/^[A-Z]{3}$/.test(text)) throw invalid('INVALID_PARAMETER_SYNTAX', name, text, `${name} is a three-letter ISO 4217 code, e.g. USD.`);
  return text;
}

function parseFields(text: string | undefined): Set<DetailField> {
  if (text === undefined) return new Set(['transaction_info']);
  const names = text.split(',').map((name) => name.trim());
  if (names.includes('all')) return new Set(DETAIL_FIELDS);
  const unknown = names.find((name) => !(DETAIL_FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw invalid('INVALID_PARAMETER_VALUE', 'fields', text, `fields takes "all" or a comma list of ${DETAIL_FIELDS.join(', ')}.`);
  }
  return new Set(names as DetailField[]);
}

function oneOf<T extends string>(query: Record<string, unknown>, name: string, allowed: readonly T[]): T | undefined {
  const text = single(query, name);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) throw invalid('INVALID_PARAMETER_VALUE', name, text, `${name} is one of ${allowed.join(', ')}.`);
  return text as T;
}

const OPTIONAL_FILTERS = ['transaction_id', 'transaction_type', 'transaction_status', 'transaction_amount', 'transaction_currency', 'payment_instrument_type'];

export function parseSearchQuery(input: unknown): SearchQuery {
  const query = (input ?? {}) as Record<string, unknown>;
  const startDate = parseDate(query, 'start_date');
  const endDate = parseDate(query, 'end_date');
  if (endDate.getTime() < startDate.getTime()) {
    throw invalid('INVALID_DATE_RANGE', 'end_date', query.end_date, 'end_date is before start_date.');
  }
  if (endDate.getTime() - startDate.getTime() > MAX_RANGE_DAYS * 86_400_000) {
    throw invalid('DATE_RANGE_TOO_LARGE', 'end_date', query.end_date, `start_date and end_date may be at most ${MAX_RANGE_DAYS} days apart.`);
  }
  const result: SearchQuery = {
    start: storedTime(startDate),
    end: storedTime(endDate),
    fields: parseFields(single(query, 'fields')),
    balanceAffectingOnly: (oneOf(query, 'balance_affecting_records_only', ['Y', 'N'] as const) ?? 'Y') === 'Y',
    page: parseInteger(query, 'page', 1, MAX_PAGE, 1),
    pageSize: parseInteger(query, 'page_size', 1, PAGE_SIZE.max, PAGE_SIZE.default),
    filtered: OPTIONAL_FILTERS.some((name) => query[name] !== undefined),
    raw: Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
  };
  const transactionId = single(query, 'transaction_id');
  if (transactionId !== undefined) {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(transactionId)) {
      throw invalid('INVALID_PARAMETER_SYNTAX', 'transaction_id', transactionId, 'transaction_id is a transaction id: letters and digits.');
    }
    result.transactionId = transactionId;
  }
  const eventCode = oneOf(query, 'transaction_type', EVENT_CODES);
  if (eventCode !== undefined) result.eventCode = eventCode;
  const status = oneOf(query, 'transaction_status', TRANSACTION_STATUSES);
  if (status !== undefined) result.status = status;
  const amount = single(query, 'transaction_amount');
  if (amount !== undefined) result.amount = parseAmountRange(amount);
  const currency = parseCurrency(query, 'transaction_currency');
  if (currency !== undefined) result.currency = currency;
  const instrument = oneOf(query, 'payment_instrument_type', INSTRUMENT_TYPES);
  if (instrument !== undefined) result.instrument = instrument;
  return result;
}

export function parseBalancesQuery(input: unknown): BalancesQuery {
  const query = (input ?? {}) as Record<string, unknown>;
  const result: BalancesQuery = {};
  const asOf = single(query, 'as_of_time');
  if (asOf !== undefined) {
    const date = parseRfc3339(asOf);
    if (!date || date.getUTCFullYear() > 9999) {
      throw invalid('INVALID_PARAMETER_SYNTAX', 'as_of_time', asOf, 'as_of_time must be an RFC 3339 date-time with seconds, e.g. 2026-11-01T00:00:00Z.');
    }
    result.asOf = storedTime(date);
  }
  const currency = parseCurrency(query, 'currency_code');
  if (currency !== undefined) result.currency = currency;
  return result;
}
