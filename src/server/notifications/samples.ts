// Sample resources for simulated events: the right shape for each event type, with fresh ids.

import { addSeconds, isoSeconds } from '../core/clock.js';
import { prefixedId, transactionId, upperId, type IdGenerator } from '../core/ids.js';
import type { EventLink } from '../core/events.js';

export interface SampleResource {
  resourceType: string;
  resourceId: string;
  resource: Record<string, unknown>;
  summary: string;
}

interface SampleContext {
  ids: IdGenerator;
  now: Date;
  baseUrl: string;
}

const amount = { currency_code: 'USD', value: '100.00' };
const ref = (baseUrl: string, path: string, rel: string, method = 'GET'): EventLink => ({ href: `${baseUrl}${path}`, rel, method });

function capture(ctx: SampleContext, status: string, statusDetails?: Record<string, string>): SampleResource {
  const id = transactionId(ctx.ids);
  const authorization = transactionId(ctx.ids);
  const time = isoSeconds(ctx.now);
  const resource: Record<string, unknown> = {
    id,
    status,
    ...(statusDetails ? { status_details: statusDetails } : {}),
    amount,
    final_capture: true,
    seller_protection: { status: 'ELIGIBLE', dispute_categories: ['ITEM_NOT_RECEIVED', 'UNAUTHORIZED_TRANSACTION'] },
    seller_receivable_breakdown: {
      gross_amount: amount,
      paypal_fee: { currency_code: 'USD', value: '3.98' },
      net_amount: { currency_code: 'USD', value: '96.02' },
    },
    create_time: time,
    update_time: time,
    links: [
      ref(ctx.baseUrl, `/v2/payments/captures/${id}`, 'self'),
      ref(ctx.baseUrl, `/v2/payments/captures/${id}/refund`, 'refund', 'POST'),
      ref(ctx.baseUrl, `/v2/payments/authorizations/${authorization}`, 'up'),
    ],
  };
  return { resourceType: 'capture', resourceId: id, resource, summary: `Payment capture ${status.toLowerCase()} (sample)` };
}

function authorization(ctx: SampleContext, status: string): SampleResource {
  const id = transactionId(ctx.ids);
  const time = isoSeconds(ctx.now);
  const resource = {
    id,
    status,
    amount,
    expiration_time: isoSeconds(addSeconds(ctx.now, 29 * 86_400)),
    create_time: time,
    update_time: time,
    links: [ref(ctx.baseUrl, `/v2/payments/authorizations/${id}`, 'self')],
  };
  return { resourceType: 'authorization', resourceId: id, resource, summary: `Payment authorization ${status.toLowerCase()} (sample)` };
}

function refund(ctx: SampleContext): SampleResource {
  const id = transactionId(ctx.ids);
  const captureId = transactionId(ctx.ids);
  const time = isoSeconds(ctx.now);
  const resource = {
    id,
    status: 'COMPLETED',
    amount: { currency_code: 'USD', value: '25.00' },
    create_time: time,
    update_time: time,
    links: [ref(ctx.baseUrl, `/v2/payments/refunds/${id}`, 'self'), ref(ctx.baseUrl, `/v2/payments/captures/${captureId}`, 'up')],
  };
  return { resourceType: 'refund', resourceId: id, resource, summary: 'A capture was refunded (sample)' };
}

function dispute(ctx: SampleContext, status: string): SampleResource {
  const id = `PP-D-${upperId(ctx.ids, 5)}`;
  const time = isoSeconds(ctx.now);
  const resource = {
    dispute_id: id,
    create_time: time,
    update_time: time,
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    status,
    dispute_amount: amount,
    dispute_life_cycle_stage: 'INQUIRY',
    links: [ref(ctx.baseUrl, `/v1/customer/disputes/${id}`, 'self')],
  };
  return { resourceType: 'dispute', resourceId: id, resource, summary: `Dispute ${status.toLowerCase()} (sample)` };
}

