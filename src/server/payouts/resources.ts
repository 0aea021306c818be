// Payout batches and items as the API shows them: payouts money is `{ currency, value }`.

import { createHash } from 'node:crypto';
import { fromMinorUnits } from '../../lib/money.js';
import type { ErrorDetail } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import type { BatchRow, CurrencyTotals, ItemRow } from './store.js';
import { CHARGED_ITEM_STATUSES, type BatchStatus, type ItemStatus } from './states.js';
import { ITEM_TEST_VALUES, SELF_PAYMENT, UNREGISTERED_RECEIVER } from './test-values.js';

export interface PayoutMoney {
  currency: string;
  value: string;
}

export const payoutMoney = (minor: bigint, currency: string): PayoutMoney => ({ currency, value: fromMinorUnits(minor, currency) });

/** The item fields stored as JSON beside the scalar columns. */
export interface ItemDetail {
  note?: string;
  sender_item_id?: string;
  recipient_wallet?: string;
  purpose?: string;
  notification_language?: string;
  alternate_notification_method?: unknown;
  application_context?: unknown;
}

export function parseDetail(text: string): ItemDetail {
  const parsed = JSON.parse(text) as unknown;
  return typeof parsed === 'object' && parsed !== null ? (parsed as ItemDetail) : {};
}

const ERROR_INFORMATION_BASE = 'https://developer.payctl.dev/docs/errors';

const ERROR_MESSAGES: ReadonlyMap<string, string> = new Map(
  [...Object.values(ITEM_TEST_VALUES), UNREGISTERED_RECEIVER, SELF_PAYMENT].map((outcome) => [outcome.name, outcome.message]),
);

/** Statuses whose item was paid out at some point, so it carries a transaction id. */
const TRANSACTION_STATUSES: readonly ItemStatus[] = [...CHARGED_ITEM_STATUSES, 'RETURNED'];

export const batchPath = (id: string): string => `/v1/payments/payouts/${id}`;
export const itemPath = (id: string): string => `/v1/payments/payouts-item/${id}`;

/**
 * The schema requires a debug_id. An item's failure happened once, so its id is derived from the
 * item and the error (14 hex digits like every debug_id) and reads the same on every GET.
 */
const itemDebugId = (itemId: string, name: string): string => createHash('sha256').update(`${itemId}:${name}`).digest('hex').slice(0, 14);

/** An item's `errors`: the API's error, its details always empty (an item's failure has none). */
export interface PayoutItemError {
  name: string;
  message: string;
  debug_id: string;
  information_link: string;
  details: ErrorDetail[];
}

function itemErrors(itemId: string, name: string): PayoutItemError {
  return {
    name,
    message: ERROR_MESSAGES.get(name) ?? 'The item could not be paid.',
    debug_id: itemDebugId(itemId, name),
    information_link: `${ERROR_INFORMATION_BASE}#${name}`,
    details: [],
  };
}

// The API's payout answers (declared once here; the CLI's client parses what it shows,
// src/lib/api/payouts.ts). Objects are built in the API's field order, so the types are filled in
// step by step.

/** `payout_item`: what the sender asked for (recipient_type and recipient_wallet always shown). */
export interface PayoutItemDetail {
  recipient_type: string;
  amount: PayoutMoney;
  note?: string;
  receiver: string;
  sender_item_id?: string;
  recipient_wallet: string;
  purpose?: string;
}

export interface PayoutItemResource {
  payout_item_id: string;
  /** Only on an item that was paid out at some point. */
  transaction_id?: string;
  transaction_status: ItemStatus;
  payout_item_fee: PayoutMoney;
  payout_batch_id: string;
  sender_batch_id?: string;
  payout_item: PayoutItemDetail;
  time_processed?: string;
  errors?: PayoutItemError;
  links: Link[];
}

export interface PayoutBatchHeader {
  payout_batch_id: string;
  batch_status: BatchStatus;
  time_created: string;
  time_completed?: string;
  time_closed?: string;
  /** As the sender gave it (stored as JSON). */
  sender_batch_header: { sender_batch_id?: string; recipient_type?: string; email_subject?: string; email_message?: string };
  funding_source?: 'BALANCE';
  amount?: PayoutMoney;
  fees?: PayoutMoney;
}

