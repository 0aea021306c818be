// Shipment tracking on an order's captures: add a tracker (POST …/track), change or cancel it
// (PATCH …/trackers/{tracker_id}), and the trackers as the order shows them.

import { z } from 'zod';
import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { notFound, serviceError } from '../http/errors.js';
import { checkPatchOperation, patchPath, patchValue, type PatchOp } from '../http/json-patch.js';
import { link, type Link } from '../http/links.js';
import { parseOrderDetails } from './present.js';
import { trackerItemsSchema, type PatchRequest, type TrackerItem, type TrackerRequest } from './schema.js';
import { assertTrackerCanChange, trackerStatusOf, type TrackerStatus } from './states.js';
import * as store from './store.js';

const trackerDetailsSchema = z.object({
  tracking_number: z.string(),
  carrier: z.string(),
  carrier_name_other: z.string().optional(),
  tracking_number_type: z.string().optional(),
  shipment_date: z.string().optional(),
  notify_payer: z.boolean(),
  items: z.array(z.object({}).loose()).optional(),
});
type TrackerDetails = z.output<typeof trackerDetailsSchema>;

const trackerPath = (orderId: string, trackerId: string) =>
  `/v2/checkout/orders/${orderId}/trackers/${encodeURIComponent(trackerId)}`;

/** A tracker as the order shows it (purchase_units[].shipping.trackers[]). */
export interface Tracker {
  id: string;
  status: string;
  items?: TrackerDetails['items'];
  links: Link[];
  create_time: string;
  update_time: string;
}

export function presentTracker(row: store.TrackerRow, baseUrl: string): Tracker {
  const details = trackerDetailsSchema.parse(JSON.parse(row.details));
  const links: Link[] = [
    link(baseUrl, `/v2/checkout/orders/${row.order_id}`, 'up', 'GET'),
    link(baseUrl, trackerPath(row.order_id, row.id), 'update', 'PATCH'),
  ];
  return {
    id: row.id,
    status: row.status,
    ...(details.items && details.items.length > 0 ? { items: details.items } : {}),
    links,
    create_time: row.create_time,
    update_time: row.update_time,
  };
}

/** The order's trackers by purchase unit reference_id (through the capture each one is on). */
export async function trackersByUnit(ctx: ServiceContext, orderId: string, unitOfCapture: Map<string, string>): Promise<Map<string, Tracker[]>> {
  const byUnit = new Map<string, Tracker[]>();
  for (const row of await store.trackersOfOrder(ctx.db, ctx.accountId, orderId)) {
    const unit = unitOfCapture.get(row.capture_id) ?? 'default';
    byUnit.set(unit, [...(byUnit.get(unit) ?? []), presentTracker(row, ctx.baseUrl)]);
  }
  return byUnit;
}

/** Every sku a tracker names must be one of the order's items. */
function checkSkus(items: readonly TrackerItem[], orderSkus: ReadonlySet<string>, pointer: string): void {
  items.forEach((item, index) => {
    if (item.sku !== undefined && !orderSkus.has(item.sku)) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'ITEM_SKU_MISMATCH', "The item's sku is not one of the order's items.", {
        field: `${pointer}/${index}/sku`,
        value: item.sku,
      });
    }
  });
}

/** The order (locked: its trackers are checked, then written, under the order's lock). */
async function orderFacts(ctx: ServiceContext, orderId: string) {
  const row = await store.findOrder(ctx.db, ctx.accountId, orderId, { forUpdate: true });
  if (!row) throw notFound('order', orderId);
  const details = parseOrderDetails(row);
  const skus = new Set(
    details.purchase_units.flatMap((unit) => (unit.items ?? []).map((item) => item.sku).filter((sku): sku is string => typeof sku === 'string')),
  );
  return { row, units: details.purchase_units.length, skus };
}