function payoutBatch(ctx: SampleContext, status: string): SampleResource {
  const id = upperId(ctx.ids, 13);
  const resource = {
    batch_header: {
      payout_batch_id: id,
      batch_status: status,
      time_created: isoSeconds(ctx.now),
      sender_batch_header: { sender_batch_id: `sample-${upperId(ctx.ids, 8).toLowerCase()}` },
      amount: { currency: 'USD', value: '100.00' },
      fees: { currency: 'USD', value: '0.00' },
    },
    links: [ref(ctx.baseUrl, `/v1/payments/payouts/${id}`, 'self')],
  };
  return { resourceType: 'payouts', resourceId: id, resource, summary: `Payout batch ${status.toLowerCase()} (sample)` };
}

function payoutItem(ctx: SampleContext, status: string): SampleResource {
  const id = upperId(ctx.ids, 13);
  const resource = {
    payout_item_id: id,
    transaction_id: transactionId(ctx.ids),
    transaction_status: status,
    payout_batch_id: upperId(ctx.ids, 13),
    payout_item_fee: { currency: 'USD', value: '0.25' },
    payout_item: {
      recipient_type: 'EMAIL',
      amount: { currency: 'USD', value: '10.00' },
      receiver: 'receiver@example.com',
    },
    time_processed: isoSeconds(ctx.now),
    links: [ref(ctx.baseUrl, `/v1/payments/payouts-item/${id}`, 'self')],
  };
  return { resourceType: 'payouts_item', resourceId: id, resource, summary: `Payout item ${status.toLowerCase()} (sample)` };
}

function invoice(ctx: SampleContext, status: string): SampleResource {
  const id = `INV2-${upperId(ctx.ids, 4)}-${upperId(ctx.ids, 4)}-${upperId(ctx.ids, 4)}-${upperId(ctx.ids, 4)}`;
  const resource = {
    id,
    status,
    detail: { invoice_number: upperId(ctx.ids, 6), currency_code: 'USD', invoice_date: isoSeconds(ctx.now).slice(0, 10) },
    amount,
    links: [ref(ctx.baseUrl, `/v2/invoicing/invoices/${id}`, 'self')],
  };
  return { resourceType: 'invoices', resourceId: id, resource, summary: `Invoice ${status.toLowerCase()} (sample)` };
}

function order(ctx: SampleContext, status: string): SampleResource {
  const id = upperId(ctx.ids, 17);
  const resource = {
    id,
    status,
    intent: 'CAPTURE',
    purchase_units: [{ reference_id: 'default', amount }],
    create_time: isoSeconds(ctx.now),
    links: [ref(ctx.baseUrl, `/v2/checkout/orders/${id}`, 'self')],
  };
  return { resourceType: 'checkout-order', resourceId: id, resource, summary: `Order ${status.toLowerCase()} (sample)` };
}

const lastWord = (eventType: string): string => eventType.slice(eventType.lastIndexOf('.') + 1);

/** A sample resource for a known event type. */
export function sampleResource(eventType: string, ctx: SampleContext): SampleResource {
  const word = lastWord(eventType);
  if (eventType === 'PAYMENT.CAPTURE.REFUNDED') return refund(ctx);
  if (eventType === 'PAYMENT.CAPTURE.PENDING') return capture(ctx, 'PENDING', { reason: 'VERIFICATION_REQUIRED' });
  if (eventType.startsWith('PAYMENT.CAPTURE.')) return capture(ctx, word);
  if (eventType.startsWith('PAYMENT.AUTHORIZATION.')) return authorization(ctx, word);
  if (eventType.startsWith('CUSTOMER.DISPUTE.')) return dispute(ctx, word === 'CREATED' ? 'OPEN' : word === 'RESOLVED' ? 'RESOLVED' : 'WAITING_FOR_SELLER_RESPONSE');
  if (eventType.startsWith('PAYMENT.PAYOUTSBATCH.')) return payoutBatch(ctx, word);
  if (eventType.startsWith('PAYMENT.PAYOUTS-ITEM.')) return payoutItem(ctx, word === 'SUCCEEDED' ? 'SUCCESS' : word);
  if (eventType.startsWith('INVOICING.INVOICE.')) return invoice(ctx, word === 'CREATED' || word === 'UPDATED' ? 'DRAFT' : word);
  return order(ctx, word);
}

export const mockEventId = (ids: IdGenerator): string => prefixedId(ids, 'WH', 20);
