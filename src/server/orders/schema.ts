// Request bodies of the checkout orders endpoints (only what is needed to authorize or capture).

import { z } from 'zod';
import { jsonPatchSchema } from '../http/json-patch.js';
import { calendarDateSchema } from '../http/validation.js';
import { amountWithBreakdownSchema, moneySchema } from '../payments/api.js';
import { TRACKER_STATUSES } from './states.js';

export const itemSchema = z.object({
  name: z.string().min(1).max(127),
  unit_amount: moneySchema,
  tax: moneySchema.optional(),
  quantity: z.string().regex(/^[1-9][0-9]{0,9}$/),
  description: z.string().max(127).optional(),
  sku: z.string().max(127).optional(),
  category: z.enum(['DIGITAL_GOODS', 'PHYSICAL_GOODS', 'DONATION']).optional(),
});

const payeeSchema = z.object({
  email_address: z.string().min(3).max(254).optional(),
  merchant_id: z.string().regex(/^[2-9A-HJ-NP-Z]{13}$/).optional(),
});

export const purchaseUnitSchema = z.object({
  reference_id: z.string().min(1).max(256).optional(),
  amount: amountWithBreakdownSchema,
  payee: payeeSchema.optional(),
  description: z.string().min(1).max(127).optional(),
  custom_id: z.string().min(1).max(127).optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  soft_descriptor: z.string().min(1).max(22).optional(),
  items: z.array(itemSchema).max(100).optional(),
  shipping: z.object({}).loose().optional(),
  payment_instruction: z.object({}).loose().optional(),
  supplementary_data: z.object({}).loose().optional(),
});
const cardSchema = z.object({
  number: z.string().regex(/^[0-9]{13,19}$/),
  expiry: z.string().regex(/^[0-9]{4}-(0[1-9]|1[0-2])$/),
  name: z.string().min(1).max(300).optional(),
  security_code: z.string().regex(/^[0-9]{3,4}$/).optional(),
  billing_address: z.object({}).loose().optional(),
});

/** One payment source: a card (approved at once) or a wallet or bank method (payer action needed). */
export const paymentSourceSchema = z
  .object({ card: cardSchema.optional() })
  .catchall(z.object({}).loose())
  .refine((source) => Object.keys(source).length === 1, {
    message: 'Give exactly one payment source.',
    params: { issue: 'INVALID_PARAMETER_VALUE' },
  });
export const createOrderSchema = z.object({
  intent: z.enum(['CAPTURE', 'AUTHORIZE']),
  purchase_units: z.array(purchaseUnitSchema).min(1).max(10),
  payer: z.object({}).loose().optional(),
  payment_source: paymentSourceSchema.optional(),
  processing_instruction: z.enum(['NO_INSTRUCTION', 'ORDER_COMPLETE_ON_PAYMENT_APPROVAL']).optional(),
  application_context: z.object({}).loose().optional(),
});
export const orderActionSchema = z.object({ payment_source: paymentSourceSchema.optional() });
export const orderParamsSchema = z.object({ id: z.string().min(1).max(36).regex(/^[A-Z0-9]+$/) });

/** JSON Patch as sent; which paths and operations apply is the service's rule (orders/patch.ts). */
export const patchRequestSchema = jsonPatchSchema({ maxPathLength: 1000, maxOperations: 100 });

export const confirmOrderSchema = z.object({
  payment_source: paymentSourceSchema,
  processing_instruction: createOrderSchema.shape.processing_instruction,
  application_context: z.object({}).loose().optional(),
});

const trackerItemSchema = z.object({
  name: z.string().min(1).max(127).optional(),
  quantity: z.string().regex(/^[1-9][0-9]{0,9}$/).optional(),
  sku: z.string().min(1).max(127).optional(),
  url: z.string().min(1).max(2048).optional(),
  image_url: z.string().min(1).max(2048).optional(),
  upc: z.object({ type: z.string().min(1).max(5), code: z.string().min(6).max(17) }).optional(),
});
export const trackerItemsSchema = z.array(trackerItemSchema).max(100);
const trackingStatusSchema = z.enum(TRACKER_STATUSES);
export const trackerRequestSchema = z.object({
  capture_id: z.string().min(1).max(50).regex(/^[a-zA-Z0-9]*$/),
  transaction_id: z.string().min(1).max(50).regex(/^[a-zA-Z0-9]*$/).optional(),
  tracking_number: z.string().min(1).max(64),
  tracking_number_type: z.enum(['CARRIER_PROVIDED', 'E2E_PARTNER_PROVIDED']).optional(),
  status: trackingStatusSchema.default('SHIPPED'),
  shipment_date: calendarDateSchema().optional(),
  // The published carrier list has over a thousand names: the server checks their form, not the list.
  carrier: z.string().min(1).max(64).regex(/^[0-9A-Z_]+$/),
  carrier_name_other: z.string().min(1).max(64).optional(),
  notify_payer: z.boolean().default(false),
  items: trackerItemsSchema.optional(),
});
export const trackerParamsSchema = z.object({
  id: orderParamsSchema.shape.id,
  tracker_id: z.string().min(1).max(200),
});

export type PurchaseUnitInput = z.infer<typeof purchaseUnitSchema>;
export type PaymentSourceInput = z.infer<typeof paymentSourceSchema>;
export type CreateOrderBody = z.infer<typeof createOrderSchema>;
export type OrderActionBody = z.infer<typeof orderActionSchema>;
export type PatchRequest = z.infer<typeof patchRequestSchema>;
export type ConfirmOrderBody = z.infer<typeof confirmOrderSchema>;
export type TrackerItem = z.infer<typeof trackerItemSchema>;
export type TrackerRequest = z.infer<typeof trackerRequestSchema>;
