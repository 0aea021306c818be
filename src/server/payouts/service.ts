// Payout rules for requests: create a batch, read it page by page, read and cancel items.

import { addSeconds, isoMillis, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId, upperId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import { ServiceError, notFound, serviceError } from '../http/errors.js';
import type { StoredResponse } from '../http/idempotency.js';
import { link, type Link } from '../http/links.js';
import { toMinorUnits } from '../../lib/money.js';
import { payoutItemFee } from './fees.js';
import { batchHeader, batchPath, createdBatchBody, itemResource, type ItemDetail, type PayoutBatchHeaderBody, type PayoutBatchResource, type PayoutItemResource } from './resources.js';
import type { CreatePayoutRequest, PayoutItemRequest, RecipientType } from './schema.js';
import { returnUnclaimedItem } from './settlement.js';
import { CHARGED_ITEM_STATUSES, assertItemCanTransition, type ItemStatus } from './states.js';
import * as store from './store.js';

/** A sender_batch_id may not be reused for this long, on the account's clock. */
export const SENDER_BATCH_ID_WINDOW_SECONDS = 30 * 86_400;
export const DEFAULT_PAGE_SIZE = 1000;

async function refuseDuplicateSenderBatchId(ctx: ServiceContext, senderBatchId: string): Promise<void> {
  const since = isoMillis(addSeconds(ctx.now, -SENDER_BATCH_ID_WINDOW_SECONDS));
  const earlier = await store.findRecentBatchBySenderId(ctx.db, ctx.accountId, senderBatchId, since);
  if (!earlier) return;
  throw new ServiceError(
    'USER_BUSINESS_ERROR',
    [
      {
        field: '/sender_batch_header/sender_batch_id',
        value: senderBatchId,
        location: 'body',
        issue: 'SENDER_BATCH_ID_ALREADY_USED',
        description:
          `Batch with sender_batch_id "${senderBatchId}" already exists: payout batch ${earlier.id}, created ` +
          `${earlier.time_created}. A sender_batch_id can be used again 30 days after its batch; send another one.`,
      },
    ],
    { links: [link(ctx.baseUrl, batchPath(earlier.id), 'self')] },
  );
}

function itemDetail(item: PayoutItemRequest): ItemDetail {
  const { note, sender_item_id, recipient_wallet, purpose, notification_language, alternate_notification_method, application_context } = item;
  return { note, sender_item_id, recipient_wallet, purpose, notification_language, alternate_notification_method, application_context };
}

function itemRow(ctx: ServiceContext, batchId: string, position: number, item: PayoutItemRequest, type: RecipientType): store.ItemRow {
  const currency = item.amount.currency;
  const amountMinor = toMinorUnits(item.amount.value, currency);
  return {
    id: upperId(ctx.deps.ids, 13),
    batch_id: batchId,
    account_id: ctx.accountId,
    position: BigInt(position),
    status: 'PENDING',
    recipient_type: type,
    receiver: item.receiver,
    receiver_key: type === 'EMAIL' ? item.receiver.toLowerCase() : item.receiver,
    currency,
    amount_minor: amountMinor,
    fee_minor: payoutItemFee(amountMinor, currency),
    transaction_id: transactionId(ctx.deps.ids),
    error_name: null,
    time_processed: null,
    return_due: null,
    detail: JSON.stringify(itemDetail(item)),
  };
}

/** Accepts a batch (PENDING); the balance check and payment happen when processing starts. */
export async function createPayoutBatch(ctx: ServiceContext, request: CreatePayoutRequest): Promise<StoredResponse<PayoutBatchHeaderBody>> {
  const header = request.sender_batch_header;
  if (header.sender_batch_id !== undefined) {
    // Checked, then inserted: under the account's lock, so two batches with one id cannot both pass.
    await lockAccount(ctx.db, ctx.accountId);
    await refuseDuplicateSenderBatchId(ctx, header.sender_batch_id);
  }
  const batchId = upperId(ctx.deps.ids, 13);
  const items = request.items.map((item, position) =>
    // parseCreatePayout guarantees a recipient type on the item or in the header.
    itemRow(ctx, batchId, position, item, (item.recipient_type ?? header.recipient_type) as RecipientType),
  );
  const currencies = new Set(items.map((item) => item.currency));
  const [currency] = currencies;
  const batch: store.BatchRow = {
    id: batchId,
    account_id: ctx.accountId,
    sender_batch_id: header.sender_batch_id ?? null,
    status: 'PENDING',
    item_count: BigInt(items.length),
    currency: currencies.size === 1 && currency ? currency : null,
    amount_minor: currencies.size === 1 ? items.reduce((sum, item) => sum + item.amount_minor, 0n) : null,
    sender_batch_header: JSON.stringify(header),
    time_created: isoSeconds(ctx.now),
    created_at: isoMillis(ctx.now),
    time_completed: null,
  };
  await store.insertBatch(ctx.db, batch);
  await store.insertItems(ctx.db, items);
  return { status: 201, body: createdBatchBody(batch, ctx.baseUrl) };
}

export interface BatchQuery {
  page?: number;
  page_size?: number;
  total_required?: boolean;
  fields?: string;
}

const BATCH_FIELDS = ['batch_header', 'items'] as const;

/** `fields`: `all` (the default) or a comma-separated choice of `batch_header` and `items`. */
function selectedFields(fields: string | undefined): Set<string> {
  if (fields === undefined || fields.trim().toLowerCase() === 'all') return new Set(BATCH_FIELDS);
  const names = fields.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !(BATCH_FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', `fields takes "all" or a comma-separated list of ${BATCH_FIELDS.join(', ')}.`, {
      field: '/fields',
      value: fields,
      location: 'query',
    });
  }
  return new Set(names);
}

