// Request bodies of the checkout orders endpoints (only what is needed to authorize or capture).

import { z } from 'zod';
import { deferredSchemas } from '../http/validation.js';
import { amountWithBreakdownSchema, moneySchema } from '../payments/schema.js';

// Built on first use (deferredSchemas, http/validation.ts): zod builds every schema where it is declared.
function build() {
  const itemSchema = z.object({
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

  const purchaseUnitSchema = z.object({
    reference_id: z.string().min(1).max(256).optional(),
    amount: amountWithBreakdownSchema,
    payee: payeeSchema.optional(),
    description: z.string().min(1).max(127).optional(),
    custom_id: z.string().min(1).max(127).optional(),
    invoice_id: z.string().min(1).max(127).optional(),
    soft_descriptor: z.string().min(1).max(22).optional(),
    items: z.array(itemSchema).max(100).optional(),
    shipping: z.object({}).loose().optional(),
  });
  const cardSchema = z.object({
    number: z.string().regex(/^[0-9]{13,19}$/),
    expiry: z.string().regex(/^[0-9]{4}-(0[1-9]|1[0-2])$/),
    name: z.string().min(1).max(300).optional(),
    security_code: z.string().regex(/^[0-9]{3,4}$/).optional(),
    billing_address: z.object({}).loose().optional(),
  });

  /** One payment source: a card (approved at once) or a wallet or bank method (payer action needed). */
  const paymentSourceSchema = z
    .object({ card: cardSchema.optional() })
    .catchall(z.object({}).loose())
    .refine((source) => Object.keys(source).length === 1, {
      message: 'Give exactly one payment source.',
      params: { issue: 'INVALID_PARAMETER_VALUE' },
    });
  const createOrderSchema = z.object({
    intent: z.enum(['CAPTURE', 'AUTHORIZE']),
    purchase_units: z.array(purchaseUnitSchema).min(1).max(10),
    payer: z.object({}).loose().optional(),
    payment_source: paymentSourceSchema.optional(),
    processing_instruction: z.enum(['NO_INSTRUCTION', 'ORDER_COMPLETE_ON_PAYMENT_APPROVAL']).optional(),
    application_context: z.object({}).loose().optional(),
  });
  const orderActionSchema = z.object({ payment_source: paymentSourceSchema.optional() });
  const orderParamsSchema = z.object({ id: z.string().min(1).max(36).regex(/^[A-Z0-9]+$/) });
  return {
    itemSchema, payeeSchema, purchaseUnitSchema, cardSchema, paymentSourceSchema, createOrderSchema, orderActionSchema,
    orderParamsSchema,
  };
}
type Built = ReturnType<typeof build>;

export const {
  itemSchema, purchaseUnitSchema, paymentSourceSchema, createOrderSchema, orderActionSchema, orderParamsSchema
} = deferredSchemas(build);

export type PurchaseUnitInput = z.output<Built['purchaseUnitSchema']>;
export type PaymentSourceInput = z.output<Built['paymentSourceSchema']>;
export type CreateOrderBody = z.output<Built['createOrderSchema']>;
export type OrderActionBody = z.output<Built['orderActionSchema']>;