/** Adds tracking information for a shipment of one of the order's completed captures. */
export async function addTracker(ctx: ServiceContext, orderId: string, input: TrackerRequest): Promise<void> {
  if (input.carrier === 'OTHER' && input.carrier_name_other === undefined) {
    throw serviceError('INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'With carrier OTHER, give carrier_name_other.', { field: '/carrier_name_other' });
  }
  if (input.transaction_id !== undefined && input.transaction_id !== input.capture_id) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'transaction_id, when given, must be the capture_id.', {
      field: '/transaction_id',
      value: input.transaction_id,
    });
  }
  if (input.status === 'CANCELLED') {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'A new tracker cannot be CANCELLED.', { field: '/status', value: input.status });
  }
  const order = await orderFacts(ctx, orderId);
  if (order.units > 1) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'MSP_NOT_SUPPORTED', 'Tracking is not supported on an order with several purchase units.');
  }
  const capture = (await ctx.deps.domains.payments.capturesOfOrder(ctx, orderId)).find((row) => row.id === input.capture_id);
  if (!capture) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CAPTURE_ID_NOT_FOUND', 'This order has no capture with this id.', {
      field: '/capture_id',
      value: input.capture_id,
    });
  }
  if (capture.status !== 'COMPLETED') {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CAPTURE_STATUS_NOT_VALID', `Tracking can be added to a COMPLETED capture; this one is ${capture.status}.`, {
      field: '/capture_id',
      value: input.capture_id,
    });
  }
  checkSkus(input.items ?? [], order.skus, '/items');
  const details: TrackerDetails = {
    tracking_number: input.tracking_number,
    carrier: input.carrier,
    notify_payer: input.notify_payer,
    ...(input.carrier_name_other !== undefined ? { carrier_name_other: input.carrier_name_other } : {}),
    ...(input.tracking_number_type !== undefined ? { tracking_number_type: input.tracking_number_type } : {}),
    ...(input.shipment_date !== undefined ? { shipment_date: input.shipment_date } : {}),
    ...(input.items !== undefined ? { items: input.items } : {}),
  };
  // The public API names a tracker after its capture and tracking number.
  const id = `${input.capture_id}-${input.tracking_number}`;
  const now = isoSeconds(ctx.now);
  const existing = await store.findTracker(ctx.db, ctx.accountId, orderId, id);
  if (existing && existing.status !== 'CANCELLED') {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TRACKER_ALREADY_EXISTS', 'This capture already has a tracker with this tracking number; patch it instead.', {
      field: '/tracking_number',
      value: input.tracking_number,
    });
  }
  const changes = { status: input.status, details: JSON.stringify(details), create_time: now, update_time: now };
  if (existing) await store.updateTracker(ctx.db, ctx.accountId, id, changes);
  else await store.insertTracker(ctx.db, { id, account_id: ctx.accountId, order_id: orderId, capture_id: input.capture_id, ...changes });
}

const TRACKER_PATHS: Record<string, readonly PatchOp[]> = {
  '/items': ['replace'],
  '/notify_payer': ['replace', 'add'],
  '/status': ['replace'],
};

/** Changes a tracker's items or payer notice, or cancels it (the only status change the API allows). */
export async function patchTracker(ctx: ServiceContext, orderId: string, trackerId: string, operations: PatchRequest): Promise<void> {
  const order = await orderFacts(ctx, orderId);
  const row = await store.findTracker(ctx.db, ctx.accountId, orderId, trackerId);
  if (!row) {
    throw serviceError('RESOURCE_NOT_FOUND', 'TRACKER_ID_NOT_FOUND', 'This order has no tracker with this id.', {
      field: 'tracker_id',
      value: trackerId,
      location: 'path',
    });
  }
  assertTrackerCanChange(row.id, trackerStatusOf(row.status));
  const details = trackerDetailsSchema.parse(JSON.parse(row.details));
  let status: TrackerStatus = trackerStatusOf(row.status);
  operations.forEach((operation, index) => {
    const path = patchPath(operation, index);
    const allowed = TRACKER_PATHS[path];
    if (!allowed) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'NOT_PATCHABLE', `${path} cannot be patched: only /items, /notify_payer and /status.`, {
        field: `/${index}/path`,
        value: path,
      });
    }
    checkPatchOperation(operation, index, path, allowed);
    if (path === '/status') {
      if (operation.value !== 'CANCELLED') {
        throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'The only status a tracker can be patched to is CANCELLED.', {
          field: `/${index}/value`,
          value: operation.value,
        });
      }
      status = 'CANCELLED';
    } else if (path === '/notify_payer') {
      details.notify_payer = patchValue(z.boolean(), operation.value, index);
    } else {
      const items = patchValue(trackerItemsSchema, operation.value, index);
      checkSkus(items, order.skus, `/${index}/value`);
      details.items = items;
    }
  });
  await store.updateTracker(ctx.db, ctx.accountId, row.id, { status, details: JSON.stringify(details), update_time: isoSeconds(ctx.now) });
}
