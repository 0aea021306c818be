// /v2/checkout/orders and the payer's approval on the local server, one function per endpoint; and
// views of an authorization or capture with what is left and what happened, read from its order.

import { z } from 'zod';
import { fromMinorUnits, toMinorUnits, type Money } from '../money.js';
import type { ApiClient } from './client.js';
import {
  authorizationSchema,
  captureSchema,
  getAuthorization,
  getCapture,
  refundSchema,
  upId,
  type Authorization,
  type CallOptions,
  type Capture,
  type Refund,
} from './payments.js';
import { linkSchema } from './types.js';

const unitSchema = z.looseObject({
  reference_id: z.string().optional(),
  amount: z.looseObject({ currency_code: z.string(), value: z.string() }).optional(),
  payments: z
    .looseObject({
      authorizations: z.array(authorizationSchema).optional(),
      captures: z.array(captureSchema).optional(),
      refunds: z.array(refundSchema).optional(),
    })
    .optional(),
});

export const orderSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  intent: z.string().optional(),
  purchase_units: z.array(unitSchema).optional(),
  links: z.array(linkSchema).optional(),
});
export type Order = z.infer<typeof orderSchema>;

/** A test card the local server accepts: an order paid with it is approved at once. */
export const SANDBOX_CARD = { number: '4111111111111111', expiry: '2030-12', name: 'Sandbox Payer' } as const;

export interface NewOrder {
  intent: 'AUTHORIZE' | 'CAPTURE';
  amount: Money;
  invoiceId?: string;
  /** Pay with the sandbox card (approved at once) instead of waiting for the payer. */
  card?: boolean;
}

export async function createOrder(client: ApiClient, order: NewOrder, options: CallOptions = {}): Promise<Order> {
  const unit: Record<string, unknown> = { amount: order.amount };
  if (order.invoiceId) unit.invoice_id = order.invoiceId;
  const response = await client.request({
    method: 'POST',
    path: '/v2/checkout/orders',
    body: { intent: order.intent, purchase_units: [unit], ...(order.card ? { payment_source: { card: SANDBOX_CARD } } : {}) },
    prefer: 'return=representation',
    ...(options.requestId ? { requestId: options.requestId } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  return orderSchema.parse(response.body);
}

export async function getOrder(client: ApiClient, id: string): Promise<Order> {
  const response = await client.request({ method: 'GET', path: `/v2/checkout/orders/${encodeURIComponent(id)}` });
  return orderSchema.parse(response.body);
}

async function orderAction(client: ApiClient, id: string, action: 'authorize' | 'capture', options: CallOptions): Promise<Order> {
  const response = await client.request({
    method: 'POST',
    path: `/v2/checkout/orders/${encodeURIComponent(id)}/${action}`,
    body: {},
    prefer: 'return=representation',
    ...(options.requestId ? { requestId: options.requestId } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  return orderSchema.parse(response.body);
}

export const authorizeOrder = (client: ApiClient, id: string, options: CallOptions = {}) => orderAction(client, id, 'authorize', options);
export const captureOrder = (client: ApiClient, id: string, options: CallOptions = {}) => orderAction(client, id, 'capture', options);

/** Approves an order as its payer would (local server control plane). */
export async function approveOrder(client: ApiClient, id: string, options: CallOptions = {}): Promise<Order> {
  const response = await client.request({
    method: 'POST',
    path: `/_payctl/orders/${encodeURIComponent(id)}/approve`,
    body: {},
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
  return orderSchema.parse(response.body);
}

// Views across resources: what is left to capture or refund, and what happened, from the order.

/** Captures and refunds that count: declined or failed ones moved no money. */
const MOVED_MONEY = (status: string) => status !== 'DECLINED' && status !== 'FAILED';

export interface HistoryEntry {
  time: string;
  what: string;
  status: string;
  amount: Money | undefined;
  id: string;
}

function sumOf(items: ReadonlyArray<{ amount?: Money | undefined; status: string }>, currency: string): bigint {
  return items
    .filter((item) => MOVED_MONEY(item.status) && item.amount)
    .reduce((sum, item) => sum + toMinorUnits(item.amount?.value ?? '0', currency), 0n);
}

async function orderOf(client: ApiClient, resource: { supplementary_data?: { related_ids?: { order_id?: string | undefined } | undefined } | undefined }) {
  const orderId = resource.supplementary_data?.related_ids?.order_id;
  return orderId ? getOrder(client, orderId) : undefined;
}

const paymentsOf = (order: Order | undefined) => (order?.purchase_units ?? []).map((unit) => unit.payments ?? {});

export interface AuthorizationView {
  authorization: Authorization;
  captures: Capture[];
  captured: Money | undefined;
  /** Up to the authorized amount (the over-capture allowance is not shown). */
  capturable: Money | undefined;
  history: HistoryEntry[];
}

export async function authorizationView(client: ApiClient, id: string): Promise<AuthorizationView> {
  const authorization = await getAuthorization(client, id);
  const order = await orderOf(client, authorization);
  const captures = paymentsOf(order).flatMap((payments) => payments.captures ?? []).filter((capture) => upId(capture) === authorization.id);
  const currency = authorization.amount?.currency_code;
  const view: AuthorizationView = { authorization, captures, captured: undefined, capturable: undefined, history: [] };
  if (currency && authorization.amount) {
    const captured = sumOf(captures, currency);
    const open = authorization.status === 'CREATED' || authorization.status === 'PARTIALLY_CAPTURED';
    const left = toMinorUnits(authorization.amount.value, currency) - captured;
    view.captured = { currency_code: currency, value: fromMinorUnits(captured, currency) };
    view.capturable = { currency_code: currency, value: fromMinorUnits(open && left > 0n ? left : 0n, currency) };
  }
  view.history = [
    { time: authorization.create_time ?? '', what: 'authorized', status: 'CREATED', amount: authorization.amount, id: authorization.id },
    ...captures.map((capture) => ({ time: capture.create_time ?? '', what: 'capture', status: capture.status, amount: capture.amount, id: capture.id })),
  ];
  if (authorization.status === 'VOIDED') {
    const reason = authorization.status_details?.reason;
    view.history.push({ time: authorization.update_time ?? '', what: reason === 'EXPIRED' ? 'expired' : 'voided', status: 'VOIDED', amount: undefined, id: authorization.id });
  }
  return view;
}

export interface CaptureView {
  capture: Capture;
  refunds: Refund[];
  refunded: Money | undefined;
  refundable: Money | undefined;
  history: HistoryEntry[];
}

export async function captureView(client: ApiClient, id: string): Promise<CaptureView> {
  const capture = await getCapture(client, id);
  const order = await orderOf(client, capture);
  const refunds = paymentsOf(order).flatMap((payments) => payments.refunds ?? []).filter((refund) => upId(refund) === capture.id);
  const currency = capture.amount?.currency_code;
  const view: CaptureView = { capture, refunds, refunded: undefined, refundable: undefined, history: [] };
  if (currency && capture.amount) {
    const refunded = sumOf(refunds, currency);
    const open = capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED';
    view.refunded = { currency_code: currency, value: fromMinorUnits(refunded, currency) };
    view.refundable = { currency_code: currency, value: fromMinorUnits(open ? toMinorUnits(capture.amount.value, currency) - refunded : 0n, currency) };
  }
  view.history = [
    { time: capture.create_time ?? '', what: 'captured', status: capture.status, amount: capture.amount, id: capture.id },
    ...refunds.map((refund) => ({ time: refund.create_time ?? '', what: 'refund', status: refund.status, amount: refund.amount, id: refund.id })),
  ];
  return view;
}
