// /v2/checkout/orders and the payer's approval on the local server, one function per endpoint; and
// views of an authorization or capture with what is left and what happened, read from its order.

import { z } from 'zod';
import { fromMinorUnits, toMinorUnits, type Money } from '../money.js';
import { call } from './call.js';
import type { ApiClient } from './client.js';
import { UsageError } from './errors.js';
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
import { linkSchema, moneySchema, timestamps } from './types.js';

const trackerSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  items: z.array(z.looseObject({ sku: z.string().optional(), name: z.string().optional(), quantity: z.string().optional() })).optional(),
  ...timestamps,
});
export type Tracker = z.infer<typeof trackerSchema>;

const unitSchema = z.looseObject({
  reference_id: z.string().optional(),
  shipping: z.looseObject({ trackers: z.array(trackerSchema).optional() }).optional(),
  amount: moneySchema.optional(),
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

const orderPath = (id: string) => `/v2/checkout/orders/${encodeURIComponent(id)}`;

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
  const body = { intent: order.intent, purchase_units: [unit], ...(order.card ? { payment_source: { card: SANDBOX_CARD } } : {}) };
  return postForOrder(client, '/v2/checkout/orders', body, options);
}

export async function getOrder(client: ApiClient, id: string): Promise<Order> {
  return call(client, orderSchema, { method: 'GET', path: orderPath(id) });
}

/** A POST answering the order in full; the request id and extra headers come from `options`. */
function postForOrder(client: ApiClient, path: string, body: unknown, options: CallOptions): Promise<Order> {
  return call(client, orderSchema, { method: 'POST', path, body, prefer: 'return=representation', requestId: options.requestId, headers: options.headers });
}

async function orderAction(client: ApiClient, id: string, action: 'authorize' | 'capture', options: CallOptions): Promise<Order> {
  return postForOrder(client, `${orderPath(id)}/${action}`, {}, options);
}

export const authorizeOrder = (client: ApiClient, id: string, options: CallOptions = {}) => orderAction(client, id, 'authorize', options);
export const captureOrder = (client: ApiClient, id: string, options: CallOptions = {}) => orderAction(client, id, 'capture', options);

/** Approves an order as its payer would (local server control plane). */
export async function approveOrder(client: ApiClient, id: string, options: CallOptions = {}): Promise<Order> {
  return call(client, orderSchema, { method: 'POST', path: `/_payctl/orders/${encodeURIComponent(id)}/approve`, body: {}, requestId: options.requestId });
}

export interface NewTracker {
  /** Without it, the order's only capture. */
  captureId?: string | undefined;
  trackingNumber: string;
  carrier: string;
  carrierNameOther?: string | undefined;
  status?: string | undefined;
  notifyPayer?: boolean | undefined;
  skus?: readonly string[] | undefined;
}

/** The id of the order's only capture; with none or several, the caller must name one. */
async function onlyCaptureOf(client: ApiClient, orderId: string): Promise<string> {
  const captures = ((await getOrder(client, orderId)).purchase_units ?? []).flatMap((unit) => unit.payments?.captures ?? []);
  const [only] = captures;
  if (captures.length !== 1 || !only) throw new UsageError(`order ${orderId} has ${captures.length} captures: pass --capture-id`);
  return only.id;
}

/** POST …/track: tracking information for a shipment of one capture; answers the order. */
export async function addTracker(client: ApiClient, orderId: string, tracker: NewTracker, options: CallOptions = {}): Promise<Order> {
  const body: Record<string, unknown> = {
    capture_id: tracker.captureId ?? (await onlyCaptureOf(client, orderId)),
    tracking_number: tracker.trackingNumber,
    carrier: tracker.carrier,
  };
  if (tracker.carrierNameOther) body.carrier_name_other = tracker.carrierNameOther;
  if (tracker.status) body.status = tracker.status;
  if (tracker.notifyPayer !== undefined) body.notify_payer = tracker.notifyPayer;
  if (tracker.skus && tracker.skus.length > 0) body.items = tracker.skus.map((sku) => ({ sku }));
  return call(client, orderSchema, { method: 'POST', path: `${orderPath(orderId)}/track`, body, requestId: options.requestId });
}

export interface TrackerChange {
  status?: 'CANCELLED' | undefined;
  notifyPayer?: boolean | undefined;
}

/** PATCH …/trackers/{id} (answers 204); returns the order as it now is. */
export async function updateTracker(client: ApiClient, orderId: string, trackerId: string, change: TrackerChange, options: CallOptions = {}): Promise<Order> {
  const operations: Array<Record<string, unknown>> = [];
  if (change.status) operations.push({ op: 'replace', path: '/status', value: change.status });
  if (change.notifyPayer !== undefined) operations.push({ op: 'add', path: '/notify_payer', value: change.notifyPayer });
  await client.request({ method: 'PATCH', path: `${orderPath(orderId)}/trackers/${encodeURIComponent(trackerId)}`, body: operations, requestId: options.requestId });
  return getOrder(client, orderId);
}

export interface OrderChange {
  invoiceId?: string | undefined;
  customId?: string | undefined;
  description?: string | undefined;
}

/**
 * PATCH of a purchase unit's invoice_id, custom_id and description (answers 204): `add` where the
 * field is absent, `replace` where present, as the API requires. Returns the order as it now is.
 */
export async function updateOrder(client: ApiClient, orderId: string, referenceId: string, change: OrderChange, options: CallOptions = {}): Promise<Order> {
  const units = (await getOrder(client, orderId)).purchase_units ?? [];
  const index = units.findIndex((candidate) => (candidate.reference_id ?? 'default') === referenceId);
  const unit = units[index];
  if (!unit) throw new UsageError(`order ${orderId} has no purchase unit with reference id ${referenceId}: pass --reference-id`);
  const fields: Array<[string, string | undefined]> = [
    ['invoice_id', change.invoiceId],
    ['custom_id', change.customId],
    ['description', change.description],
  ];
  const operations = fields
    .filter((field): field is [string, string] => field[1] !== undefined)
    .map(([name, value]) => ({
      op: unit[name] === undefined ? 'add' : 'replace',
      // The index form: a reference id may hold a quote, which the @reference_id filter cannot.
      path: `/purchase_units/${index}/${name}`,
      value,
    }));
  await client.request({ method: 'PATCH', path: orderPath(orderId), body: operations, requestId: options.requestId });
  return getOrder(client, orderId);
}

/** The order's trackers, each with the reference id of its purchase unit. */
export function trackersOf(order: Order): Array<Tracker & { reference_id: string }> {
  return (order.purchase_units ?? []).flatMap((unit) =>
    (unit.shipping?.trackers ?? []).map((tracker) => ({ ...tracker, reference_id: unit.reference_id ?? 'default' })),
  );
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

type Movement = { id: string; status: string; amount?: Money | undefined; create_time?: string | undefined };

/** A resource's creation as a history entry (`status` when the entry names another than its current one). */
const created = (resource: Movement, what: string, status = resource.status): HistoryEntry => ({
  time: resource.create_time ?? '',
  what,
  status,
  amount: resource.amount,
  id: resource.id,
});

/**
 * What the children of a payment (captures of an authorization, refunds of a capture) moved, and
 * what is left of its amount while it is open; undefined when the payment carries no amount.
 */
function movedAndLeft(amount: Money | undefined, children: readonly Movement[], open: boolean): { moved: Money; left: Money } | undefined {
  const currency = amount?.currency_code;
  if (!currency || !amount) return undefined;
  const moved = children
    .filter((child) => MOVED_MONEY(child.status) && child.amount)
    .reduce((sum, child) => sum + toMinorUnits(child.amount?.value ?? '0', currency), 0n);
  const left = toMinorUnits(amount.value, currency) - moved;
  const money = (minor: bigint): Money => ({ currency_code: currency, value: fromMinorUnits(minor, currency) });
  return { moved: money(moved), left: money(open && left > 0n ? left : 0n) };
}

type OrderPayments = NonNullable<NonNullable<Order['purchase_units']>[number]['payments']>;

/** The captures or refunds (`pick`) in the payment's order whose `up` link names the payment; none without an order. */
async function childrenOf<T extends Parameters<typeof upId>[0]>(
  client: ApiClient,
  payment: { id: string; supplementary_data?: { related_ids?: { order_id?: string | undefined } | undefined } | undefined },
  pick: (payments: OrderPayments) => T[] | undefined,
): Promise<T[]> {
  const orderId = payment.supplementary_data?.related_ids?.order_id;
  const units = (orderId ? (await getOrder(client, orderId)).purchase_units : undefined) ?? [];
  return units.flatMap((unit) => (unit.payments ? (pick(unit.payments) ?? []) : [])).filter((child) => upId(child) === payment.id);
}

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
  const captures = await childrenOf(client, authorization, (payments) => payments.captures);
  const open = authorization.status === 'CREATED' || authorization.status === 'PARTIALLY_CAPTURED';
  const totals = movedAndLeft(authorization.amount, captures, open);
  const history = [created(authorization, 'authorized', 'CREATED'), ...captures.map((capture) => created(capture, 'capture'))];
  if (authorization.status === 'VOIDED') {
    const reason = authorization.status_details?.reason;
    history.push({ time: authorization.update_time ?? '', what: reason === 'EXPIRED' ? 'expired' : 'voided', status: 'VOIDED', amount: undefined, id: authorization.id });
  }
  return { authorization, captures, captured: totals?.moved, capturable: totals?.left, history };
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
  const refunds = await childrenOf(client, capture, (payments) => payments.refunds);
  const open = capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED';
  const totals = movedAndLeft(capture.amount, refunds, open);
  const history = [created(capture, 'captured'), ...refunds.map((refund) => created(refund, 'refund'))];
  return { capture, refunds, refunded: totals?.moved, refundable: totals?.left, history };
}
