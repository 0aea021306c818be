// A stored order as the API's order resource, with its payments and links.

import { z } from 'zod';
import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { link, type Link } from '../http/links.js';
import { cardChecksJson, presentAuthorization, presentCapture, presentRefund, type Resource } from '../payments/present.js';
import { authorizationsOfOrder, capturesOfOrder, refundsOfCaptures } from '../payments/store.js';
import type { OrderRow } from './store.js';
import { trackersByUnit } from './trackers.js';
import { storedUnitSchema } from './units.js';

export const orderDetailsSchema = z.lazy(() =>
  z.object({
    purchase_units: z.array(storedUnitSchema),
    payment_source: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    payer: z.record(z.string(), z.unknown()).optional(),
    processing_instruction: z.string().optional(),
    application_context: z.record(z.string(), z.unknown()).optional(),
    /** AVS and CVV results of the card the order was paid with (payments' processor_response). */
    card_checks: cardChecksJson.optional(),
  }),
);
export type OrderDetails = z.output<typeof orderDetailsSchema>;

export const parseOrderDetails = (row: OrderRow): OrderDetails => orderDetailsSchema.parse(JSON.parse(row.details));

/** The page a payer opens to approve the order. */
export const approvePath = (orderId: string): string => `/checkoutnow?token=${orderId}`;

function orderLinks(row: OrderRow, baseUrl: string): Link[] {
  const self = `/v2/checkout/orders/${row.id}`;
  const links: Link[] = [link(baseUrl, self, 'self')];
  if (row.status === 'CREATED') links.push(link(baseUrl, approvePath(row.id), 'approve'));
  if (row.status === 'PAYER_ACTION_REQUIRED') links.push(link(baseUrl, approvePath(row.id), 'payer-action'));
  if (row.status === 'CREATED' || row.status === 'APPROVED') links.push(link(baseUrl, self, 'update', 'PATCH'));
  if (row.status !== 'COMPLETED' && row.status !== 'VOIDED') {
    const action = row.intent === 'AUTHORIZE' ? 'authorize' : 'capture';
    links.push(link(baseUrl, `${self}/${action}`, action, 'POST'));
  }
  return links;
}

/** Each purchase unit's authorizations, captures and refunds, as the order shows them, and its trackers. */
async function paymentsByUnit(ctx: ServiceContext, row: OrderRow) {
  const authorizations = await authorizationsOfOrder(ctx.db, ctx.accountId, row.id);
  const captures = await capturesOfOrder(ctx.db, ctx.accountId, row.id);
  const refunds = await refundsOfCaptures(ctx.db, ctx.accountId, captures.map((capture) => capture.id));
  const unitOfCapture = new Map(captures.map((capture) => [capture.id, capture.reference_id]));
  const byUnit = new Map<string, Record<string, Resource[]>>();
  const add = (unit: string, kind: string, resource: Resource) => {
    const payments = byUnit.get(unit) ?? {};
    (payments[kind] ??= []).push(resource);
    byUnit.set(unit, payments);
  };
  for (const authorization of authorizations) add(authorization.reference_id, 'authorizations', presentAuthorization(authorization, ctx.baseUrl, isoSeconds(ctx.now)));
  for (const capture of captures) add(capture.reference_id, 'captures', presentCapture(capture, ctx.baseUrl));
  for (const refund of refunds) add(unitOfCapture.get(refund.capture_id) ?? 'default', 'refunds', presentRefund(refund, ctx.baseUrl));
  // Only a captured order can have trackers.
  const trackers = captures.length > 0 ? await trackersByUnit(ctx, row.id, unitOfCapture) : new Map<string, Resource[]>();
  return { byUnit, trackers };
}

export async function presentOrder(ctx: ServiceContext, row: OrderRow): Promise<Resource> {
  const details = parseOrderDetails(row);
  const { byUnit: payments, trackers } = await paymentsByUnit(ctx, row);
  const resource = { id: row.id, status: row.status } as Resource;
  resource.intent = row.intent;
  if (details.payment_source) resource.payment_source = details.payment_source;
  if (details.processing_instruction) resource.processing_instruction = details.processing_instruction;
  resource.purchase_units = details.purchase_units.map((unit) => {
    const unitPayments = payments.get(unit.reference_id);
    const unitTrackers = trackers.get(unit.reference_id);
    const shown = unitTrackers ? { ...unit, shipping: { ...unit.shipping, trackers: unitTrackers } } : unit;
    return unitPayments ? { ...shown, payments: unitPayments } : shown;
  });
  if (details.payer) resource.payer = details.payer;
  resource.create_time = row.create_time;
  resource.update_time = row.update_time;
  resource.links = orderLinks(row, ctx.baseUrl);
  return resource;
}
