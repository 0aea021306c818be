// Request bodies of the payments endpoints, and the Money shapes orders share.

import { z } from 'zod';

const MONEY_VALUE = /^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$/;

export const moneySchema = z.object({
  currency_code: z.string().length(3),
  value: z.string().max(32).regex(MONEY_VALUE),
});

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

export const breakdownSchema = z.object(
  Object.fromEntries(BREAKDOWN_PARTS.map((part) => [part, moneySchema.optional()])) as Record<
    BreakdownPart,
    z.ZodOptional<typeof moneySchema>
  >,
);

export const amountWithBreakdownSchema = moneySchema.extend({ breakdown: breakdownSchema.optional() });

export type MoneyInput = z.output<typeof moneySchema>;
export type AmountWithBreakdownInput = z.output<typeof amountWithBreakdownSchema>;

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
export type CaptureBody = z.output<typeof captureBodySchema>;

export const refundBodySchema = z.object({
  amount: moneySchema.optional(),
  custom_id: z.string().min(1).max(127).optional(),
  invoice_id: z.string().min(1).max(127).optional(),
  note_to_payer: z.string().min(1).max(255).optional(),
  payment_instruction: z.object({}).loose().optional(),
});
export type RefundBody = z.output<typeof refundBodySchema>;

export const reauthorizeBodySchema = z.object({ amount: moneySchema });
export type ReauthorizeBody = z.output<typeof reauthorizeBodySchema>;

export const idParamsSchema = z.object({ id: z.string().min(1).max(64) });

export const kycBodySchema = z.object({ status: z.enum(['PENDING', 'VERIFIED']) });
export const reviewBodySchema = z.object({ decision: z.enum(['APPROVE', 'DENY']) });
