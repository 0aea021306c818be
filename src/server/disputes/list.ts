// Listing disputes: query checks with the dispute API's issue codes, keyset pages newest first.

import { addSeconds, isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { parseRfc3339 } from '../core/rfc3339.js';
import { serviceError, type IssueCode } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import { singleQueryValue } from '../http/validation.js';
import { disputeFromRow } from './model.js';
import { renderSummary, type DisputeSummary } from './render.js';
import * as store from './store.js';
import { DISPUTE_STATES } from './states.js';

export const LIST_PAGE_SIZE = { default: 10, max: 50 } as const;
const START_TIME_WINDOW_SECONDS = 180 * 86_400;

export interface ListQuery {
  transactionId?: string;
  startTime?: string;
  states?: string[];
  pageSize: number;
  after?: { createTime: string; id: string };
}

const invalid = (issue: IssueCode, field: string, value: unknown, description: string) =>
  serviceError('VALIDATION_ERROR', issue, description, { field, value, location: 'query' });

const single = (query: Record<string, unknown>, name: string) => singleQueryValue(query, name, 'VALIDATION_ERROR');

function parseStartTime(value: string, now: Date): string {
  const time = parseRfc3339(value);
  if (!time) {
    throw invalid('INVALID_START_TIME_FORMAT', 'start_time', value, 'start_time must be an RFC 3339 date-time, e.g. 2025-01-31T09:30:00Z.');
  }
  if (time > now) throw invalid('DATE_CAN_NOT_BE_IN_FUTURE', 'start_time', value, 'start_time cannot be in the future.');
  if (time < addSeconds(now, -START_TIME_WINDOW_SECONDS)) {
    throw invalid('INVALID_START_TIME_RANGE', 'start_time', value, 'start_time must be within the last 180 days.');
  }
  return isoMillis(time);
}

export function encodePageToken(createTime: string, id: string): string {
  return Buffer.from(JSON.stringify([createTime, id]), 'utf8').toString('base64');
}

function decodePageToken(token: string): { createTime: string; id: string } {
  const bad = () => invalid('INVALID_PARAMETER_VALUE', 'next_page_token', token, 'next_page_token is not a token this service issued.');
  if (!/^[A-Za-z0-9+/=]{1,255}$/.test(token)) throw bad();
  try {
    const decoded: unknown = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2 && typeof decoded[0] === 'string' && typeof decoded[1] === 'string') {
      return { createTime: decoded[0], id: decoded[1] };
    }
  } catch {
    // fall through
  }
  throw bad();
}

export function parseListQuery(raw: unknown, now: Date): ListQuery {
  const query = (raw ?? {}) as Record<string, unknown>;
  const result: ListQuery = { pageSize: LIST_PAGE_SIZE.default };
  const pageSize = single(query, 'page_size');
  if (pageSize !== undefined) {
    const size = /^[0-9]{1,3}$/.test(pageSize) ? Number(pageSize) : NaN;
    if (!(size >= 1 && size <= LIST_PAGE_SIZE.max)) {
      throw invalid('INVALID_PAGE_SIZE', 'page_size', pageSize, `page_size must be a whole number from 1 to ${LIST_PAGE_SIZE.max}.`);
    }
    result.pageSize = size;
  }
  const transactionId = single(query, 'disputed_transaction_id');
  const startTime = single(query, 'start_time');
  if (transactionId !== undefined && startTime !== undefined) {
    throw invalid('INVALID_PARAMETER_VALUE', 'start_time', startTime, 'Give either start_time or disputed_transaction_id, not both.');
  }
  if (transactionId !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,255}$/.test(transactionId)) {
      throw invalid('INVALID_PARAMETER_SYNTAX', 'disputed_transaction_id', transactionId, 'disputed_transaction_id is 1 to 255 letters, digits, - or _.');
    }
    result.transactionId = transactionId;
  }
  if (startTime !== undefined) result.startTime = parseStartTime(startTime, now);
  const states = single(query, 'dispute_state');
  if (states !== undefined) {
    const list = states.split(',').map((state) => state.trim());
    const unknown = list.find((state) => !(DISPUTE_STATES as readonly string[]).includes(state));
    if (unknown !== undefined) {
      throw invalid('INVALID_PARAMETER_VALUE', 'dispute_state', states, `dispute_state takes a comma list of ${DISPUTE_STATES.join(', ')}.`);
    }
    result.states = list;
  }
  const token = single(query, 'next_page_token');
  if (token !== undefined) result.after = decodePageToken(token);
  return result;
}

function pageQuery(query: ListQuery, token?: string): string {
  const params = new URLSearchParams();
  if (query.transactionId) params.set('disputed_transaction_id', query.transactionId);
  if (query.startTime) params.set('start_time', query.startTime);
  if (query.states) params.set('dispute_state', query.states.join(','));
  params.set('page_size', String(query.pageSize));
  if (token) params.set('next_page_token', token);
  return params.toString();
}

export async function listDisputes(ctx: ServiceContext, query: ListQuery): Promise<{ items: DisputeSummary[]; links: Link[] }> {
  const rows = await store.listDisputes(ctx.db, ctx.accountId, {
    ...(query.transactionId !== undefined ? { captureId: query.transactionId } : {}),
    ...(query.startTime !== undefined ? { startTime: query.startTime } : {}),
    ...(query.states !== undefined ? { states: query.states } : {}),
    ...(query.after !== undefined ? { after: query.after } : {}),
    limit: query.pageSize + 1,
  });
  const page = rows.slice(0, query.pageSize);
  const current = query.after ? encodePageToken(query.after.createTime, query.after.id) : undefined;
  const links = [link(ctx.baseUrl, `/v1/customer/disputes?${pageQuery(query, current)}`, 'self', 'GET')];
  const last = page.at(-1);
  if (rows.length > query.pageSize && last) {
    links.push(link(ctx.baseUrl, `/v1/customer/disputes?${pageQuery(query, encodePageToken(last.create_time, last.id))}`, 'next', 'GET'));
  }
  return { items: page.map((row) => renderSummary(disputeFromRow(row), ctx)), links };
}