export interface PayoutBatchResource {
  total_items?: number;
  total_pages?: number;
  batch_header?: PayoutBatchHeader;
  items?: PayoutItemResource[];
  links: Link[];
}

/** The create call's answer and a batch event's resource: the header and where to read the batch. */
export interface PayoutBatchHeaderBody {
  batch_header: PayoutBatchHeader;
  links: Link[];
}

export interface ItemView {
  /** `item` in a batch listing; `self` + `batch` when the item is read on its own. */
  standalone: boolean;
  senderBatchId?: string | null;
}

export function itemResource(row: ItemRow, baseUrl: string, view: ItemView): PayoutItemResource {
  const status = row.status as ItemStatus;
  const detail = parseDetail(row.detail);
  const charged = CHARGED_ITEM_STATUSES.includes(status);
  const resource = { payout_item_id: row.id } as PayoutItemResource;
  if (TRANSACTION_STATUSES.includes(status)) resource.transaction_id = row.transaction_id;
  resource.transaction_status = status;
  resource.payout_item_fee = payoutMoney(charged ? row.fee_minor : 0n, row.currency);
  resource.payout_batch_id = row.batch_id;
  if (view.standalone && view.senderBatchId) resource.sender_batch_id = view.senderBatchId;
  resource.payout_item = {
    recipient_type: row.recipient_type,
    amount: payoutMoney(row.amount_minor, row.currency),
    ...(detail.note !== undefined ? { note: detail.note } : {}),
    receiver: row.receiver,
    ...(detail.sender_item_id !== undefined ? { sender_item_id: detail.sender_item_id } : {}),
    recipient_wallet: detail.recipient_wallet ?? 'PAYPAL',
    ...(detail.purpose !== undefined ? { purpose: detail.purpose } : {}),
  };
  if (row.time_processed) resource.time_processed = row.time_processed;
  if (row.error_name) resource.errors = itemErrors(row.id, row.error_name);
  const links: Link[] = view.standalone
    ? [link(baseUrl, itemPath(row.id), 'self'), link(baseUrl, batchPath(row.batch_id), 'batch')]
    : [link(baseUrl, itemPath(row.id), 'item')];
  if (status === 'UNCLAIMED') links.push(link(baseUrl, `${itemPath(row.id)}/cancel`, 'cancel', 'POST'));
  resource.links = links;
  return resource;
}

/** The batch header: status, times, the sender's header, and (single-currency batches) totals. */
export function batchHeader(row: BatchRow, totals: readonly CurrencyTotals[]): PayoutBatchHeader {
  const header = {
    payout_batch_id: row.id,
    batch_status: row.status as BatchStatus,
    time_created: row.time_created,
  } as PayoutBatchHeader;
  if (row.time_completed) {
    header.time_completed = row.time_completed;
    header.time_closed = row.time_completed;
  }
  header.sender_batch_header = JSON.parse(row.sender_batch_header) as PayoutBatchHeader['sender_batch_header'];
  header.funding_source = 'BALANCE';
  const [only] = totals;
  if (totals.length === 1 && only) {
    header.amount = payoutMoney(only.amount, only.currency);
    header.fees = payoutMoney(only.fees, only.currency);
  }
  return header;
}

/** What the create call answers: the header as accepted, and where to follow it. */
export function createdBatchBody(row: BatchRow, baseUrl: string): PayoutBatchHeaderBody {
  return {
    batch_header: {
      payout_batch_id: row.id,
      batch_status: row.status as BatchStatus,
      time_created: row.time_created,
      sender_batch_header: JSON.parse(row.sender_batch_header) as PayoutBatchHeader['sender_batch_header'],
    },
    links: [link(baseUrl, batchPath(row.id), 'self')],
  };
}

/** A batch event's resource: the header without items, and a link to read them. */
export function batchEventResource(row: BatchRow, totals: readonly CurrencyTotals[], baseUrl: string): PayoutBatchHeaderBody {
  return { batch_header: batchHeader(row, totals), links: [link(baseUrl, batchPath(row.id), 'self')] };
}
