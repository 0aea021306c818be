// Request bodies of the payments endpoints, and the Money shapes orders share.

import { z } from 'zod';
import { strictDecimal } from '../http/decimals.js';

export const BREAKDOWN_PARTS = [
  'item_total',
  'tax_total',
  'shipping',
  'handling',
  'insurance',
  'gratuity',
  'shipping_discount',
  'discount',
] as const;
export type BreakdownPart = (typeof BREAKDOWN_PARTS)[number];

export const moneySchema = z.object({
  currency_code: z.string().length(3),
  // Syntax only at the edge: sign, decimals and size are business rules here (422, payments/amounts.ts).
  value: strictDecimal({ sign: 'any' }),
});

export const breakdownSchema = z.object(
  Object.fromEntries(BREAKDOWN_PARTS.map((part) => [part, moneySchema.optional()])) as Record<
    BreakdownPart,
    z.ZodOptional<typeof moneySchema>
  >,
);

export const amountWithBreakdownSchema = moneySchema.extend({ breakdown: breakdownSchema.optional() });

const paymentInstructionSchema = z
  .object({ disbursement_mode: z.enum(['INSTANT', 'DELAYED']).optional() })
  .loose();

export const captureBodySchema = z.object({
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
  amount: amountWithBreakdownSchema.optional(),
  final_capture: z.boolean().optional(),
  payment_instruction: paymentInstructionSchema.optional(),
  soft_descriptor: z.string().max(22).optional(),
});
export const refundBodySchema = z.object({
  amount: moneySchema.optional(),
  // Spec 2.4: letters, digits and - _ . , only.
  custom_id: z.string().min(1).max(127).regex(/^[A-Za-z0-9-_.,]*$/, 'Letters, digits and - _ . , only.').optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
  payment_instruction: z.object({}).loose().optional(),
});
export const reauthorizeBodySchema = z.object({ amount: moneySchema });
export const idParamsSchema = z.object({ id: z.string().min(1).max(64) });

export const reviewBodySchema = z.object({ decision: z.enum(['APPROVE', 'DENY']) });

export type MoneyInput = z.infer<typeof moneySchema>;
export type AmountWithBreakdownInput = z.infer<typeof amountWithBreakdownSchema>;
export type CaptureBody = z.infer<typeof captureBodySchema>;
export type RefundBody = z.infer<typeof refundBodySchema>;
export type ReauthorizeBody = z.infer<typeof reauthorizeBodySchema>;
