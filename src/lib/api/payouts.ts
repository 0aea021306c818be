// Payouts v1: create a batch, read it page by page, read and cancel items. Payouts money is `{ currency, value }`.

import { z } from 'zod';
import { call, pageQuery, type PageOptions } from './call.js';
import type { ApiClient } from './client.js';
import { linkSchema } from './types.js';

export const payoutMoneySchema = z.looseObject({ currency: z.string(), value: z.string() });
export type PayoutMoney = z.infer<typeof payoutMoneySchema>;

export const payoutItemSchema = z.looseObject({
  payout_item_id: z.string(),
  transaction_id: z.string().optional(),
  transaction_status: z.string().optional(),
  payout_item_fee: payoutMoneySchema.optional(),
  payout_batch_id: z.string(),
  sender_batch_id: z.string().optional(),
  payout_item: z.looseObject({
    recipient_type: z.string().optional(),
    amount: payoutMoneySchema,
    note: z.string().optional(),
    receiver: z.string(),
    sender_item_id: z.string().optional(),
  }),
  time_processed: z.string().optional(),
  errors: z.looseObject({ name: z.string(), message: z.string().optional() }).optional(),
  links: z.array(linkSchema).optional(),
});
export type PayoutItem = z.infer<typeof payoutItemSchema>;

const senderBatchHeaderSchema = z.looseObject({
  sender_batch_id: z.string().optional(),
  recipient_type: z.string().optional(),
  email_subject: z.string().optional(),
  email_message: z.string().optional(),
});

export const batchHeaderSchema = z.looseObject({
  payout_batch_id: z.string(),
  batch_status: z.string(),
  time_created: z.string().optional(),
  time_completed: z.string().optional(),
  sender_batch_header: senderBatchHeaderSchema.optional(),
  amount: payoutMoneySchema.optional(),
  fees: payoutMoneySchema.optional(),
});
export type PayoutBatchHeader = z.infer<typeof batchHeaderSchema>;

export const createdBatchSchema = z.looseObject({ batch_header: batchHeaderSchema, links: z.array(linkSchema).optional() });
export type CreatedPayoutBatch = z.infer<typeof createdBatchSchema>;

export const payoutBatchSchema = z.looseObject({
  total_items: z.number().optional(),
  total_pages: z.number().optional(),
  batch_header: batchHeaderSchema.optional(),
  items: z.array(payoutItemSchema).optional(),
  links: z.array(linkSchema).optional(),
});
export type PayoutBatch = z.infer<typeof payoutBatchSchema>;

/** One item of a create request, as the API takes it. */
export interface PayoutItemRequest {
  recipient_type?: string;
  amount: PayoutMoney;
  receiver: string;
  note?: string;
  sender_item_id?: string;
  recipient_wallet?: string;
  purpose?: string;
}

export interface CreatePayoutRequest {
  sender_batch_header: {
    sender_batch_id?: string;
    recipient_type?: string;
    email_subject?: string;
    email_message?: string;
    note?: string;
  };
  items: PayoutItemRequest[];
}

/** POST /v1/payments/payouts: the batch is accepted PENDING and processed in the background. */
export async function createPayoutBatch(
  client: ApiClient,
  request: CreatePayoutRequest,
  options: { requestId?: string } = {},
): Promise<CreatedPayoutBatch> {
  return call(client, createdBatchSchema, { method: 'POST', path: '/v1/payments/payouts', body: request, requestId: options.requestId });
}

export interface BatchPageOptions extends PageOptions {
  fields?: string;
}

/** GET /v1/payments/payouts/{id}: the header and one page of items. */
export async function getPayoutBatch(client: ApiClient, batchId: string, options: BatchPageOptions = {}): Promise<PayoutBatch> {
  const query = { ...pageQuery(options), fields: options.fields };
  return call(client, payoutBatchSchema, { method: 'GET', path: `/v1/payments/payouts/${encodeURIComponent(batchId)}`, query });
}

/** GET /v1/payments/payouts-item/{id}. */
export async function getPayoutItem(client: ApiClient, itemId: string): Promise<PayoutItem> {
  return call(client, payoutItemSchema, { method: 'GET', path: `/v1/payments/payouts-item/${encodeURIComponent(itemId)}` });
}

/** POST /v1/payments/payouts-item/{id}/cancel: an UNCLAIMED item becomes RETURNED. */
export async function cancelPayoutItem(client: ApiClient, itemId: string, options: { requestId?: string } = {}): Promise<PayoutItem> {
  return call(client, payoutItemSchema, { method: 'POST', path: `/v1/payments/payouts-item/${encodeURIComponent(itemId)}/cancel`, requestId: options.requestId });
}

export const FINAL_BATCH_STATUSES: readonly string[] = ['SUCCESS', 'DENIED', 'CANCELED'];
