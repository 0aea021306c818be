// A stored order as the API's order resource, with its payments and links.

import { z } from 'zod';
import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { link, type Link } from '../http/links.js';
import { cardChecksJson, type PaymentResource } from '../payments/api.js';
import type { Money } from '../../lib/money.js';
import type { PurchaseUnitInput } from './schema.js';
import type { OrderStatus } from './states.js';
import type { OrderRow } from './store.js';
import { trackersByUnit, type Tracker } from './trackers.js';
import { storedUnitSchema } from './units.js';

export const orderDetailsSchema = z.object({
  purchase_units: z.array(storedUnitSchema),
  payment_source: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  payer: z.record(z.string(), z.unknown()).optional(),
  processing_instruction: z.string().optional(),
  application_context: z.record(z.string(), z.unknown()).optional(),
  /** AVS and CVV results of the card the order was paid with (payments' processor_response). */
  card_checks: cardChecksJson.optional(),
});
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

/** A purchase unit's payments as the order shows them. */
type UnitPayments = { authorizations?: PaymentResource[]; captures?: PaymentResource[]; refunds?: PaymentResource[] };

/** An item of a purchase unit: its amounts normalised to the unit's currency (units.ts). */
export type OrderItem = Omit<NonNullable<PurchaseUnitInput['items']>[number], 'unit_amount' | 'tax'> & { unit_amount: Money; tax?: Money };

/** `amount`: the unit's total and, when the caller gave it, its breakdown (the parts payments/schema.ts takes, gratuity among them). */
export type OrderAmount = Money & {
  breakdown?: Partial<Record<'item_total' | 'shipping' | 'handling' | 'tax_total' | 'insurance' | 'gratuity' | 'shipping_discount' | 'discount', Money>>;
};

/**
 * `shipping`, as the caller gave it (the create schema does not check its fields), with the
 * trackers of its shipments once the unit is captured.
 */
export interface OrderShipping {
  name?: PersonName;
  type?: 'SHIPPING' | 'PICKUP_IN_PERSON' | 'PICKUP_IN_STORE' | 'PICKUP_FROM_PERSON';
  options?: Array<{ id: string; label: string; type?: string; amount?: Money; selected: boolean }>;
  address?: PortableAddress;
  trackers?: Tracker[];
}

/** `payment_instruction`, as the caller gave it. */
export interface PaymentInstruction {
  platform_fees?: Array<{ amount: Money; payee?: { email_address?: string; merchant_id?: string } }>;
  disbursement_mode?: 'INSTANT' | 'DELAYED';
  payee_pricing_tier_id?: string;
  payee_receivable_fx_rate_id?: string;
}

/** `supplementary_data`, as the caller gave it or patched it in (patch.ts): passed through, not read. */
export interface SupplementaryData {
  card?: { level_2?: object; level_3?: object };
  airline?: object;
}

/** A purchase unit as the order shows it: as stored, with its payments and its shipment's trackers. */
export interface OrderUnit {
  reference_id: string;
  amount: OrderAmount;
  payee: { email_address: string; merchant_id: string };
  payment_instruction?: PaymentInstruction;
  description?: string;
  custom_id?: string;
  invoice_id?: string;
  soft_descriptor?: string;
  items?: OrderItem[];
  shipping?: OrderShipping;
  supplementary_data?: SupplementaryData;
  payments?: UnitPayments;
}

/** A card as the order shows it: never its number or security code. */
export interface CardSourceResponse {
  last_digits: string;
  brand: 'VISA' | 'MASTERCARD' | 'AMEX' | 'UNKNOWN';
  type: 'CREDIT';
  expiry: string;
  name?: string;
}

/**
 * `payment_source`: one method. A card is masked (orders/service.ts maskedSource); any other method
 * (`paypal` when the payer approved without one) is shown with the fields it was given.
 */
export type OrderPaymentSource = { card: CardSourceResponse } | { [method: string]: Record<string, unknown> };