function pageLinks(ctx: ServiceContext, id: string, page: number, size: number, totalPages: number, query: BatchQuery): Link[] {
  const href = (p: number) =>
    `${batchPath(id)}?page=${p}&page_size=${size}${query.total_required === undefined ? '' : `&total_required=${query.total_required}`}`;
  const links = [link(ctx.baseUrl, href(page), 'self')];
  if (size === 0 || totalPages === 0) return links;
  links.push(link(ctx.baseUrl, href(1), 'first'));
  if (page > 1) links.push(link(ctx.baseUrl, href(Math.min(page - 1, totalPages)), 'previous'));
  if (page < totalPages) links.push(link(ctx.baseUrl, href(page + 1), 'next'));
  links.push(link(ctx.baseUrl, href(totalPages), 'last'));
  return links;
}

export async function getPayoutBatch(ctx: ServiceContext, id: string, query: BatchQuery): Promise<PayoutBatchResource> {
  const fields = selectedFields(query.fields);
  const batch = await store.findBatch(ctx.db, ctx.accountId, id);
  if (!batch) throw notFound('payout_batch', id);
  const size = query.page_size ?? DEFAULT_PAGE_SIZE;
  const page = Math.max(1, query.page ?? 1);
  const count = Number(batch.item_count);
  const totalPages = size === 0 ? 0 : Math.ceil(count / size);
  const body = {} as PayoutBatchResource;
  if (query.total_required) {
    body.total_items = count;
    body.total_pages = totalPages;
  }
  if (fields.has('batch_header')) {
    body.batch_header = batchHeader(batch, await store.batchTotals(ctx.db, batch.id, CHARGED_ITEM_STATUSES));
  }
  if (fields.has('items')) {
    const rows = size === 0 ? [] : await store.itemsInRange(ctx.db, batch.id, (page - 1) * size, page * size);
    body.items = rows.map((row) => itemResource(row, ctx.baseUrl, { standalone: false }));
  }
  body.links = pageLinks(ctx, batch.id, page, size, totalPages, query);
  return body;
}

async function loadItem(ctx: ServiceContext, itemId: string) {
  const item = await store.findItem(ctx.db, ctx.accountId, itemId);
  if (!item) throw notFound('payout_item', itemId);
  const batch = await store.findBatch(ctx.db, ctx.accountId, item.batch_id);
  return { item, senderBatchId: batch?.sender_batch_id ?? null };
}

export async function getPayoutItem(ctx: ServiceContext, itemId: string): Promise<PayoutItemResource> {
  const { item, senderBatchId } = await loadItem(ctx, itemId);
  return itemResource(item, ctx.baseUrl, { standalone: true, senderBatchId });
}

/** Only an UNCLAIMED item can be cancelled: it becomes RETURNED and its amount and fee go back. */
export async function cancelPayoutItem(ctx: ServiceContext, itemId: string): Promise<StoredResponse<PayoutItemResource>> {
  const { item, senderBatchId } = await loadItem(ctx, itemId);
  assertItemCanTransition('cancel', item.status as ItemStatus, 'RETURNED');
  const returned = await returnUnclaimedItem(ctx, item, senderBatchId, 'cancel');
  return { status: 200, body: itemResource(returned, ctx.baseUrl, { standalone: true, senderBatchId }) };
}
