// What the order of a captured payment knows of its payer, shipping and cart, as the report's
// payer_info, shipping_info and cart_info: read through the payments and orders interfaces.

import type { ServiceContext } from '../core/deps.js';
import { ServiceError } from '../http/errors.js';
import type { DetailField } from './schema.js';
import type { ReportRow } from './store.js';
import type { CartInfo, OrderParts, PayerInfo, ShippingInfo } from './types.js';

type Json = Record<string, any>;

/** The order, or undefined when it no longer exists (a reset); any other failure fails the request. */
async function orderOrNothing(ctx: ServiceContext, orderId: string): Promise<unknown> {
  try {
    return await ctx.deps.domains.orders.getOrder(ctx, orderId);
  } catch (error) {
    if (error instanceof ServiceError && error.errorName === 'RESOURCE_NOT_FOUND') return undefined;
    throw error;
  }
}

/** The capture a movement belongs to: its own (a capture) or the one it follows from (refund, reversal). */
function captureIdOf(row: ReportRow): string | undefined {
  if (row.kind === 'CAPTURE') return row.reference_id;
  if ((row.kind === 'REFUND' || row.kind === 'REVERSAL') && row.related_id !== null) return row.related_id;
  return undefined;
}

function payerInfo(payer: Json | undefined): PayerInfo | undefined {
  if (!payer) return undefined;
  const info: Json = {};
  if (typeof payer.payer_id === 'string') info.account_id = payer.payer_id;
  if (typeof payer.email_address === 'string') info.email_address = payer.email_address;
  if (payer.name && typeof payer.name === 'object') {
    const name: Json = {};
    if (payer.name.given_name) name.given_name = payer.name.given_name;
    if (payer.name.surname) name.surname = payer.name.surname;
    if (Object.keys(name).length > 0) info.payer_name = name;
  }
  if (typeof payer.address?.country_code === 'string') info.country_code = payer.address.country_code;
  return Object.keys(info).length > 0 ? info : undefined;
}

function shippingInfo(shipping: Json | undefined): ShippingInfo | undefined {
  if (!shipping) return undefined;
  const info: Json = {};
  if (typeof shipping.name?.full_name === 'string') info.name = shipping.name.full_name;
  const address = shipping.address as Json | undefined;
  // The report's address needs a first line, a city and a country.
  if (address?.address_line_1 && address.admin_area_2 && address.country_code) {
    info.address = {
      line1: address.address_line_1,
      ...(address.address_line_2 ? { line2: address.address_line_2 } : {}),
      city: address.admin_area_2,
      ...(address.admin_area_1 ? { state: address.admin_area_1 } : {}),
      country_code: address.country_code,
      ...(address.postal_code ? { postal_code: address.postal_code } : {}),
    };
  }
  return Object.keys(info).length > 0 ? info : undefined;
}

function cartInfo(items: Json[] | undefined): CartInfo | undefined {
  if (!items || items.length === 0) return undefined;
  return {
    item_details: items.map((item) => ({
      ...(item.sku ? { item_code: item.sku } : {}),
      ...(item.name ? { item_name: item.name } : {}),
      ...(item.description ? { item_description: item.description } : {}),
      ...(item.quantity ? { item_quantity: item.quantity } : {}),
      ...(item.unit_amount ? { item_unit_price: item.unit_amount } : {}),
    })),
  };
}

/** Per movement seq, the order's parts the search asked for (one order read per capture on the page). */
export async function orderPartsOf(ctx: ServiceContext, rows: readonly ReportRow[], fields: ReadonlySet<DetailField>): Promise<Map<bigint, OrderParts>> {
  const parts = new Map<bigint, OrderParts>();
  if (!fields.has('payer_info') && !fields.has('shipping_info') && !fields.has('cart_info')) return parts;
  const byCapture = new Map<string, OrderParts>();
  for (const row of rows) {
    const captureId = captureIdOf(row);
    if (captureId === undefined) continue;
    let found = byCapture.get(captureId);
    if (found === undefined) {
      found = {};
      const capture = await ctx.deps.domains.payments.findCapture(ctx, captureId);
      const order = capture ? ((await orderOrNothing(ctx, capture.orderId)) as Json | undefined) : undefined;
      const unit = (order?.purchase_units as Json[] | undefined)?.find((candidate) =>
        (candidate.payments?.captures as Json[] | undefined)?.some((entry) => entry.id === captureId),
      );
      const payer = fields.has('payer_info') ? payerInfo(order?.payer) : undefined;
      const shipping = fields.has('shipping_info') ? shippingInfo(unit?.shipping) : undefined;
      const cart = fields.has('cart_info') ? cartInfo(unit?.items) : undefined;
      if (payer) found.payer_info = payer;
      if (shipping) found.shipping_info = shipping;
      if (cart) found.cart_info = cart;
      byCapture.set(captureId, found);
    }
    parts.set(BigInt(row.seq), found);
  }
  return parts;
}