/** A name as the API spells its parts. */
export interface PersonName {
  prefix?: string;
  given_name?: string;
  surname?: string;
  middle_name?: string;
  suffix?: string;
  alternate_full_name?: string;
  full_name?: string;
}

/** A postal address (address_portable). */
export interface PortableAddress {
  address_line_1?: string;
  address_line_2?: string;
  address_line_3?: string;
  admin_area_4?: string;
  admin_area_3?: string;
  admin_area_2?: string;
  admin_area_1?: string;
  postal_code?: string;
  country_code: string;
}

/**
 * `payer`, shown as the caller gave it. The create schema takes the object without checking its
 * fields (orders/schema.ts), so this type names the API's fields rather than proving them.
 */
export interface OrderPayer {
  name?: PersonName;
  email_address?: string;
  payer_id?: string;
  phone?: { phone_type?: 'FAX' | 'HOME' | 'MOBILE' | 'OTHER' | 'PAGER'; phone_number: { national_number: string } };
  birth_date?: string;
  tax_info?: { tax_id: string; tax_id_type: 'BR_CPF' | 'BR_CNPJ' };
  address?: PortableAddress;
}

/** The API's order (declared once here; the CLI's client parses what it shows, src/lib/api/orders.ts). */
export interface Order {
  id: string;
  status: OrderStatus;
  intent: 'CAPTURE' | 'AUTHORIZE';
  payment_source?: OrderPaymentSource;
  processing_instruction?: string;
  purchase_units: OrderUnit[];
  payer?: OrderPayer;
  create_time: string;
  update_time: string;
  links: Link[];
}

/** Each purchase unit's authorizations, captures and refunds, as the order shows them, and its trackers. */
async function paymentsByUnit(ctx: ServiceContext, row: OrderRow) {
  const { authorizations, captures, refunds } = await ctx.deps.domains.payments.paymentsOfOrder(ctx, row.id);
  const unitOfCapture = new Map(captures.map((capture) => [capture.resource.id, capture.referenceId]));
  const byUnit = new Map<string, UnitPayments>();
  const add = (unit: string, kind: keyof UnitPayments, resource: PaymentResource) => {
    const payments = byUnit.get(unit) ?? {};
    (payments[kind] ??= []).push(resource);
    byUnit.set(unit, payments);
  };
  for (const authorization of authorizations) add(authorization.referenceId, 'authorizations', authorization.resource);
  for (const capture of captures) add(capture.referenceId, 'captures', capture.resource);
  for (const refund of refunds) add(unitOfCapture.get(refund.captureId) ?? 'default', 'refunds', refund.resource);
  // Only a captured order can have trackers.
  const trackers = captures.length > 0 ? await trackersByUnit(ctx, row.id, unitOfCapture) : new Map<string, Tracker[]>();
  return { byUnit, trackers };
}

export async function presentOrder(ctx: ServiceContext, row: OrderRow): Promise<Order> {
  const details = parseOrderDetails(row);
  const { byUnit: payments, trackers } = await paymentsByUnit(ctx, row);
  const resource = { id: row.id, status: row.status } as Order;
  resource.intent = row.intent as Order['intent'];
  if (details.payment_source) resource.payment_source = details.payment_source as OrderPaymentSource;
  if (details.processing_instruction) resource.processing_instruction = details.processing_instruction;
  // The loose parts (items, shipping, instructions) are stored as units.ts checked them.
  resource.purchase_units = details.purchase_units.map((unit): OrderUnit => {
    const unitPayments = payments.get(unit.reference_id);
    const unitTrackers = trackers.get(unit.reference_id);
    const shown = (unitTrackers ? { ...unit, shipping: { ...unit.shipping, trackers: unitTrackers } } : unit) as OrderUnit;
    return unitPayments ? { ...shown, payments: unitPayments } : shown;
  });
  if (details.payer) resource.payer = details.payer as OrderPayer;
  resource.create_time = row.create_time;
  resource.update_time = row.update_time;
  resource.links = orderLinks(row, ctx.baseUrl);
  return resource;
}
